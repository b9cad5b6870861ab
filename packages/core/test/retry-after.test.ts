import { describe, expect, it } from 'vitest';
import { askedDelay as serverDelay } from '../src/asked-delay.ts';
import {
  MAX_SERVER_DELAY_MS,
  parseDelayMs,
  parseHttpDate,
  parseRateLimitReset,
  parseRetryAfter,
} from '../src/retry-after.ts';
import { headers } from './helpers.ts';

const NOW = Date.UTC(2025, 5, 1, 12, 0, 0);

describe('parseRetryAfter', () => {
  it('reads delta-seconds', () => {
    expect(parseRetryAfter('0', NOW)).toBe(0);
    expect(parseRetryAfter('120', NOW)).toBe(120_000);
    expect(parseRetryAfter('  5 ', NOW)).toBe(5000);
    expect(parseRetryAfter('1.5', NOW)).toBe(1500);
  });

  it('reads the three HTTP-date forms of RFC 9110', () => {
    const in30s = NOW + 30_000;
    expect(parseRetryAfter(new Date(in30s).toUTCString(), NOW)).toBe(30_000);
    expect(parseRetryAfter('Sunday, 01-Jun-25 12:00:30 GMT', NOW)).toBe(30_000);
    expect(parseRetryAfter('Sun Jun  1 12:00:30 2025', NOW)).toBe(30_000);
    expect(parseRetryAfter('sun, 01 jun 2025 12:00:30 gmt', NOW)).toBe(30_000);
  });

  it('a date in the past means 0', () => {
    expect(parseRetryAfter('Sun, 06 Nov 1994 08:49:37 GMT', NOW)).toBe(0);
  });

  it('returns undefined for absent or garbage values', () => {
    for (const value of [
      undefined,
      null,
      '',
      '   ',
      'soon',
      '-1',
      '+5',
      '1e3',
      '0x10',
      'NaN',
      'Infinity',
      '5 s',
      '1.',
      '.5',
    ]) {
      expect(parseRetryAfter(value, NOW)).toBeUndefined();
    }
    expect(parseRetryAfter('Sun, 32 Jun 2025 12:00:00 GMT', NOW)).toBeUndefined();
    expect(parseRetryAfter('Sun, 01 Foo 2025 12:00:00 GMT', NOW)).toBeUndefined();
    expect(parseRetryAfter('Sun, 01 Jun 2025 24:00:00 GMT', NOW)).toBeUndefined();
    expect(parseRetryAfter('Sun, 01 Jun 2025 12:00:00 PST', NOW)).toBeUndefined();
  });

  it('huge values are bounded, never Infinity', () => {
    expect(parseRetryAfter('9'.repeat(400), NOW)).toBe(MAX_SERVER_DELAY_MS);
    expect(parseRetryAfter('99999999999999999999', NOW)).toBe(MAX_SERVER_DELAY_MS);
    expect(parseRetryAfter('Fri, 31 Dec 9999 23:59:59 GMT', NOW)).toBeLessThanOrEqual(MAX_SERVER_DELAY_MS);
  });

  it('never returns NaN even with a broken clock', () => {
    expect(parseRetryAfter('Sun, 01 Jun 2025 12:00:30 GMT', Number.NaN)).toBe(0);
    expect(parseRetryAfter('Sun, 01 Jun 2025 12:00:30 GMT', Number.NEGATIVE_INFINITY)).toBe(
      MAX_SERVER_DELAY_MS,
    );
    expect(parseRetryAfter('Sun, 01 Jun 2025 12:00:30 GMT', Number.POSITIVE_INFINITY)).toBe(0);
  });

  it('defaults now to Date.now()', () => {
    const future = new Date(Date.now() + 3_600_000).toUTCString();
    const ms = parseRetryAfter(future);
    expect(ms).toBeGreaterThan(3_500_000);
    expect(ms).toBeLessThanOrEqual(3_600_000);
  });
});

describe('parseHttpDate', () => {
  it('reads a leap second (:60, which RFC 9110 allows) as the instant after :59, and keeps two-digit RFC 850 years in the right century', () => {
    expect(parseHttpDate('Tue, 30 Jun 2015 23:59:60 GMT')).toBe(Date.UTC(2015, 6, 1, 0, 0, 0));
    expect(parseRetryAfter('Tue, 30 Jun 2015 23:59:60 GMT', Date.UTC(2015, 5, 30, 23, 59, 0))).toBe(60_000);
    expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT')).toBe(Date.UTC(1994, 10, 6, 8, 49, 37));
    expect(parseHttpDate('Monday, 01-Jan-24 00:00:00 GMT')).toBe(Date.UTC(2024, 0, 1));
  });

  it('takes four-digit years below 100 as written', () => {
    const date = new Date(0);
    date.setUTCFullYear(50, 0, 1);
    expect(parseHttpDate('Sat, 01 Jan 0050 00:00:00 GMT')).toBe(date.getTime());
  });
});

