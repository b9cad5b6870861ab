/**
 * The advertised quota: `RateLimit` / `RateLimit-Policy` (draft-ietf-httpapi-ratelimit-headers, the
 * structured-field form) parsed as RFC 9651 says, and `X-RateLimit-Remaining` / `X-RateLimit-Reset`.
 */

import { describe, expect, it } from 'vitest';
import { advertisedQuota, parseRateLimitPolicy } from '../src/rate-limit-fields.ts';
import { parseRateLimit } from '../src/ratelimit-field.ts';
import { headers } from './helpers.ts';

describe('RateLimit-Policy', () => {
  it('reads the draft’s examples', () => {
    expect(parseRateLimitPolicy('"default";q=100;w=10')).toEqual([
      { name: 'default', quota: 100, windowSeconds: 10 },
    ]);
    expect(parseRateLimitPolicy('"permin";q=50;w=60,"perhr";q=1000;w=3600')).toEqual([
      { name: 'permin', quota: 50, windowSeconds: 60 },
      { name: 'perhr', quota: 1000, windowSeconds: 3600 },
    ]);
    expect(parseRateLimitPolicy('"peruser";q=100;w=60;pk=:cHsdsRa894==:')).toEqual([
      { name: 'peruser', quota: 100, windowSeconds: 60 },
    ]);
    // A policy in other units than requests does not pace requests: left out.
    expect(parseRateLimitPolicy('"peruser";q=65535;qu="content-bytes";w=10;pk=:sdfjLJUOUH==:')).toEqual([]);
    expect(parseRateLimitPolicy('"a";q=5;qu="requests"')).toEqual([
      { name: 'a', quota: 5, windowSeconds: undefined },
    ]);
  });

  it('reads a token as the name, white space around members, and fields split over several lines', () => {
    expect(parseRateLimitPolicy('  default;q=1;w=2 ,\t"b";q=3;w=4  ')).toEqual([
      { name: 'default', quota: 1, windowSeconds: 2 },
      { name: 'b', quota: 3, windowSeconds: 4 },
    ]);
    // A parameter given twice keeps its last value; unknown parameters are comments.
    expect(parseRateLimitPolicy('"a";q=1;q=7;acme-burst=?1;note="x y";d=@1700000000')).toEqual([
      { name: 'a', quota: 7, windowSeconds: undefined },
    ]);
  });

  it('ignores the whole field when it is malformed or one policy is', () => {
    for (const value of [
      '',
      '"a";w=60', // q is required
      '"a";q=1.0', // a Decimal is not an Integer
      '"a";q=-1',
      '"a";q=1;w=0', // a window of 0 s
      '"a";q=1;w=1.5',
      '"a";q="5"',
      '"a";q=1;qu=requests', // qu must be a String
      '"a";q=1,', // trailing comma
      ',"a";q=1',
      '"a";q=1,,"b";q=2',
      '"a";q=1 "b";q=2',
      '"a";Q=1', // keys are lower case
      '"a;q=1', // an unterminated string
      '"a\\q";q=1', // only \\" and \\\\ are escapes
      '"a";q=1234567890123456', // 16 digits
      '100;w=60', // the draft's older form: an Integer, not a policy name
      'limit=100, remaining=50', // the dictionary form of an older draft
      '(a b);q=1', // an inner list is no policy
      '?1;q=1',
      ':YWJj:;q=1',
      '"é";q=1',
    ]) {
      expect(parseRateLimitPolicy(value), value).toBeUndefined();
    }
  });
});

describe('RateLimit', () => {
  it('reads the draft’s examples', () => {
    expect(parseRateLimit('"default";r=50;t=30')).toEqual([
      { name: 'default', remaining: 50, resetSeconds: 30 },
    ]);
    expect(parseRateLimit('"default";r=999;pk=:dHJpYWwxMjEzMjM=:')).toEqual([
      { name: 'default', remaining: 999, resetSeconds: undefined },
    ]);
    expect(parseRateLimit('"problemPolicy";r=0;t=10')).toEqual([
      { name: 'problemPolicy', remaining: 0, resetSeconds: 10 },
    ]);
  });

  it('ignores the whole field when it is malformed', () => {
    for (const value of [
      '"a";t=10',
      '"a";r=1;t=-1',
      '"a";r=NaN',
      '"a";r=1e3',
      '"a";r=5,"b"',
      '"a";r=1;t=2.0',
    ]) {
      expect(parseRateLimit(value), value).toBeUndefined();
    }
  });
});

