import { createRetryBudget } from '@jitterbug/core';
import { BUDGET_LEASE, createMemoryStore, leaseBudget } from '@jitterbug/core/store';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

const step = (tokens: number | undefined, args: readonly number[]) => {
  const { state, result } = BUDGET_LEASE.apply(tokens === undefined ? undefined : [tokens], args, 0);
  return { tokens: state![0]!, granted: result[0]!, reported: result[1]! };
};

describe('budget.lease', () => {
  it('a fresh bucket is full; garbage reads as a fresh bucket', () => {
    expect(step(undefined, [0, 0, 10, 1000])).toEqual({ tokens: 10, granted: 0, reported: 10 });
    expect(BUDGET_LEASE.apply([1, 2], [0, 3, 10, 1000], 0).result).toEqual([3, 7]);
  });

  it('grants whole tokens, at most those wanted and those held, and keeps the bucket within [0, burst]', () => {
    fc.assert(
      fc.property(
        fc.option(fc.double({ min: -5, max: 60, noNaN: true }), { nil: undefined }),
        fc.double({ min: 0, max: 30, noNaN: true }),
        fc.integer({ min: 0, max: 30 }),
        fc.integer({ min: 1, max: 50 }),
        (tokens, deposit, want, burst) => {
          const r = step(tokens, [deposit, want, burst, 1000]);
          const filled = Math.min(burst, Math.max(0, tokens ?? burst) + deposit);
          expect(Number.isInteger(r.granted)).toBe(true);
          expect(r.granted).toBeGreaterThanOrEqual(0);
          expect(r.granted).toBeLessThanOrEqual(want);
          expect(r.granted).toBeLessThanOrEqual(filled + 1e-9);
          expect(r.tokens).toBeGreaterThanOrEqual(0);
          expect(r.tokens).toBeLessThanOrEqual(burst);
          expect(r.tokens).toBe(r.reported);
          // Nothing is lost but what the cap drops: what is left and what was granted make what was there.
          expect(r.tokens + r.granted).toBeCloseTo(Math.max(filled, r.granted), 9);
          // It grants all it can: fewer than wanted only when less than one more token is left.
          if (r.granted < want) expect(r.tokens).toBeLessThan(1 - 1e-9);
        },
      ),
    );
  });

  it('leasing one token per retry and depositing each request at once is the local budget, exactly', () => {
    fc.assert(
      fc.property(
        fc.array(fc.boolean(), { maxLength: 300 }),
        fc.constantFrom(0.1, 0.2, 0.5, 1 / 3),
        fc.integer({ min: 1, max: 20 }),
        (events, ratio, burst) => {
          const local = createRetryBudget({ ratio, burst });
          let shared: number | undefined;
          for (const isRetry of events) {
            const r = step(shared, isRetry ? [0, 1, burst, 1000] : [ratio, 0, burst, 1000]);
            shared = r.tokens;
            if (isRetry) expect(r.granted === 1).toBe(local.tryWithdraw());
            else local.deposit();
            expect(shared).toBe(local.tokens);
          }
        },
      ),
    );
  });

  it("bounds a fleet's retries by burst + what its processes deposited, however they lease and batch", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            process: fc.integer({ min: 0, max: 3 }),
            requests: fc.integer({ min: 0, max: 30 }),
            want: fc.integer({ min: 0, max: 5 }),
          }),
          { maxLength: 100 },
        ),
        fc.integer({ min: 1, max: 20 }),
        async (calls, burst) => {
          const store = createMemoryStore({ now: () => 0 });
          const ratio = 0.1;
          let granted = 0;
          let deposited = 0;
          for (const call of calls) {
            const deposit = ratio * call.requests;
            deposited += deposit;
            const reply = await leaseBudget(store, `fleet`, {
              deposit,
              want: call.want,
              burst,
              ttlMs: 60_000,
            });
            if (!reply.ok) throw new Error(reply.failure);
            granted += reply.value.granted;
          }
          expect(granted).toBeLessThanOrEqual(burst + deposited + 1e-6);
        },
      ),
    );
  });

  it('an idle bucket is forgotten after its ttl, and is full again', async () => {
    let now = 1_000;
    const store = createMemoryStore({ now: () => now });
    const lease = (want: number) => leaseBudget(store, 'o', { deposit: 0, want, burst: 5, ttlMs: 10_000 });
    expect(await lease(5)).toEqual({ ok: true, value: { granted: 5, tokens: 0 }, atMs: 1_000 });
    now += 9_999;
    expect(await lease(1)).toMatchObject({ value: { granted: 0, tokens: 0 } });
    now += 10_000;
    expect(await lease(1)).toMatchObject({ value: { granted: 1, tokens: 4 } });
  });
});
