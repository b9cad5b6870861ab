/**
 * Hostile server-given delays: `Retry-After`, `RateLimit-Reset` and `X-RateLimit-Reset` with
 * garbage, negative, fractional, huge, far-future and past values, fuzzed with fast-check through
 * the parsers and through the decision a run makes. Whatever a server sends, a delay is finite,
 * `>= 0` and never above the configured maximum (`retryAfter.maxMs` for a server delay,
 * `backoff.capMs` for a backoff).
 */
import { createRetryPolicy, type RetryEvent } from '@jitterbug/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { askedDelay as serverDelay } from '../../packages/core/src/asked-delay.ts';
import {
  MAX_SERVER_DELAY_MS,
  parseHttpDate,
  parseRateLimitReset,
  parseRetryAfter,
} from '../../packages/core/src/retry-after.ts';
import { decideOn } from '../../packages/core/test/decisions.ts';
import { decided } from '../support/decided.ts';

const NOW_MIN = -8.64e15;
const NOW_MAX = 8.64e15;
const RUNS = 5_000;

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const LONG_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** An HTTP-date-shaped string with any numbers in it (valid, out of range, far future, far past). */
const dateLike = fc
  .record({
    day: fc.integer({ min: 0, max: 99 }),
    month: fc.constantFrom(...MONTHS, 'Foo'),
    year: fc.oneof(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 1970, max: 2100 })),
    h: fc.integer({ min: 0, max: 99 }),
    m: fc.integer({ min: 0, max: 99 }),
    s: fc.integer({ min: 0, max: 99 }),
    weekday: fc.integer({ min: 0, max: 6 }),
    form: fc.constantFrom('imf', 'rfc850', 'asctime'),
  })
  .map(({ day, month, year, h, m, s, weekday, form }) => {
    const time = `${pad(h)}:${pad(m)}:${pad(s)}`;
    if (form === 'imf') return `${DAYS[weekday]}, ${pad(day)} ${month} ${pad(year, 4)} ${time} GMT`;
    if (form === 'rfc850')
      return `${LONG_DAYS[weekday]}, ${pad(day)}-${month}-${pad(year % 100)} ${time} GMT`;
    return `${DAYS[weekday]} ${month} ${String(day).padStart(2, ' ')} ${time} ${year}`;
  });

/** Every kind of value a hostile or broken server might put in a delay header. */
const hostileValue = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary-ascii' }),
  fc.integer().map(String),
  fc.integer({ min: -1e6, max: -1 }).map(String),
  fc.double().map(String), // NaN, Infinity, -0, 1e+308, 5e-324 …
  fc.double({ min: 0, max: 1e6, noNaN: true }).map((n) => n.toFixed(3)),
  fc.bigInt({ min: 0n, max: 10n ** 400n }).map(String), // huge digit strings
  fc.integer({ min: 0, max: 3000 }).map((n) => '9'.repeat(n)),
  fc.integer({ min: 0, max: 2 ** 31 }).map((n) => String(1e9 + n)), // epoch seconds, past and future
  fc.integer({ min: 0, max: 2 ** 52 }).map((n) => String(1e12 + n)), // epoch ms
  fc.date({ noInvalidDate: true }).map((d) => d.toUTCString()),
  fc.date().map((d) => String(d)),
  dateLike,
  fc.constantFrom('', ' ', '-0', '+5', '5e3', '0x10', '1_000', '1,5', '.5', '5.', 'Infinity', 'NaN', '١٢'),
  fc
    .tuple(fc.constantFrom(' ', '\t', ''), fc.nat(1000), fc.constantFrom(' ', '\t', ''))
    .map(([a, n, b]) => `${a}${n}${b}`),
);

const headersArb = fc.record(
  {
    'retry-after': hostileValue,
    'ratelimit-reset': hostileValue,
    'x-ratelimit-reset': hostileValue,
  },
  { requiredKeys: [] },
);

const getter =
  (headers: Record<string, string>) =>
  (name: string): string | undefined =>
    headers[name.toLowerCase()];

const isDelay = (ms: unknown, max: number): boolean =>
  typeof ms === 'number' && Number.isFinite(ms) && ms >= 0 && ms <= max;

