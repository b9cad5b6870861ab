/**
 * The herd line (`herd: true`, the default): the retries a rate limit invited to one origin go back
 * one after the other, at a pace that starts slowly after the server's time and learns, instead of
 * all at that time. Driven through a policy's runs in virtual time: `run.next` decides,
 * `run.admission()` says when the retry may go.
 */
import { createPacer, createRetryPolicy, type RetryPolicyOptions } from '@jitterbug/core';
import type { RetryRun } from '@jitterbug/core/adapter';
import { describe, expect, it } from 'vitest';
import { decideOn, settleOn } from './decisions.ts';
import { decided, fixed, headers } from './helpers.ts';

const URL_A = 'https://api.example.com/items';
const limited = { status: 429, headers: headers({ 'retry-after': '1' }) };

/** A policy on a clock of its own (`at(ms)` sets it), jitter fixed at none. */
const setup = (options: RetryPolicyOptions = {}) => {
  let now = 0;
  const policy = createRetryPolicy({ random: fixed(0), now: () => now, ...options });
  const at = (ms: number): void => {
    now = ms;
  };
  return { policy, at };
};

/**
 * When each run in line is let go, all asking at `from` and again after each hold, in the order of
 * the times they ask (a small event loop over the policy's clock).
 */
const releaseTimes = (runs: readonly RetryRun[], at: (ms: number) => void, from: number): number[] => {
  const released: number[] = new Array(runs.length);
  const asking = runs.map((_, i) => ({ i, t: from }));
  while (asking.length > 0) {
    asking.sort((a, b) => a.t - b.t || a.i - b.i);
    const next = asking.shift()!;
    at(next.t);
    const turn = runs[next.i]!.admission();
    if (!turn) released[next.i] = next.t;
    else if ('holdMs' in turn) asking.push({ i: next.i, t: next.t + turn.holdMs });
    else throw new Error(`refused: ${turn.refuse}`);
  }
  return released;
};

describe('the herd line', () => {
  it('a herd told to come back at the same time goes back in order, slowly at first, then faster', () => {
    const { policy, at } = setup();
    const runs = Array.from({ length: 12 }, () => policy.begin({ method: 'GET', url: URL_A }));
    at(0);
    for (const run of runs)
      expect(decided(decideOn(run, limited))).toMatchObject({ retry: true, delayMs: 1000 });
    // Each asks when its wait is over (all at 1 s); the line releases them one after the other.
    const released = releaseTimes(runs, at, 1000);
    expect(released[0]).toBe(1000);
    for (let i = 1; i < released.length; i++) expect(released[i]).toBeGreaterThan(released[i - 1]!);
    // 4 a second at first, doubling every half second: the gaps shrink.
    expect(released[1]! - released[0]!).toBeCloseTo(250, -1);
    expect(released[11]! - released[10]!).toBeLessThan(released[1]! - released[0]!);
    expect(released[11]).toBeLessThan(3000);
  });

  it('holds no first attempt, and no retry of another origin or of a 503', () => {
    const { policy, at } = setup();
    at(0);
    for (let i = 0; i < 5; i++) decided(decideOn(policy.begin({ method: 'GET', url: URL_A }), limited));
    expect(policy.begin({ method: 'GET', url: URL_A }).admission()).toBeUndefined();
    const other = policy.begin({ method: 'GET', url: 'https://other.example.com/x' });
    decided(decideOn(other, limited));
    at(1000);
    expect(other.admission()).toBeUndefined();
    const busy = policy.begin({ method: 'GET', url: URL_A });
    at(0);
    decided(decideOn(busy, { status: 503, headers: headers({ 'retry-after': '1' }) }));
    at(1000);
    expect(busy.admission()).toBeUndefined();
  });

  it('a retry it let go that is refused again cuts the pace: the tickets after it wait longer', () => {
    const paceAfter = (refusedAgain: boolean): number => {
      const { policy, at } = setup();
      const runs = Array.from({ length: 10 }, () => policy.begin({ method: 'GET', url: URL_A }));
      at(0);
      for (const run of runs) decided(decideOn(run, limited));
      const [, second] = releaseTimes(runs.slice(0, 2), at, 1000);
      at(second!);
      if (refusedAgain) decided(decideOn(runs[1]!, limited));
      else decided(decideOn(runs[1]!, { status: 200 }));
      return releaseTimes([runs[2]!], at, second!)[0]! - second!;
    };
    // Refused again, the line is held for its Retry-After too.
    expect(paceAfter(true)).toBeGreaterThanOrEqual(1000);
    expect(paceAfter(false)).toBeLessThan(300);
  });

  it('never makes a retry wait past its deadline or retryAfter.maxMs: it goes when it asks', () => {
    const { policy, at } = setup({ deadlineMs: 1500 });
    const runs = Array.from({ length: 20 }, () => policy.begin({ method: 'GET', url: URL_A }));
    at(0);
    for (const run of runs) decided(decideOn(run, limited));
    at(1000);
    const last = runs.at(-1)!;
    expect(last.admission()).toBeUndefined();

    const short = setup({ retryAfter: { maxMs: 1300 } });
    const herd = Array.from({ length: 20 }, () => short.policy.begin({ method: 'GET', url: URL_A }));
    short.at(0);
    for (const run of herd) decided(decideOn(run, limited));
    short.at(1000);
    expect(herd.at(-1)!.admission()).toBeUndefined();
    expect(herd[1]!.admission()).toMatchObject({ holdMs: expect.any(Number) });
  });

  it('herd: false, and a pacer, leave each 429 to its own time', () => {
    expect(setup({ herd: false }).policy.options.feature.herd).toBeUndefined();
    const paced = setup({ pacer: createPacer() }).policy.options;
    expect(paced.features).toContain(paced.feature.pacer);
    expect(paced.features).not.toContain(paced.feature.herd);
    const { policy, at } = setup({ herd: false });
    const runs = Array.from({ length: 5 }, () => policy.begin({ method: 'GET', url: URL_A }));
    at(0);
    for (const run of runs) decided(decideOn(run, limited));
    at(1000);
    for (const run of runs) expect(run.admission()).toBeUndefined();
  });

  it('reads no answer of a request on its way to a success', () => {
    const { policy } = setup();
    expect(policy.options.observing).toBe(false);
    expect(policy.options.admitting).toHaveLength(1);
    // Nor is it asked about a first attempt: it holds retries only.
    expect(policy.options.admittingFirst).toHaveLength(0);
    const run = policy.begin({ method: 'GET', url: URL_A });
    expect(settleOn(run, 200)).toMatchObject({ retry: false, reason: 'success' });
  });

  it('is a policy’s option, a boolean', () => {
    expect(() => createRetryPolicy({ herd: 'yes' as never })).toThrow(/"herd" must be a boolean/);
    expect(() => createRetryPolicy({ routes: [{ match: '/x', herd: false } as never] })).toThrow(
      /routes\[0\]\.herd/,
    );
    const policy = createRetryPolicy();
    expect(() => policy.begin({ method: 'GET', url: URL_A }, { herd: false } as never)).toThrow(
      /jitterbug\.herd/,
    );
  });
});