describe('parseRateLimitReset', () => {
  it('reads delta-seconds', () => {
    expect(parseRateLimitReset('0', NOW)).toBe(0);
    expect(parseRateLimitReset('30', NOW)).toBe(30_000);
    expect(parseRateLimitReset('2.5', NOW)).toBe(2500);
  });

  it('reads epoch seconds (GitHub) and epoch milliseconds', () => {
    expect(parseRateLimitReset(String(NOW / 1000 + 42), NOW)).toBe(42_000);
    expect(parseRateLimitReset(String(NOW + 1234), NOW)).toBe(1234);
    expect(parseRateLimitReset(String(NOW / 1000 - 42), NOW)).toBe(0);
  });

  it('rejects garbage', () => {
    for (const value of [undefined, null, '', 'x', '-3', '1e9', 'Sun, 01 Jun 2025 12:00:30 GMT']) {
      expect(parseRateLimitReset(value, NOW)).toBeUndefined();
    }
  });

  it('bounds huge values', () => {
    expect(parseRateLimitReset('9'.repeat(400), NOW)).toBe(MAX_SERVER_DELAY_MS);
  });
});

// The one reader of an answer's delay, which the decision, the herd line and the pacers share.
describe('askedDelay', () => {
  it('prefers Retry-After, then RateLimit-Reset, then X-RateLimit-Reset; skips unparseable ones', () => {
    expect(
      serverDelay(headers({ 'Retry-After': '1', 'RateLimit-Reset': '2', 'X-RateLimit-Reset': '3' }), NOW),
    ).toEqual({
      ms: 1000,
      source: 'retry-after',
    });
    expect(serverDelay(headers({ 'Retry-After': 'x', 'RateLimit-Reset': '2' }), NOW)).toEqual({
      ms: 2000,
      source: 'ratelimit-reset',
    });
    expect(serverDelay(headers({ 'RateLimit-Reset': 'y', 'X-RateLimit-Reset': '3' }), NOW)).toEqual({
      ms: 3000,
      source: 'x-ratelimit-reset',
    });
    expect(serverDelay(headers({}), NOW)).toBeUndefined();
  });

  it('prefers the millisecond fields (retry-after-ms, then x-ms-retry-after-ms) to Retry-After', () => {
    expect(serverDelay(headers({ 'retry-after-ms': '1500', 'Retry-After': '2' }), NOW)).toEqual({
      ms: 1500,
      source: 'retry-after-ms',
    });
    expect(serverDelay(headers({ 'x-ms-retry-after-ms': '250.5', 'Retry-After': '2' }), NOW)).toEqual({
      ms: 250.5,
      source: 'x-ms-retry-after-ms',
    });
    // Garbage in a millisecond field is skipped, not trusted.
    for (const garbage of ['-1', 'soon', '', '1e3', 'Infinity']) {
      expect(serverDelay(headers({ 'retry-after-ms': garbage, 'Retry-After': '2' }), NOW)).toEqual({
        ms: 2000,
        source: 'retry-after',
      });
    }
    expect(parseDelayMs(`${'9'.repeat(400)}`)).toBe(MAX_SERVER_DELAY_MS);
  });

  it('asks for lower-case header names', () => {
    const asked: string[] = [];
    serverDelay((name) => {
      asked.push(name);
      return null;
    }, NOW);
    // The window's fields in the decision's order: the RateLimit field, then each reset with the
    // remaining count that tells whether its quota is spent (asked for only when no RateLimit parses).
    expect(asked).toEqual([
      'retry-after-ms',
      'x-ms-retry-after-ms',
      'retry-after',
      'ratelimit',
      'x-ratelimit-reset',
      'ratelimit-reset',
    ]);
  });

  it('reads a spent quota’s reset in the RateLimit field last, for a 429 that gives no other delay', () => {
    expect(serverDelay(headers({ ratelimit: '"default";r=0;t=3' }), NOW)).toEqual({
      ms: 3000,
      source: 'ratelimit',
      spent: true,
    });
    expect(serverDelay(headers({ ratelimit: '"default";r=0;t=3', 'retry-after': '1' }), NOW)).toEqual({
      ms: 1000,
      source: 'retry-after',
    });
    // A quota not spent asks for no wait.
    expect(serverDelay(headers({ ratelimit: '"default";r=4;t=3' }), NOW)).toBeUndefined();
  });
});

// The RateLimit field's spent-quota wait, as the one reader reads it (the field alone on the answer).
const parseRateLimitWait = (value: string | null | undefined): number | undefined =>
  serverDelay(headers(value == null ? {} : { ratelimit: value }), NOW)?.ms;

describe("the RateLimit field's wait", () => {
  it('the longest t of the items whose r is 0, in ms', () => {
    expect(parseRateLimitWait('"default";r=0;t=1')).toBe(1000);
    expect(parseRateLimitWait('default;r=0;t=30, "daily";r=0;t=3600')).toBe(3_600_000);
    expect(parseRateLimitWait('"burst";r=0;t=2, "daily";r=900;t=3600')).toBe(2000);
    expect(parseRateLimitWait('"default"; r=0; t=7')).toBe(7000);
  });

  it('nothing for a quota left, no t, or a field that does not parse (ignored whole)', () => {
    for (const value of [
      undefined,
      null,
      '',
      '"default";r=5;t=1',
      '"default";r=0',
      '"default";r=0;t=1.5',
      '"default";r=0;t=-1',
      '"a";r=0;t=2, bad bad',
      '"a";r=0;t=2,',
      '(a b);r=0;t=2',
      'garbage',
    ]) {
      expect(parseRateLimitWait(value), String(value)).toBeUndefined();
    }
  });
});