describe('hostile delay headers', () => {
  it('the parsers return undefined or a finite delay in [0, MAX_SERVER_DELAY_MS]', () => {
    fc.assert(
      fc.property(hostileValue, fc.double({ min: NOW_MIN, max: NOW_MAX, noNaN: true }), (value, now) => {
        for (const ms of [parseRetryAfter(value, now), parseRateLimitReset(value, now)]) {
          if (ms !== undefined) expect(isDelay(ms, MAX_SERVER_DELAY_MS)).toBe(true);
        }
        const date = parseHttpDate(value);
        if (date !== undefined) expect(Number.isFinite(date)).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it("askedDelay (the one reader of an answer's delay) over all three headers: undefined or finite, >= 0", () => {
    fc.assert(
      fc.property(headersArb, fc.double({ min: NOW_MIN, max: NOW_MAX, noNaN: true }), (headers, now) => {
        const delay = serverDelay(getter(headers), now);
        if (delay !== undefined) expect(isDelay(delay.ms, MAX_SERVER_DELAY_MS)).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('the decision: a retry waits a finite delay in [0, maximum]; a refused one is finite too', () => {
    const options = fc.record({
      maxMs: fc.oneof(
        fc.constant(0),
        fc.integer({ min: 0, max: 120_000 }),
        fc.double({ min: 0, max: 1e300, noNaN: true }),
      ),
      whenLonger: fc.constantFrom('give-up' as const, 'cap' as const),
      jitterRatio: fc.double({ min: 0, max: 1, noNaN: true }),
      baseMs: fc.integer({ min: 0, max: 10_000 }),
      extraCapMs: fc.integer({ min: 0, max: 100_000 }),
      // A broken injected random source too: NaN, negative, 1 or more.
      random: fc.oneof(
        { weight: 9, arbitrary: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }) },
        { weight: 1, arbitrary: fc.constantFrom(Number.NaN, -1, -1e9, 1, 2, Number.POSITIVE_INFINITY) },
      ),
      now: fc.double({ min: NOW_MIN, max: NOW_MAX, noNaN: true }),
      status: fc.constantFrom(429, 503),
      retries: fc.integer({ min: 0, max: 40 }),
    });
    const seen = new Set<string>();
    fc.assert(
      fc.property(headersArb, options, (headers, o) => {
        const events: RetryEvent[] = [];
        const capMs = o.baseMs + o.extraCapMs;
        const policy = createRetryPolicy({
          maxAttempts: 1000,
          budget: false,
          retryAfter: { maxMs: o.maxMs, whenLonger: o.whenLonger, jitterRatio: o.jitterRatio },
          backoff: { strategy: 'full', baseMs: o.baseMs, capMs },
          random: () => o.random,
          now: () => o.now,
          onRetry: (e) => events.push(e),
        });
        const run = policy.begin({ method: 'GET', url: 'http://127.0.0.1/hostile' });
        // Earlier plain 503s advance the backoff state, as a long-running request would have.
        for (let i = 0; i < o.retries; i++) decideOn(run, { status: 503 });
        const decision = decided(decideOn(run, { status: o.status, headers: getter(headers) }));
        seen.add(decision.retry ? decision.delaySource : decision.reason);
        if (decision.retry) {
          // A 429 with no delay it could read waits at least a second (jitter ratio <= 1), within maxMs.
          const unread429 = decision.serverDelayUnread && o.status === 429 ? Math.min(o.maxMs, 2 * 1000) : 0;
          const max = decision.delaySource === 'backoff' ? Math.max(capMs, unread429) : o.maxMs;
          expect(isDelay(decision.delayMs, max)).toBe(true);
          expect(events.at(-1)?.delayMs).toBe(decision.delayMs);
        } else {
          expect(decision.reason).toBe('retry-after-too-long');
          expect(o.whenLonger).toBe('give-up');
          expect(isDelay(decision.refusedDelayMs, MAX_SERVER_DELAY_MS)).toBe(true);
          expect(decision.refusedDelayMs!).toBeGreaterThan(o.maxMs);
        }
        for (const e of events) expect(Number.isFinite(e.delayMs) && e.delayMs >= 0).toBe(true);
      }),
      { numRuns: RUNS },
    );
    // The cases reached every branch: each header won sometimes, and some delays were refused.
    expect([...seen].sort()).toEqual(
      ['backoff', 'ratelimit-reset', 'retry-after', 'retry-after-too-long', 'x-ratelimit-reset'].sort(),
    );
  });

  it('with retryAfter: false the headers are ignored and the backoff stays within capMs', () => {
    fc.assert(
      fc.property(
        headersArb,
        fc.integer({ min: 0, max: 60_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (headers, capMs, r) => {
          const policy = createRetryPolicy({
            budget: false,
            retryAfter: false,
            backoff: { strategy: 'decorrelated', baseMs: 0, capMs },
            random: () => r,
          });
          const decision = decided(
            decideOn(policy.begin({ method: 'PUT', url: 'http://127.0.0.1/x' }), {
              status: 503,
              headers: getter(headers),
            }),
          );
          expect(decision.retry).toBe(true);
          if (decision.retry) {
            expect(decision.delaySource).toBe('backoff');
            expect(isDelay(decision.delayMs, capMs)).toBe(true);
          }
        },
      ),
      { numRuns: 2_000 },
    );
  });
});