describe('advertisedQuota', () => {
  const now = 1_700_000_000_000;

  it('spreads the remaining quota over the time left in the window', () => {
    expect(advertisedQuota(headers({ ratelimit: '"d";r=50;t=25' }), now)).toEqual({
      rate: 50 / 25_000,
      forMs: 25_000,
      policyRate: Infinity,
    });
  });

  it('never faster than a policy’s q / w, and the slowest of several policies wins', () => {
    const quota = advertisedQuota(
      headers({
        'ratelimit-policy': '"burst";q=100;w=60,"daily";q=1000;w=86400',
        ratelimit: '"burst";r=90;t=10,"daily";r=900;t=80000',
      }),
      now,
    );
    expect(quota?.rate).toBeCloseTo(900 / 80_000_000, 15);
    expect(quota?.policyRate).toBeCloseTo(1000 / 86_400_000, 15);
    expect(
      advertisedQuota(
        headers({ 'ratelimit-policy': '"s";q=10000;w=1000', ratelimit: '"s";r=10000;t=10' }),
        now,
      )?.rate,
    ).toBeCloseTo(10 / 1000, 12);
  });

  it('a spent quota is a rate of 0 until its window ends', () => {
    expect(advertisedQuota(headers({ ratelimit: '"d";r=0;t=7' }), now)).toEqual({
      rate: 0,
      forMs: 7_000,
      policyRate: Infinity,
    });
  });

  it('a limit without a window, or one whose window ends now, says nothing about time', () => {
    expect(advertisedQuota(headers({ ratelimit: '"d";r=0' }), now)).toBeUndefined();
    expect(advertisedQuota(headers({ ratelimit: '"d";r=0;t=0' }), now)).toBeUndefined();
    // The policy alone still paces.
    expect(
      advertisedQuota(headers({ 'ratelimit-policy': '"d";q=60;w=60', ratelimit: '"d";r=5' }), now),
    ).toEqual({
      rate: 1 / 1000,
      forMs: Infinity,
      policyRate: 1 / 1000,
    });
  });

  it('reads X-RateLimit-Remaining with X-RateLimit-Reset (seconds or an epoch time), and the unprefixed pair', () => {
    const expected = { rate: 3 / 6000, forMs: 6000, policyRate: Infinity };
    expect(advertisedQuota(headers({ 'x-ratelimit-remaining': '3', 'x-ratelimit-reset': '6' }), now)).toEqual(
      expected,
    );
    expect(
      advertisedQuota(
        headers({ 'x-ratelimit-remaining': '3', 'x-ratelimit-reset': String(now / 1000 + 6) }),
        now,
      ),
    ).toEqual(expected);
    expect(advertisedQuota(headers({ 'ratelimit-remaining': '3', 'ratelimit-reset': '6' }), now)).toEqual(
      expected,
    );
    // A valid RateLimit field is read first.
    expect(
      advertisedQuota(
        headers({ ratelimit: '"d";r=1;t=1', 'x-ratelimit-remaining': '3', 'x-ratelimit-reset': '6' }),
        now,
      )?.rate,
    ).toBe(1 / 1000);
  });

  it('ignores what it cannot read', () => {
    for (const fields of [
      {},
      { 'x-ratelimit-remaining': '3' },
      { 'x-ratelimit-remaining': '-3', 'x-ratelimit-reset': '6' },
      { 'x-ratelimit-remaining': '3.5', 'x-ratelimit-reset': '6' },
      { 'x-ratelimit-remaining': '3', 'x-ratelimit-reset': 'soon' },
      { 'x-ratelimit-limit': '100' },
      { ratelimit: 'garbage' },
    ]) {
      expect(advertisedQuota(headers(fields), now), JSON.stringify(fields)).toBeUndefined();
    }
  });
});
