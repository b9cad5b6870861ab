import {
  createAdaptiveThrottle,
  createPacer,
  createRetryBudget,
  createRetryPolicy,
  type HeaderGetter,
  PacerError,
  type RetryOptions,
  seededRandom,
  ThrottledError,
} from '@jitterbug/core';
import type { RetryRun } from '@jitterbug/core/adapter';

/** What a feature said about an attempt, as the drive below logs it. */
type PacerTurn =
  | { readonly kind: 'go' }
  | { readonly kind: 'hold'; readonly waitMs: number }
  | { readonly kind: 'refuse'; readonly reason: string };

import { describe, expect, it } from 'vitest';
import { beforeAttempt, decideOn } from '../../core/test/decisions.ts';
import {
  createStormPolicy,
  createWarmThrottle,
  DEFAULT_LATENCY,
  DEFAULT_STORM_POLICIES,
  EventHeap,
  runStorm,
  STORM_DEFAULTS,
  STORM_LIMITS,
  STORM_POLICIES,
  simulateStorm,
  stormLimitProblem,
  stormPolicyThrottles,
} from '../src/index.ts';
import { stormPolicyPaces } from '../src/storm.ts';

const small = { seed: 9, durationSec: 20, outageStartSec: 5, outageEndSec: 10, runs: 2 } as const;

describe('simulateStorm accounting', () => {
  for (const policy of STORM_POLICIES) {
    it(`${policy}: attempts = requests − throttled − paceRefused + retries, and every request ends once`, () => {
      const r = simulateStorm(policy, small);
      expect(r.attempts).toBe(r.requests - r.throttled - r.paceRefused + r.retries);
      if (!stormPolicyThrottles(policy)) expect(r.throttled).toBe(0);
      // The pacer refuses requests while the origin answers nothing but 503 (its probes go).
      if (!stormPolicyPaces(policy)) expect(r.held + r.paceRefused).toBe(0);
      else expect(r.paceRefused).toBeGreaterThan(0);
      expect(r.timeline.held.reduce((a, b) => a + b, 0)).toBe(r.held);
      expect(r.timeline.paceRefused.reduce((a, b) => a + b, 0)).toBe(r.paceRefused);
      expect(r.timeline.throttled.reduce((a, b) => a + b, 0)).toBe(r.throttled);
      expect(r.stopReasons.throttled ?? 0).toBeGreaterThanOrEqual(r.throttled);
      expect(r.succeeded + r.failed).toBe(r.requests);
      expect(Object.values(r.stopReasons).reduce((a, b) => a + b, 0)).toBe(r.requests);
      expect(r.timeline.attempts.reduce((a, b) => a + b, 0)).toBe(r.attempts);
      expect(
        r.timeline.rejected.reduce((a, b) => a + b, 0) + r.timeline.served.reduce((a, b) => a + b, 0),
      ).toBe(r.attempts);
      expect(r.timeline.started.reduce((a, b) => a + b, 0)).toBe(r.requests);
      expect(r.timeline.served.reduce((a, b) => a + b, 0)).toBe(r.succeeded);
      expect(r.attempts).toBeLessThanOrEqual(r.requests * 3);
    });
  }

  it('none never retries; every request in the outage fails', () => {
    const r = simulateStorm('none', small);
    expect(r.retries).toBe(0);
    expect(r.failed).toBeGreaterThanOrEqual(r.outageRequests - 5);
  });

  it("the core's budget caps retries at burst + ratio × requests", () => {
    for (const policy of ['budget', 'budget+retry-after'] as const) {
      const r = simulateStorm(policy, small);
      expect(r.retries).toBeLessThanOrEqual(10 + 0.1 * r.requests + 1e-9);
      expect(r.stopReasons['budget-exhausted']).toBeGreaterThan(0);
    }
  });

  it('naive retries triple the load during the outage; the budget keeps it near 1.1', () => {
    const naive = simulateStorm('naive-full', small);
    const budget = simulateStorm('budget', small);
    expect(naive.outageAttempts / naive.outageRequests).toBeGreaterThan(2.8);
    expect(budget.outageAttempts / budget.outageRequests).toBeLessThan(1.3);
  });

  it('every policy faces the same requests under a seed', () => {
    const counts = new Set(STORM_POLICIES.map((p) => simulateStorm(p, small).requests));
    expect(counts.size).toBe(1);
  });

  it('refuses settings past STORM_LIMITS before allocating anything, naming them', () => {
    const base = { seed: 1, runs: 1, policies: ['none'] as const };
    expect(() => simulateStorm('none', { ...base, ratePerSec: 1e9 })).toThrow(
      /ratePerSec \/ durationSec: 60000000000 requests per run/,
    );
    expect(() => simulateStorm('naive-full', { ...base, capMs: 1e12, baseMs: 1 })).toThrow(/binMs .* bins/);
    expect(() => simulateStorm('none', { ...base, binMs: 1e-6 })).toThrow(/bins/);
    expect(() => runStorm({ ...base, runs: STORM_LIMITS.runs + 1 })).toThrow(
      /runs: 10001 runs, at most 10000/,
    );
    expect(stormLimitProblem({ ...STORM_DEFAULTS, latency: DEFAULT_LATENCY })).toBeUndefined();
  });

  it('rejects an outage outside the run', () => {
    expect(() =>
      simulateStorm('none', { seed: 1, durationSec: 10, outageStartSec: 5, outageEndSec: 12 }),
    ).toThrow(RangeError);
  });
});

