import { type BackoffStrategyName, createRetryPolicy, seededRandom } from '@jitterbug/core';
import { backoffStrategies } from '@jitterbug/core/adapter';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decide, UNREAD_429_MS } from '../src/decide.ts';
import { decideOn } from './decisions.ts';
import { decided, headers, outcome } from './helpers.ts';

const NOW = 1_700_000_000_000;
const headerValueArb = fc.oneof(
  fc.string(),
  fc.stringMatching(/^\d{1,30}(\.\d{1,3})?$/),
  fc.integer({ min: -1e6, max: 4e9 }).map(String),
  fc.double().map(String),
  fc.integer({ min: -1e11, max: 1e11 }).map((d) => new Date(NOW + d).toUTCString()),
);
const optionsArb = fc.record({
  strategy: fc.constantFrom(...(Object.keys(backoffStrategies) as BackoffStrategyName[])),
  baseMs: fc.integer({ min: 0, max: 10_000 }),
  extraCap: fc.integer({ min: 0, max: 100_000 }),
  maxMs: fc.integer({ min: 0, max: 200_000 }),
  whenLonger: fc.constantFrom('give-up' as const, 'cap' as const),
  jitterRatio: fc.double({ min: 0, max: 1, noNaN: true }),
  seed: fc.integer(),
});

describe('decision properties', () => {
  it('the delay is always finite, >= 0, <= capMs (backoff; an unread 429 waits its floor, within retryAfter.maxMs) or <= retryAfter.maxMs (server delays)', () => {
    fc.assert(
      fc.property(
        optionsArb,
        fc.dictionary(fc.constantFrom('Retry-After', 'RateLimit-Reset', 'X-RateLimit-Reset'), headerValueArb),
        fc.constantFrom(408, 429, 500, 502, 503, 504),
        fc.integer({ min: 0, max: 5000 }),
        fc.option(fc.double({ min: 0, max: 1e9, noNaN: true }), { nil: undefined }),
        (o, values, status, attempt, prevMs) => {
          const options = createRetryPolicy({
            maxAttempts: 1000,
            backoff: { strategy: o.strategy, baseMs: o.baseMs, capMs: o.baseMs + o.extraCap },
            retryAfter: { maxMs: o.maxMs, whenLonger: o.whenLonger, jitterRatio: o.jitterRatio },
            random: seededRandom(o.seed),
            budget: false,
          }).options;
          const d = decide(
            outcome({
              status,
              responseHeaders: headers(values),
              nowMs: NOW,
              backoffState: { attempt, prevMs },
            }),
            options,
          );
          if (!d.retry) {
            expect(d.reason).toBe('retry-after-too-long');
            expect(d.refusedDelayMs).toBeGreaterThan(o.maxMs);
            return;
          }
          expect(Number.isFinite(d.delayMs)).toBe(true);
          expect(d.delayMs).toBeGreaterThanOrEqual(0);
          const cap = o.baseMs + o.extraCap;
          if (d.delaySource !== 'backoff') expect(d.delayMs).toBeLessThanOrEqual(o.maxMs);
          else if (status === 429 && d.serverDelayUnread) {
            // A 429 that gave no readable delay waits at least UNREAD_429_MS, within retryAfter.maxMs.
            expect(d.delayMs).toBeLessThanOrEqual(Math.max(cap, o.maxMs));
            expect(d.delayMs).toBeGreaterThanOrEqual(Math.min(o.maxMs, UNREAD_429_MS));
          } else expect(d.delayMs).toBeLessThanOrEqual(cap);
        },
      ),
    );
  });

  it('a run with the same seed makes the same decisions', () => {
    fc.assert(
      fc.property(
        fc.integer(),
        fc.constantFrom(...(Object.keys(backoffStrategies) as BackoffStrategyName[])),
        (seed, strategy) => {
          const delays = (): number[] => {
            const policy = createRetryPolicy({
              random: seededRandom(seed),
              backoff: { strategy },
              maxAttempts: 6,
              budget: false,
            });
            const run = policy.begin({ method: 'GET', url: 'https://api.example.com/' });
            const out: number[] = [];
            for (;;) {
              const d = decided(decideOn(run, { status: 503 }));
              if (!d.retry) return out;
              out.push(d.delayMs);
            }
          };
          const first = delays();
          expect(first).toHaveLength(5);
          expect(delays()).toEqual(first);
        },
      ),
    );
  });
});
