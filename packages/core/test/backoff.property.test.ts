import { decorrelated, equal, exponential, full, seededRandom } from '@jitterbug/core';
import { backoffStrategies } from '@jitterbug/core/adapter';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exponentialEnvelope } from '../src/backoff.ts';

/** baseMs <= capMs, including base 0 and huge caps. */
const paramsArb = fc
  .tuple(
    fc.oneof(fc.constant(0), fc.double({ min: 0, max: 1e6, noNaN: true })),
    fc.double({ min: 0, max: 1e9, noNaN: true }),
  )
  .map(([baseMs, extra]) => ({ baseMs, capMs: baseMs + extra }));
const attemptArb = fc.oneof(
  fc.integer({ min: 0, max: 64 }),
  fc.integer({ min: 0, max: 100_000 }),
  fc.constant(Number.MAX_SAFE_INTEGER),
);
/** A random source value in [0, 1). */
const unitArb = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });

describe('strategy properties', () => {
  it('every strategy returns a finite delay in [0, cap] for any attempt', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...Object.values(backoffStrategies)),
        paramsArb,
        attemptArb,
        unitArb,
        (strategy, params, attempt, r) => {
          const [delay] = strategy({ attempt, prevMs: params.capMs }, params, () => r);
          expect(Number.isFinite(delay)).toBe(true);
          expect(delay).toBeGreaterThanOrEqual(0);
          expect(delay).toBeLessThanOrEqual(params.capMs);
        },
      ),
    );
  });

  it('full <= envelope and equal >= envelope / 2', () => {
    fc.assert(
      fc.property(paramsArb, attemptArb, unitArb, (params, attempt, r) => {
        const envelope = exponentialEnvelope(attempt, params);
        expect(full({ attempt }, params, () => r)[0]).toBeLessThanOrEqual(envelope);
        const [eq] = equal({ attempt }, params, () => r);
        expect(eq).toBeGreaterThanOrEqual(envelope / 2);
        expect(eq).toBeLessThanOrEqual(envelope);
      }),
    );
  });

  it('the envelope is min(cap, base * 2^attempt) and monotone in the attempt', () => {
    fc.assert(
      fc.property(paramsArb, attemptArb, attemptArb, (params, a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        expect(exponentialEnvelope(lo, params)).toBeLessThanOrEqual(exponentialEnvelope(hi, params));
        const expected = params.baseMs === 0 ? 0 : Math.min(params.capMs, params.baseMs * 2 ** lo);
        expect(exponentialEnvelope(lo, params)).toBe(expected);
      }),
    );
  });

  it('exponential is monotone non-decreasing in the attempt', () => {
    fc.assert(
      fc.property(paramsArb, fc.integer({ min: 0, max: 2000 }), (params, attempt) => {
        const now = exponential({ attempt }, params, Math.random)[0];
        const next = exponential({ attempt: attempt + 1 }, params, Math.random)[0];
        expect(next).toBeGreaterThanOrEqual(now);
      }),
    );
  });

  it('decorrelated stays within [base, min(cap, 3 * prev)]', () => {
    fc.assert(
      fc.property(paramsArb, fc.double({ min: 0, max: 1e9, noNaN: true }), unitArb, (params, extra, r) => {
        const prevMs = params.baseMs + extra; // prev is never below base in a run
        const [delay] = decorrelated({ attempt: 1, prevMs }, params, () => r);
        expect(delay).toBeGreaterThanOrEqual(params.baseMs);
        // One ulp of rounding slack on the upper bound.
        const upper = Math.min(params.capMs, 3 * prevMs);
        expect(delay).toBeLessThanOrEqual(upper + upper * Number.EPSILON);
      }),
    );
  });

  it('decorrelated depends on the previous delay (below the cap)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 1, max: 1000 }),
        fc.double({ min: 0.01, max: 0.99, noNaN: true }),
        (baseMs, a, b, r) => {
          fc.pre(a !== b);
          const params = { baseMs, capMs: 1e9 };
          const prevA = baseMs + a;
          const prevB = baseMs + b;
          const [da] = decorrelated({ attempt: 1, prevMs: prevA }, params, () => r);
          const [db] = decorrelated({ attempt: 1, prevMs: prevB }, params, () => r);
          expect(da).not.toBe(db);
          expect(Math.sign(da - db)).toBe(Math.sign(prevA - prevB));
        },
      ),
    );
  });

  it('a run of any strategy with the same seed gives the same delays', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...Object.values(backoffStrategies)),
        fc.integer(),
        paramsArb,
        (strategy, seed, params) => {
          const run = (): number[] => {
            const random = seededRandom(seed);
            let state = { attempt: 0 } as { attempt: number; prevMs?: number | undefined };
            const delays: number[] = [];
            for (let i = 0; i < 8; i++) {
              const [delay, next] = strategy(state, params, random);
              delays.push(delay);
              state = next;
            }
            return delays;
          };
          expect(run()).toEqual(run());
        },
      ),
    );
  });
});