describe('adaptive throttling in the storm', () => {
  // A 2 s window in a 5 s outage: long enough outage for the throttle to engage.
  const short = { ...small, throttleWindowSec: 2 };

  it("with the core's two-minute window a short outage refuses nothing: the same run as without it", () => {
    // The throttle starts with a whole window of accepted requests behind it, so a 5 s outage never
    // brings requests − 2·accepts above 0, and no random number is drawn: the runs are identical.
    const long = { ...small, throttleWindowSec: 120 };
    for (const [plain, throttled] of [
      ['naive-full', 'throttle'],
      ['budget', 'budget+throttle'],
      ['budget+retry-after', 'budget+retry-after+throttle'],
    ] as const) {
      const a = simulateStorm(plain, long);
      const b = simulateStorm(throttled, long);
      expect(b.throttled).toBe(0);
      expect({ ...b, policy: plain }).toEqual({
        ...a,
        timeline: { ...a.timeline, throttled: b.timeline.throttled },
      });
    }
  });

  it('a window shorter than the outage refuses first attempts locally and cuts the load during it', () => {
    const naive = simulateStorm('naive-full', short);
    const throttle = simulateStorm('throttle', short);
    const budget = simulateStorm('budget', short);
    const both = simulateStorm('budget+throttle', short);
    expect(throttle.throttled).toBeGreaterThan(0);
    expect(throttle.stopReasons.throttled).toBeGreaterThanOrEqual(throttle.throttled);
    expect(throttle.outageAttempts).toBeLessThan(naive.outageAttempts / 2);
    // The budget lets every first attempt through (1.1 per request); the throttle goes below 1.
    expect(budget.outageAttempts / budget.outageRequests).toBeGreaterThan(1);
    expect(both.outageAttempts / both.outageRequests).toBeLessThan(0.9);
  });

  it('a client still refusing locally after the outage has not recovered: the throttle stops within a second', () => {
    const budget = simulateStorm('budget', short);
    const both = simulateStorm('budget+throttle', short);
    expect(budget.recoveryMs).toBe(0);
    const outageEndBin = Math.ceil(10_000 / both.timeline.binMs);
    // Still refusing just after the end (the recovery counts it), and not a second later: a fifth of
    // the requests go through and find the server back, and three accepted in a row clear the window.
    expect(both.timeline.throttled.slice(outageEndBin).some((n) => n > 0)).toBe(true);
    expect(both.recoveryMs).toBeGreaterThan(0);
    expect(both.recoveryMs).toBeLessThanOrEqual(1000);
    expect(both.timeline.throttled.slice(outageEndBin + 4).every((n) => n === 0)).toBe(true);
  });

  it("refuses exactly the first attempts the core's RetryRun.beforeAttempt refuses", async () => {
    // Two identical clients; one asks beforeAttempt as the adapters do, the other the run's
    // admission (no promise) as the storm does. Healthy, then refused by the server, then healthy again.
    const client = () => {
      let clock = 0;
      const throttle = createAdaptiveThrottle({ k: 2, windowMs: 2000 });
      const random = seededRandom(3);
      const settings = { maxAttempts: 3, baseMs: 100, capMs: 1000, throttle };
      const policy = createStormPolicy('budget+throttle', settings, random, () => clock);
      return { policy, throttle, random, at: (t: number) => (clock = t) };
    };
    const core = client();
    const storm = client();
    const refusedByCore: boolean[] = [];
    const refusedByStorm: boolean[] = [];
    const rejections: Promise<void>[] = [];
    const unavailable = { status: 503, headers: () => undefined };
    for (let i = 0; i < 3000; i++) {
      const t = i * 5;
      const outcome = i >= 1000 && i < 2000 ? unavailable : { status: 200 };
      core.at(t);
      const a = core.policy.begin({ method: 'GET', url: 'http://server.invalid/' });
      const held = beforeAttempt(a);
      refusedByCore.push(held !== undefined);
      if (held) rejections.push(held);
      else decideOn(a, outcome);
      storm.at(t);
      const b = storm.policy.begin({ method: 'GET', url: 'http://server.invalid/' });
      const refused = b.admission() !== undefined;
      refusedByStorm.push(refused);
      if (!refused) decideOn(b, outcome);
    }
    expect(refusedByStorm).toEqual(refusedByCore);
    expect(refusedByCore.filter(Boolean).length).toBeGreaterThan(100);
    for (const held of rejections) await expect(held).rejects.toBeInstanceOf(ThrottledError);
  });

  it('starts warm: a whole window of accepted requests behind it', () => {
    const warm = createWarmThrottle(2, 10_000, 100);
    expect(warm.rejectProbability(0)).toBe(0);
    const never = () => {
      throw new Error('no random number may be drawn while the probability is 0');
    };
    // About 1000 accepts in the window (its buckets keep 11 to 12 twelfths of it): 800 requests the
    // server refuses stay below K·accepts, where a cold throttle would refuse as many as it may.
    for (let i = 0; i < 800; i++) expect(warm.shouldReject(i, never)).toBe(false);
    expect(warm.rejectProbability(800)).toBe(0);
    const cold = createAdaptiveThrottle({ k: 2, windowMs: 10_000 });
    for (let i = 0; i < 800; i++) cold.shouldReject(i, () => 0.5);
    expect(cold.rejectProbability(800)).toBe(cold.maxRejectProbability);
  });

  it('refuses a warm-up that could not end', () => {
    const huge = { ...small, ratePerSec: 100_000, durationSec: 1, outageStartSec: 0.2, outageEndSec: 0.5 };
    expect(
      stormLimitProblem({ ...STORM_DEFAULTS, ...huge, latency: DEFAULT_LATENCY, throttleWindowSec: 1e6 }),
    ).toMatchObject({
      options: ['ratePerSec', 'throttleWindowSec'],
      asked: 'a throttle warmed up with 100000000000 requests (a whole window of them)',
    });
    expect(() => runStorm({ ...huge, throttleWindowSec: 1e6 })).toThrow(/ratePerSec \/ throttleWindowSec/);
    // Without a throttled policy there is nothing to warm up.
    expect(
      stormLimitProblem({
        ...STORM_DEFAULTS,
        ...huge,
        latency: DEFAULT_LATENCY,
        throttleWindowSec: 1e6,
        policies: ['budget'],
      }),
    ).toBeUndefined();
    expect(() => simulateStorm('throttle', { ...small, throttleK: 0.5 })).toThrow(
      /throttleK must be a number >= 1/,
    );
    expect(() => simulateStorm('throttle', { ...small, throttleWindowSec: 0 })).toThrow(/throttleWindowSec/);
  });
});

