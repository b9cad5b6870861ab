import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { askedDelay as serverDelay } from '../src/asked-delay.ts';
import {
  MAX_SERVER_DELAY_MS,
  parseDelayMs,
  parseHttpDate,
  parseRateLimitReset,
  parseRetryAfter,
} from '../src/retry-after.ts';

const isSaneDelay = (ms: number | undefined): boolean =>
  ms === undefined || (Number.isFinite(ms) && ms >= 0 && ms <= MAX_SERVER_DELAY_MS);

/** Strings that look like header values: garbage, numbers, dates, and mixes. */
const headerValueArb = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.stringMatching(/^\s*-?\d{0,400}(\.\d{0,5})?\s*$/),
  fc.double().map(String),
  fc.bigInt().map(String),
  fc.date({ noInvalidDate: true }).map((d) => d.toUTCString()),
  fc.date({ noInvalidDate: true }).map((d) => d.toString()),
  fc
    .tuple(
      fc.constantFrom('Mon', 'Sunday', 'Xyz'),
      fc.integer({ min: -5, max: 99 }),
      fc.integer({ min: -1, max: 99999 }),
    )
    .map(([d, day, year]) => `${d}, ${String(day).padStart(2, '0')} Jan ${year} 25:61:61 GMT`),
);
const nowArb = fc.oneof(
  fc.integer({ min: 0, max: 4_102_444_800_000 }),
  fc.double(), // NaN, ±Infinity, negatives: a broken clock must not break the guarantee
);

describe('header parsing properties', () => {
  it('parseRetryAfter never returns NaN, a negative or a non-finite delay', () => {
    fc.assert(
      fc.property(headerValueArb, nowArb, (value, now) => {
        expect(isSaneDelay(parseRetryAfter(value, now))).toBe(true);
      }),
    );
  });

  it('parseRateLimitReset never returns NaN, a negative or a non-finite delay', () => {
    fc.assert(
      fc.property(headerValueArb, nowArb, (value, now) => {
        expect(isSaneDelay(parseRateLimitReset(value, now))).toBe(true);
      }),
    );
  });

  it('parseDelayMs never returns NaN, a negative or a non-finite delay, and reads whole milliseconds exactly', () => {
    fc.assert(
      fc.property(headerValueArb, (value) => {
        expect(isSaneDelay(parseDelayMs(value))).toBe(true);
      }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 40 }), (ms) => {
        expect(parseDelayMs(` ${ms} `)).toBe(ms);
      }),
    );
  });

  it("askedDelay (the one reader of an answer's delay) never returns NaN, a negative or a non-finite delay", () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.constantFrom(
            'retry-after-ms',
            'x-ms-retry-after-ms',
            'retry-after',
            'ratelimit-reset',
            'x-ratelimit-reset',
          ),
          headerValueArb,
        ),
        nowArb,
        (values, now) => {
          const result = serverDelay((name) => values[name], now);
          expect(isSaneDelay(result?.ms)).toBe(true);
        },
      ),
    );
  });

  it('new Date(x).toUTCString() round-trips through parseHttpDate and parseRetryAfter', () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date('0000-01-01T00:00:00Z'),
          max: new Date('9999-12-31T23:59:59Z'),
          noInvalidDate: true,
        }),
        fc.integer({ min: 0, max: 4_102_444_800_000 }),
        (date, now) => {
          const seconds = Math.floor(date.getTime() / 1000) * 1000;
          expect(parseHttpDate(date.toUTCString())).toBe(seconds);
          expect(parseRetryAfter(date.toUTCString(), now)).toBe(Math.max(0, seconds - now));
        },
      ),
    );
  });

  it('delta-seconds are read exactly', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), (seconds) => {
        expect(parseRetryAfter(String(seconds), 0)).toBe(seconds * 1000);
        expect(parseRateLimitReset(String(seconds), 0)).toBe(seconds * 1000);
      }),
    );
  });
});
