/**
 * The origin-wide pacer: it learns the pace an origin accepts (its 429s and their Retry-After, what
 * it advertises) and sends the policy's requests to it no faster, in order. Driven in virtual time
 * through `run.admission()` (the turn `beforeAttempt` takes, without its promise), and through
 * `beforeAttempt` itself where the promise is the point.
 */
import { createPacer, createRetryPolicy, type Pacer, PacerError, type RetryOptions } from '@jitterbug/core';
import type { RetryRun } from '@jitterbug/core/adapter';
import { describe, expect, it } from 'vitest';
import { isPacer } from '../src/features/pacer.ts';
import { beforeAttempt, decideOn, finishRun } from './decisions.ts';
import { clock, decided, headers } from './helpers.ts';

const URL_A = 'https://api.example.com/items';

const setup = (options: RetryOptions = {}) => {
  const c = clock();
  const pacer = (options.pacer || createPacer()) as Pacer;
  const policy = createRetryPolicy({
    now: c.now,
    random: () => 0.5,
    sleep: async (ms, signal) => {
      if (signal?.aborted) throw signal.reason;
      c.advance(ms);
    },
    pacer,
    ...options,
  });
  const begin = (url = URL_A, method = 'GET') => policy.begin({ method, url });
  /**
   * Asks each run for its turn in virtual time, as the simulator does, until each goes or is
   * refused: the time each was sent (or the reason it was refused).
   */
  const turns = (runs: readonly RetryRun[]): (number | string)[] => {
    const at = runs.map(() => c.now());
    const out: (number | string | undefined)[] = runs.map(() => undefined);
    for (;;) {
      let next = -1;
      for (let i = 0; i < runs.length; i++)
        if (out[i] === undefined && (next < 0 || at[i]! < at[next]!)) next = i;
      if (next < 0) return out as (number | string)[];
      c.advance(Math.max(0, at[next]! - c.now()));
      const turn = runs[next]!.admission();
      if (turn === undefined) out[next] = c.now();
      else if ('holdMs' in turn) at[next] = c.now() + turn.holdMs;
      else out[next] = turn.refuse;
    }
  };
  /** `n` requests answered 200, one every `gapMs`: what the origin accepts. */
  const accepted = (n: number, gapMs: number, answer = headers()) => {
    for (let i = 0; i < n; i++) {
      const run = begin();
      expect(run.admission()).toBeUndefined();
      decided(decideOn(run, { status: 200, headers: answer }));
      c.advance(gapMs);
    }
  };
  /** One request sent and answered 200 with `advertised`, now: the time after it. */
  const answeredWith = (advertised: ReturnType<typeof headers>): number => {
    const run = begin();
    run.admission();
    decided(decideOn(run, { status: 200, headers: advertised }));
    return c.now();
  };
  return { c, policy, pacer, begin, turns, accepted, answeredWith };
};

const limited = (seconds: string) => ({ status: 429, headers: headers({ 'retry-after': seconds }) });
const origin = new URL(URL_A).origin;