describe('runStorm', () => {
  it('is deterministic under a seed', () => {
    expect(runStorm(small)).toEqual(runStorm(small));
  });

  it('reports every default policy with sane metrics', () => {
    const r = runStorm(small);
    expect(r.policies.map((p) => p.policy)).toEqual([...DEFAULT_STORM_POLICIES]);
    for (const p of r.policies) {
      expect(p.attempts).toBe(p.requests - p.throttled - p.paceRefused + p.retries);
      // Only a request the throttle or the pacer refused before sending has no attempt at all.
      expect(p.amplification.mean).toBeGreaterThanOrEqual(
        1 - p.throttledShare.mean - p.paceRefused / p.requests - 1e-12,
      );
      if (!stormPolicyThrottles(p.policy)) expect(p.throttledShare.mean).toBe(0);
      expect(p.failedShare.mean).toBeGreaterThanOrEqual(0);
      expect(p.failedShare.mean).toBeLessThanOrEqual(1);
      expect(p.timeline.attemptsPerSec.length).toBeGreaterThan(0);
    }
  });
});

/**
 * A small client/server loop over a policy with a pacer, in virtual time: requests every 10 ms,
 * each message 5 ms, the server answering `refusal` (429 or 503, with `Retry-After`) from 500 to
 * 1800 ms. `ask` is put before every attempt: the core's `beforeAttempt` or the run's `admission` as
 * the storm asks it. Returns what each ask said and every decision, in order.
 */
