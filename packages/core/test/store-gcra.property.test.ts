import { createMemoryStore, GCRA_LIMIT, GCRA_TAKE, limitPace, takePace } from '@jitterbug/core/store';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

type State = readonly number[] | undefined;

/** A `take` at `now` on `state`: its result by name, and the state after it. */
const take = (
  state: State,
  now: number,
  quantity: number,
  intervalMs: number,
  burst: number,
  maxWaitMs = 0,
) => {
  const step = GCRA_TAKE.apply(state, [quantity, intervalMs, burst, maxWaitMs], now);
  const [allowed, waitMs = 0, remaining, resetAfterMs, interval] = step.result as number[];
  return { allowed: allowed === 1, waitMs, remaining, resetAfterMs, interval, state: step.state ?? state };
};

describe('gcra.take is redis-cell', () => {
  // redis-cell's own test table (src/cell/mod.rs, `it_rate_limits`): a limit of 5 (burst 4) at 1 a
  // second; each row at `atMs` after the start takes `quantity` and expects remaining, reset_after,
  // retry_after (−1: none) and limited. Its times are whole seconds of a 1 s interval.
  const start = 1_700_000_000_000;
  const rows: readonly (readonly [number, number, number, number, number, boolean])[] = [
    [0, 6, 5, 0, -1, true],
    [0, 1, 4, 1000, -1, false],
    [0, 1, 3, 2000, -1, false],
    [0, 1, 2, 3000, -1, false],
    [0, 1, 1, 4000, -1, false],
    [0, 1, 0, 5000, -1, false],
    [0, 1, 0, 5000, 1000, true],
    [3000, 1, 2, 3000, -1, false],
    [3100, 1, 1, 3900, -1, false],
    [4000, 1, 1, 4000, -1, false],
    [8000, 1, 4, 1000, -1, false],
    [9500, 1, 4, 1000, -1, false],
    [9500, 0, 4, 1000, -1, false],
    [9500, 2, 2, 3000, -1, false],
    [9500, 5, 2, 3000, 3000, true],
  ];
  it('answers its table row for row', () => {
    let state: State;
    for (const [atMs, quantity, remaining, resetAfterMs, retryAfterMs, limited] of rows) {
      const r = take(state, start + atMs, quantity, 1000, 4);
      expect({
        atMs,
        quantity,
        remaining: r.remaining,
        resetAfterMs: r.resetAfterMs,
        limited: !r.allowed,
      }).toEqual({
        atMs,
        quantity,
        remaining,
        resetAfterMs,
        limited,
      });
      expect(r.allowed ? -1 : r.waitMs).toBe(retryAfterMs);
      state = r.state;
    }
  });
});

/** Times in whole ms, non-decreasing, from a start. */
const timesArb = fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 1, maxLength: 200 }).map((gaps) => {
  let t = 1_700_000_000_000;
  return gaps.map((g) => {
    t += g;
    return t;
  });
});

/** At most b + 1 + W/T of `times` fall in any window of W ms. */
const withinRate = (times: readonly number[], intervalMs: number, burst: number): void => {
  const sorted = [...times].sort((a, b) => a - b);
  for (let i = 0; i < sorted.length; i++)
    for (let j = i; j < sorted.length; j++)
      expect(j - i + 1).toBeLessThanOrEqual(burst + 1 + (sorted[j]! - sorted[i]!) / intervalMs + 1e-9);
};

describe('gcra.take', () => {
  it('allows at most burst + 1 + W/T requests in any window of W ms', () => {
    fc.assert(
      fc.property(
        timesArb,
        fc.integer({ min: 1, max: 500 }),
        fc.integer({ min: 0, max: 5 }),
        (times, T, b) => {
          let state: State;
          const allowed: number[] = [];
          for (const t of times) {
            const r = take(state, t, 1, T, b);
            state = r.state;
            if (r.allowed) allowed.push(t);
          }
          withinRate(allowed, T, b);
        },
      ),
    );
  });

  it('books slots that keep the same bound, each at most maxWaitMs away', () => {
    fc.assert(
      fc.property(
        timesArb,
        fc.integer({ min: 1, max: 500 }),
        fc.integer({ min: 0, max: 5 }),
        fc.integer({ min: 0, max: 3000 }),
        (times, T, b, maxWait) => {
          let state: State;
          const slots: number[] = [];
          for (const t of times) {
            const r = take(state, t, 1, T, b, maxWait);
            state = r.state;
            if (r.allowed) {
              expect(r.waitMs).toBeLessThanOrEqual(maxWait);
              slots.push(t + r.waitMs);
            } else expect(r.waitMs).toBeGreaterThan(maxWait);
          }
          withinRate(slots, T, b);
        },
      ),
    );
  });

  it('a request nothing paces is allowed and writes nothing', () => {
    const r = take(undefined, 1_000, 1, 0, 3);
    expect(r).toMatchObject({ allowed: true, waitMs: 0, remaining: -1, interval: 0 });
    expect(GCRA_TAKE.apply(undefined, [1, 0, 3, 0], 1_000).state).toBeUndefined();
  });

  it('a quantity above the burst is never allowed (wait −1)', () => {
    expect(take(undefined, 0, 5, 100, 3, 1e9)).toMatchObject({ allowed: false, waitMs: -1 });
  });
});