describe('pacer: 429 and Retry-After', () => {
  it('holds every request to the origin until the Retry-After, then releases them one at a time, in order', () => {
    const { c, pacer, begin, turns, accepted } = setup();
    accepted(10, 100);
    expect(pacer.rateOf(origin, c.now())).toBe(Infinity);
    decided(decideOn(begin(), limited('2')));
    const t429 = c.now();
    const sent = turns(Array.from({ length: 6 }, () => begin())) as number[];
    // Not before the 2 s the server asked for, in the order they came, and not all at once: from the
    // pace the origin accepted (10 in its first second).
    expect(sent[0]).toBeGreaterThanOrEqual(t429 + 2000);
    for (let i = 1; i < sent.length; i++) expect(sent[i]! - sent[i - 1]!).toBeGreaterThan(50);
    expect(sent.at(-1)! - sent[0]!).toBeGreaterThan(300);
    expect(pacer.rateOf(origin, t429 + 2000)).toBeCloseTo(10, 5);
  });

  it('the request that got the 429 is ahead of requests that came after it; other origins are not held', () => {
    const { c, begin, turns, accepted } = setup();
    accepted(5, 200);
    const first = begin();
    expect(first.admission()).toBeUndefined();
    const decision = decided(decideOn(first, limited('1')));
    expect(decision).toMatchObject({ retry: true, delaySource: 'retry-after' });
    const later = begin();
    expect(begin('https://other.example.com/x').admission()).toBeUndefined();
    // The retry comes after its own wait (the Retry-After with jitter); the later request too.
    c.advance(decision.retry ? decision.delayMs : 0);
    const [retried, after] = turns([first, later]) as number[];
    expect(retried).toBeLessThan(after!);
  });

  it('answers to requests already in flight lower the pace once, not once each', () => {
    const paces = [1, 5].map((n) => {
      const { c, pacer, begin, accepted } = setup();
      accepted(20, 50);
      const inFlight = Array.from({ length: n }, () => begin());
      for (const run of inFlight) expect(run.admission()).toBeUndefined();
      for (const run of inFlight) decided(decideOn(run, limited('1')));
      return pacer.rateOf(origin, c.now() + 1000);
    });
    expect(paces[1]).toBe(paces[0]);
    expect(paces[0]).toBeGreaterThan(10);
  });

  it('a hold longer than retryAfter.maxMs fails at once with a PacerError, reason retry-after-too-long', async () => {
    const giveUps: unknown[] = [];
    const { begin } = setup({ retryAfter: { maxMs: 5_000 }, onGiveUp: (e) => giveUps.push(e) });
    decided(decideOn(begin(), limited('3600')));
    const held = begin();
    const error = await Promise.resolve(beforeAttempt(held)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PacerError);
    expect(error).toMatchObject({ code: 'ERR_JITTERBUG_PACER', origin });
    expect((error as PacerError).waitMs).toBeGreaterThanOrEqual(3_600_000);
    expect(held.summary).toMatchObject({ attempts: 0, reason: 'retry-after-too-long', outcome: 'failure' });
    expect(giveUps.at(-1)).toMatchObject({ reason: 'retry-after-too-long' });
  });

  it("with whenLonger: 'cap', a request waits retryAfter.maxMs at most, then is sent", async () => {
    const { c, begin } = setup({ retryAfter: { maxMs: 5_000, whenLonger: 'cap' } });
    decided(decideOn(begin(), limited('3600')));
    const held = begin();
    const start = c.now();
    for (let turn = beforeAttempt(held); turn; turn = beforeAttempt(held)) await turn;
    expect(c.now() - start).toBe(5_000);
    expect(held.totalDelayMs).toBe(5_000);
  });

  it('a wait in line that lasts longer than retryAfter.maxMs fails the request then', () => {
    const { c, begin, turns, accepted } = setup({ retryAfter: { maxMs: 3_000 } });
    accepted(1, 1000);
    decided(decideOn(begin(), limited('2')));
    const start = c.now();
    // The origin accepted one request a second: after the 2 s hold the line moves at about that pace
    // (doubling each second until the next 429), and the last ones would have waited past 3 s.
    const ends = turns(Array.from({ length: 6 }, () => begin()));
    expect(ends[0]).toBeGreaterThanOrEqual(start + 2000);
    expect(ends.at(-1)).toBe('retry-after-too-long');
    for (const end of ends) if (typeof end === 'number') expect(end - start).toBeLessThanOrEqual(3000);
  });

  it('a hold past the deadline fails at once with reason deadline', async () => {
    const { begin } = setup({ deadlineMs: 1_000 });
    decided(decideOn(begin(), limited('2')));
    const held = begin();
    await expect(Promise.resolve(beforeAttempt(held))).rejects.toBeInstanceOf(PacerError);
    expect(held.summary).toMatchObject({ reason: 'deadline' });
  });

  it('the caller’s abort ends a hold at once, with its reason', async () => {
    const { begin } = setup();
    decided(decideOn(begin(), limited('2')));
    const held = begin();
    const controller = new AbortController();
    const reason = new Error('left');
    controller.abort(reason);
    await expect(Promise.resolve(beforeAttempt(held, controller.signal))).rejects.toBe(reason);
    expect(held.summary).toMatchObject({ reason: 'aborted', attempts: 0 });
  });

  it('a clock that does not move while a request waits does not keep it waiting for ever', async () => {
    const frozen = clock();
    const waits: number[] = [];
    const policy = createRetryPolicy({
      now: frozen.now,
      random: () => 0.5,
      pacer: createPacer(),
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    const begin = () => policy.begin({ method: 'GET', url: URL_A });
    decided(decideOn(begin(), limited('2')));
    const held = begin();
    for (let turn = beforeAttempt(held); turn; turn = beforeAttempt(held)) await turn;
    expect(waits.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(2_000);
    expect(waits.length).toBeLessThan(20);
  });

  it('retryAfter: false: a 429 holds nothing until its Retry-After (the pace it teaches still applies)', () => {
    const { c, begin, turns, accepted } = setup({ retryAfter: false });
    accepted(50, 20);
    decided(decideOn(begin(), limited('30')));
    const [sent] = turns([begin()]) as number[];
    expect(sent! - c.now()).toBeLessThan(1_000);
  });
});

describe('pacer: what the server advertises', () => {
  it('RateLimit: the remaining quota is spread over the rest of its window', () => {
    const { c, begin, turns } = setup();
    const run = begin();
    run.admission();
    decided(decideOn(run, { status: 200, headers: headers({ ratelimit: '"default";r=4;t=2' }) }));
    const start = c.now();
    const sent = turns(Array.from({ length: 4 }, () => begin())) as number[];
    // Four more in the next two seconds: one every 500 ms, none refused, no 429 needed to learn it.
    expect(sent.map((t) => t - start)).toEqual([0, 500, 1000, 1500]);
  });

  it('the attempts still in flight are counted against what an answer says remains', () => {
    const { c, begin, turns, answeredWith } = setup();
    const quota = (r: number, t: number) => ({
      status: 200,
      headers: headers({ ratelimit: `"default";r=${r};t=${t}` }),
    });
    const start = answeredWith(quota(8, 2).headers);
    // Three go at the pace of 8 in 2 s and are not answered yet when the first of them is: the
    // server counted it, maybe not the two others (a slow client, a slow network).
    const inFlight = Array.from({ length: 3 }, () => begin());
    expect((turns(inFlight) as number[]).map((t) => t - start)).toEqual([0, 250, 500]);
    decided(decideOn(inFlight[0]!, quota(4, 1)));
    const answered = c.now();
    // 4 left, 2 of them taken by what is in flight: 2 more by the window's end (one a pace's step
    // after the last sent, one as it resets), not 4.
    const later = Array.from({ length: 3 }, () => begin());
    const laterSent = turns(later) as number[];
    expect(laterSent.filter((t) => t <= answered + 1000).map((t) => t - answered)).toEqual([500, 1000]);
    // An attempt in flight that ends without an answer, or whose request ends, no longer counts.
    for (const run of [inFlight[1]!, inFlight[2]!, later[0]!])
      decided(decideOn(run, { error: new Error('socket hang up') }));
    void finishRun(later[1]!, 'aborted', undefined, new Error('aborted'), false);
    decided(decideOn(later[2]!, quota(9, 9)));
    const then = answeredWith(quota(2, 1).headers);
    // 2 in the last second, at their pace: nothing is taken off for the attempts that ended.
    expect((turns(Array.from({ length: 2 }, () => begin())) as number[]).map((t) => t - then)).toEqual([
      500, 1000,
    ]);
  });

  it('no more attempts go unanswered than an answer said remained, whatever the pace after its window', () => {
    const { c, begin, turns, answeredWith } = setup();
    const advertised = headers({ 'ratelimit-policy': '"default";q=4;w=1', ratelimit: '"default";r=3;t=1' });
    const start = answeredWith(advertised);
    // Three go, none answered (stuck on a slow client or network): after the window the policy's pace
    // would let one go every 250 ms, but three may land in one window with it; the fourth waits for
    // an answer.
    const unanswered = Array.from({ length: 3 }, () => begin());
    turns(unanswered);
    const fourth = begin();
    c.advance(Math.max(0, start + 2000 - c.now()));
    const turn = fourth.admission();
    expect(turn).toMatchObject({ holdMs: 50 });
    decided(decideOn(unanswered[0]!, { status: 200, headers: advertised }));
    c.advance(50);
    expect(fourth.admission()).toBeUndefined();
  });

  it('a server that lowers its quota lowers what may go unanswered: the latest window’s, not the most ever said', () => {
    const { c, begin, turns, answeredWith } = setup();
    answeredWith(headers({ 'ratelimit-policy': '"default";q=20;w=1', ratelimit: '"default";r=10;t=1' }));
    const start = answeredWith(
      headers({ 'ratelimit-policy': '"default";q=4;w=1', ratelimit: '"default";r=3;t=1' }),
    );
    turns(Array.from({ length: 3 }, () => begin()));
    const fourth = begin();
    c.advance(Math.max(0, start + 2000 - c.now()));
    // 3 unanswered, as many as the latest answer said remained: the fourth waits for an answer.
    expect(fourth.admission()).toMatchObject({ holdMs: 50 });
  });

  it('never faster than the policy’s long-run quota (RateLimit-Policy q / w), whatever r / t says', () => {
    const { c, begin, turns } = setup();
    const run = begin();
    run.admission();
    const advertised = headers({
      'ratelimit-policy': '"default";q=60;w=60',
      ratelimit: '"default";r=50;t=5',
    });
    decided(decideOn(run, { status: 200, headers: advertised }));
    const start = c.now();
    const sent = turns(Array.from({ length: 3 }, () => begin())) as number[];
    expect(sent.map((t) => t - start)).toEqual([0, 1000, 2000]);
  });

  it('a spent quota (r=0) holds the origin until its window ends, then paces at its policy', () => {
    const { c, begin, turns } = setup();
    const run = begin();
    run.admission();
    const spent = headers({ 'ratelimit-policy': '"default";q=10;w=5', ratelimit: '"default";r=0;t=3' });
    decided(decideOn(run, { status: 200, headers: spent }));
    const start = c.now();
    const sent = turns(Array.from({ length: 3 }, () => begin())) as number[];
    expect(sent.map((t) => t - start)).toEqual([3000, 3500, 4000]);
  });

  it('X-RateLimit-Remaining with X-RateLimit-Reset (seconds, or an epoch time) paces the same way', () => {
    for (const reset of ['6', (c: ReturnType<typeof clock>) => String(c.now() / 1000 + 6)] as const) {
      const { c, begin, turns } = setup();
      const run = begin();
      run.admission();
      const value = typeof reset === 'string' ? reset : reset(c);
      decided(
        decideOn(run, {
          status: 200,
          headers: headers({ 'x-ratelimit-remaining': '3', 'x-ratelimit-reset': value }),
        }),
      );
      const start = c.now();
      const sent = turns(Array.from({ length: 3 }, () => begin())) as number[];
      expect(sent.map((t) => t - start)).toEqual([0, 2000, 4000]);
    }
  });

  it('malformed fields are ignored: nothing is paced by them', () => {
    const { begin, turns, c } = setup();
    const run = begin();
    run.admission();
    const garbage = headers({
      ratelimit: 'default;r=NaN;t=1',
      'ratelimit-policy': '"x";q=-5;w=0',
      'x-ratelimit-remaining': '1e3',
      'x-ratelimit-reset': 'soon',
    });
    decided(decideOn(run, { status: 200, headers: garbage }));
    const start = c.now();
    expect((turns(Array.from({ length: 5 }, () => begin())) as number[]).map((t) => t - start)).toEqual([
      0, 0, 0, 0, 0,
    ]);
  });
});

describe('pacer: an origin that answers everything with 503', () => {
  const unavailable = { status: 503, headers: headers({ 'retry-after': '5' }) };

  it('after a second of nothing but 503s, requests fail at once but one every 500 ms; the first other answer ends it', async () => {
    const { c, begin, accepted } = setup({ maxAttempts: 1 });
    accepted(3, 100);
    const lastAccepted = c.now() - 100;
    // 503s, one every 100 ms, until the pacer takes the origin as unavailable: a second after the
    // last answer it accepted.
    let sent = 0;
    for (;;) {
      const run = begin();
      if (run.admission() !== undefined) break;
      sent++;
      decided(decideOn(run, unavailable));
      c.advance(100);
    }
    expect(c.now() - lastAccepted).toBeGreaterThanOrEqual(1000);
    expect(sent).toBeLessThanOrEqual(11);
    // Now at most one request every 500 ms goes: the probe; the others fail with nothing sent.
    const outcomes: string[] = [];
    for (let i = 0; i < 10; i++) {
      const turn = begin().admission();
      outcomes.push(turn === undefined ? 'sent' : 'refuse' in turn ? turn.refuse : 'held');
      c.advance(100);
    }
    expect(outcomes.filter((o) => o === 'sent')).toHaveLength(2);
    expect(outcomes.filter((o) => o === 'origin-unavailable')).toHaveLength(8);
    const refused = begin();
    await expect(Promise.resolve(beforeAttempt(refused))).rejects.toBeInstanceOf(PacerError);
    expect(refused.summary).toMatchObject({ attempts: 0, reason: 'origin-unavailable' });
    // A probe answered 200: the origin is back, every request goes.
    c.advance(500);
    const probe = begin();
    expect(probe.admission()).toBeUndefined();
    decided(decideOn(probe, { status: 200 }));
    for (let i = 0; i < 5; i++) expect(begin().admission()).toBeUndefined();
  });

  it('a 503 of an unavailable origin is not retried: the caller gets it (its probes are the retries)', () => {
    const { c, begin } = setup({ maxAttempts: 3, budget: false });
    for (let i = 0; i < 12; i++) {
      const run = begin();
      run.admission();
      c.advance(100);
      if (i < 11) {
        decideOn(run, unavailable);
        continue;
      }
      expect(decided(decideOn(run, unavailable))).toMatchObject({
        retry: false,
        reason: 'origin-unavailable',
        gaveUp: true,
      });
      expect(run.summary).toMatchObject({ status: 503, reason: 'origin-unavailable' });
    }
  });

  it('503s while the origin accepts other requests hold nothing (a server shedding part of its load)', () => {
    const { c, begin } = setup({ maxAttempts: 1 });
    for (let i = 0; i < 40; i++) {
      const run = begin();
      expect(run.admission()).toBeUndefined();
      decided(decideOn(run, i % 2 === 0 ? unavailable : { status: 200 }));
      c.advance(100);
    }
  });
});

describe('pacer: the option', () => {
  it('is off by default; pacer: false turns it off; one Pacer is shared by the policies given it', () => {
    expect(createRetryPolicy().options.feature.pacer).toBeUndefined();
    const off = setup({ pacer: false });
    decided(decideOn(off.begin(), limited('2')));
    expect(off.begin().admission()).toBeUndefined();
    const pacer = createPacer();
    const a = setup({ pacer });
    const b = setup({ pacer });
    decided(decideOn(a.begin(), limited('2')));
    expect(b.begin().admission()).toMatchObject({ holdMs: expect.any(Number) });
  });

  it('cooldown, the pacer’s former name, is refused with the new one in the message', () => {
    expect(() => createRetryPolicy({ cooldown: createPacer() } as never)).toThrow(
      /unknown option "cooldown".*pacer: createPacer\(\)/,
    );
  });

  it('is refused in a route or a call, and when it is not false or what createPacer() made', () => {
    expect(() => createRetryPolicy({ pacer: 'yes' as never })).toThrow(/"pacer"/);
    expect(() => createRetryPolicy({ pacer: true as never })).toThrow(
      /"pacer" must be false or what createPacer\(\) returns, got true/,
    );
    // A look-alike is refused by name, not trusted until a request calls a method it lacks.
    const lookAlike = { rateOf: () => Infinity, admit: () => undefined };
    expect(() => createRetryPolicy({ pacer: lookAlike })).toThrow(/"pacer" must be false or what/);
    expect(isPacer(lookAlike)).toBe(false);
    expect(() => createRetryPolicy({ routes: [{ match: '/x', pacer: false } as never] })).toThrow(
      /unknown option "routes\[0\]\.pacer"/,
    );
    expect(() =>
      createRetryPolicy().begin({ method: 'GET', url: 'https://x/' }, { pacer: false } as never),
    ).toThrow(/unknown option "jitterbug\.pacer"/);
  });
});