const drivePacer = async (
  refusal: number,
  retryAfter: string,
  extra: RetryOptions,
  ask: (run: RetryRun) => Promise<PacerTurn> | PacerTurn,
  setClock: (t: number) => void,
  policyOptions: RetryOptions,
): Promise<string[]> => {
  const policy = createRetryPolicy({
    maxAttempts: 3,
    backoff: { strategy: 'full', baseMs: 100, capMs: 1000 },
    budget: createRetryBudget(),
    pacer: createPacer(),
    ...policyOptions,
    ...extra,
  });
  const n = 300;
  const heap = new EventHeap(n);
  const runs: RetryRun[] = [];
  const stage = new Uint8Array(n); // 0 ready to send, 1 at the server, 2 answered
  const status = new Uint16Array(n);
  const headers: HeaderGetter = (name) => (name.toLowerCase() === 'retry-after' ? retryAfter : undefined);
  for (let i = 0; i < n; i++) heap.push(i, i * 10);
  const log: string[] = [];
  while (heap.size > 0) {
    const id = heap.peek();
    const t = heap.peekTime();
    setClock(t);
    if (stage[id] === 0) {
      runs[id] ??= policy.begin({ method: 'GET', url: 'http://server.invalid/item' });
      const turn = await ask(runs[id]!);
      log.push(
        `${t.toFixed(3)} #${id} ${turn.kind} ${turn.kind === 'hold' ? turn.waitMs.toFixed(3) : turn.kind === 'refuse' ? turn.reason : ''}`,
      );
      if (turn.kind === 'hold') heap.replaceTop(t + turn.waitMs);
      else if (turn.kind === 'refuse') heap.pop();
      else {
        stage[id] = 1;
        heap.replaceTop(t + 5);
      }
    } else if (stage[id] === 1) {
      status[id] = t >= 500 && t < 1800 ? refusal : 200;
      stage[id] = 2;
      heap.replaceTop(t + 5);
    } else {
      const run = runs[id]!;
      const s = status[id]!;
      const decision = decideOn(run, s === refusal ? { status: s, headers } : { status: s });
      if (decision instanceof Promise) throw new Error('no hooks here');
      log.push(
        `${t.toFixed(3)} #${id} ${s} ${decision.retry ? `retry ${decision.delayMs.toFixed(3)}` : decision.reason}`,
      );
      if (decision.retry) {
        stage[id] = 0;
        heap.replaceTop(t + decision.delayMs);
      } else heap.pop();
    }
  }
  return log;
};