describe('gcra.limit', () => {
  it('holds: nothing before the hold ends, then one at a time at the rate (no burst)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 1, max: 1_000 }),
        fc.integer({ min: 0, max: 5 }),
        fc.integer({ min: 0, max: 20_000 }),
        (holdMs, T, b, asks) => {
          const now = 1_700_000_000_000;
          const held = GCRA_LIMIT.apply(undefined, [holdMs, T, b, 60_000], now);
          expect(held.result).toEqual([holdMs, T]);
          let state: State = held.state;
          const early = now + (asks % holdMs);
          const before = take(state, early, 1, 0, b);
          expect(before.allowed).toBe(false);
          expect(before.waitMs).toBeCloseTo(now + holdMs - early, 6);
          const first = take(state, now + holdMs, 1, 0, b);
          expect(first.allowed).toBe(true);
          state = first.state;
          expect(take(state, now + holdMs, 1, 0, b)).toMatchObject({ allowed: false, waitMs: T });
          expect(take(state, now + holdMs + T, 1, 0, b).allowed).toBe(true);
        },
      ),
    );
  });

  it('a hold without a rate paces only until it ends', () => {
    const held = GCRA_LIMIT.apply(undefined, [2_000, 0, 3, 60_000], 10_000);
    expect(held.result).toEqual([2_000, 0]);
    expect(take(held.state, 11_000, 1, 0, 3)).toMatchObject({ allowed: false, waitMs: 1_000 });
    const after = take(held.state, 12_000, 1, 0, 3);
    expect(after).toMatchObject({ allowed: true, waitMs: 0 });
    expect(take(held.state, 12_000, 1, 0, 3).allowed).toBe(true);
  });

  it('remembers a learned rate for rememberMs; the slower of it and the caller’s wins', () => {
    const learned = GCRA_LIMIT.apply(undefined, [0, 200, 0, 5_000], 0).state;
    expect(take(learned, 100, 1, 0, 0)).toMatchObject({ allowed: true, interval: 200 });
    expect(take(learned, 100, 1, 500, 0)).toMatchObject({ interval: 500 });
    expect(take(learned, 5_000, 1, 0, 0)).toMatchObject({ interval: 0, remaining: -1 });
  });

  it('a later, shorter hold does not shorten an earlier, longer one', () => {
    const long = GCRA_LIMIT.apply(undefined, [5_000, 0, 0, 0], 0).state;
    const short = GCRA_LIMIT.apply(long, [1_000, 0, 0, 0], 100);
    expect(short.result).toEqual([4_900, 0]);
  });
});

describe('the typed calls', () => {
  it('take and limit through a store, on its clock', async () => {
    let now = 50_000;
    const store = createMemoryStore({ now: () => now });
    expect(
      await limitPace(store, 'o', { holdMs: 1_000, intervalMs: 100, burst: 1, rememberMs: 10_000 }),
    ).toEqual({
      ok: true,
      value: { holdLeftMs: 1_000, intervalMs: 100 },
      atMs: 50_000,
    });
    const pace = { quantity: 1, intervalMs: 0, burst: 1, maxWaitMs: 0 };
    expect(await takePace(store, 'o', pace)).toMatchObject({
      ok: true,
      value: { allowed: false, waitMs: 1_000 },
    });
    now += 1_000;
    expect(await takePace(store, 'o', pace)).toMatchObject({ value: { allowed: true, intervalMs: 100 } });
    expect(await takePace(store, 'o', pace)).toMatchObject({ value: { allowed: false, waitMs: 100 } });
  });
});