describe('the origin-wide pacer in the storm', () => {
  const cases: [string, number, string, RetryOptions][] = [
    ['429s with holds of 1 s', 429, '1', {}],
    ['429s with holds past retryAfter.maxMs, refused', 429, '90', {}],
    [
      '429s with holds past retryAfter.maxMs, cut to maxMs',
      429,
      '90',
      { retryAfter: { whenLonger: 'cap', maxMs: 2000 } },
    ],
    ['429s with holds past the deadline', 429, '1', { deadlineMs: 1500 }],
    ['an origin answering only 503s', 503, '5', {}],
  ];
  for (const [name, refusal, retryAfter, extra] of cases) {
    it(`asks the pacer exactly as RetryRun.beforeAttempt does: ${name}`, async () => {
      // Core: beforeAttempt with a sleep that only records (the loop moves the clock).
      let clock = 0;
      let slept = Number.NaN;
      const core = await drivePacer(
        refusal,
        retryAfter,
        extra,
        async (run) => {
          slept = Number.NaN;
          const held = beforeAttempt(run);
          if (!held) return { kind: 'go' };
          try {
            await held;
            return { kind: 'hold', waitMs: slept };
          } catch (error) {
            expect(error).toBeInstanceOf(PacerError);
            return { kind: 'refuse', reason: run.summary!.reason };
          }
        },
        (t) => (clock = t),
        {
          now: () => clock,
          random: seededRandom(5),
          sleep: async (ms) => {
            slept = ms;
          },
        },
      );
      // Storm: the run's admission, without a promise; the sleep must never be called.
      let stormClock = 0;
      const storm = await drivePacer(
        refusal,
        retryAfter,
        extra,
        (run): PacerTurn => {
          const turn = run.admission();
          if (!turn) return { kind: 'go' };
          return 'holdMs' in turn
            ? { kind: 'hold', waitMs: turn.holdMs }
            : { kind: 'refuse', reason: turn.refuse };
        },
        (t) => (stormClock = t),
        {
          now: () => stormClock,
          random: seededRandom(5),
          sleep: () => {
            throw new Error('the storm never sleeps');
          },
        },
      );
      expect(storm).toEqual(core);
      const kinds = (kind: string) => core.filter((line) => line.split(' ')[2] === kind).length;
      if (retryAfter === '90' && !extra.retryAfter) expect(kinds('refuse')).toBeGreaterThan(50);
      if (extra.deadlineMs) expect(core.some((line) => line.endsWith('refuse deadline'))).toBe(true);
      // 503s hold nothing: a second after the last accepted answer the origin is unavailable, and
      // requests are refused but a probe every half second.
      if (refusal === 503) {
        expect(kinds('hold')).toBe(0);
        expect(core.filter((line) => line.endsWith('refuse origin-unavailable')).length).toBeGreaterThan(20);
      } else expect(kinds('hold') + kinds('refuse')).toBeGreaterThan(50);
    });
  }

  it('silences the server during the outage (but its first second), where the budget still lets every first attempt through', () => {
    const budget = simulateStorm('budget+retry-after', small);
    const pacer = simulateStorm('budget+retry-after+pacer', small);
    expect(budget.outageAttempts / budget.outageRequests).toBeGreaterThan(0.9);
    // The first second of 503s (until the pacer takes the origin as unavailable), then a probe
    // every half second: about a fifth of a 5 s outage's requests.
    expect(pacer.outageAttempts / pacer.outageRequests).toBeLessThan(0.3);
    expect(pacer.stopReasons['origin-unavailable']).toBeGreaterThan(pacer.outageRequests / 2);
    // Refused at once, not held: the requests that succeed are not slower for it.
    expect(pacer.latencyP99Ms).toBeLessThanOrEqual(budget.latencyP99Ms);
  });

  it('is back to normal within a second of the outage’s end, in every run (the cooldown never was)', () => {
    // The defaults: a 15 s outage, 100 requests/s, capacity 120/s, Retry-After 5 s, then 1 s when shedding.
    for (let r = 0; r < 3; r++) {
      const run = simulateStorm('budget+retry-after+pacer', { seed: 1000 + r });
      expect(run.recoveryMs).not.toBeNull();
      expect(run.recoveryMs!).toBeLessThanOrEqual(1000);
      expect(run.outageAttempts / run.outageRequests).toBeLessThanOrEqual(1.05);
      expect(run.latencyP50Ms).toBeLessThan(100);
    }
  });
});
