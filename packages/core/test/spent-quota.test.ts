/**
 * A spent quota and when it is back: the `RateLimit` field's items with `r=0`, else
 * `X-RateLimit-Remaining: 0` with `X-RateLimit-Reset` (then the draft's first, unprefixed pair).
 */

import { describe, expect, it } from 'vitest';
import { headers, spentQuota } from './helpers.ts';

const NOW = 1_700_000_000_000;

describe('spentQuota', () => {
  it('RateLimit: the longest reset of the policies with nothing left', () => {
    expect(spentQuota(headers({ ratelimit: '"daily";r=0;t=36000' }), NOW)).toEqual({
      ms: 36_000_000,
      source: 'ratelimit',
    });
    expect(
      spentQuota(headers({ ratelimit: '"minute";r=0;t=20, "daily";r=0;t=36000, "burst";r=5;t=1' }), NOW),
    ).toEqual({ ms: 36_000_000, source: 'ratelimit' });
  });

  it('RateLimit: nothing when a quota is left, or a spent one says nothing of time', () => {
    expect(spentQuota(headers({ ratelimit: '"daily";r=3;t=36000' }), NOW)).toBeUndefined();
    expect(spentQuota(headers({ ratelimit: '"daily";r=0' }), NOW)).toBeUndefined();
  });

  it('a valid RateLimit field is the whole answer; a malformed one is ignored for the older pair', () => {
    const older = { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '3600' };
    expect(spentQuota(headers({ ratelimit: '"daily";r=2;t=60', ...older }), NOW)).toBeUndefined();
    expect(spentQuota(headers({ ratelimit: '"daily";r=0;t=1.5', ...older }), NOW)).toEqual({
      ms: 3_600_000,
      source: 'x-ratelimit-reset',
    });
  });

  it('X-RateLimit-Remaining: 0 with X-RateLimit-Reset, in delta-seconds or epoch seconds (GitHub)', () => {
    expect(spentQuota(headers({ 'x-ratelimit-remaining': ' 0 ', 'x-ratelimit-reset': '7200' }), NOW)).toEqual(
      { ms: 7_200_000, source: 'x-ratelimit-reset' },
    );
    const inThreeHours = String((NOW + 3 * 3_600_000) / 1000);
    expect(
      spentQuota(headers({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': inThreeHours }), NOW),
    ).toEqual({ ms: 3 * 3_600_000, source: 'x-ratelimit-reset' });
    expect(spentQuota(headers({ 'ratelimit-remaining': '00', 'ratelimit-reset': '30' }), NOW)).toEqual({
      ms: 30_000,
      source: 'ratelimit-reset',
    });
  });

  it('nothing when requests are left, the reset is missing or garbage, or the pair is mixed', () => {
    expect(
      spentQuota(headers({ 'x-ratelimit-remaining': '1', 'x-ratelimit-reset': '7200' }), NOW),
    ).toBeUndefined();
    expect(spentQuota(headers({ 'x-ratelimit-remaining': '0' }), NOW)).toBeUndefined();
    expect(
      spentQuota(headers({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': 'soon' }), NOW),
    ).toBeUndefined();
    expect(
      spentQuota(headers({ 'x-ratelimit-remaining': '-0', 'x-ratelimit-reset': '60' }), NOW),
    ).toBeUndefined();
    expect(
      spentQuota(headers({ 'x-ratelimit-remaining': '0', 'ratelimit-reset': '60' }), NOW),
    ).toBeUndefined();
    expect(spentQuota(headers(), NOW)).toBeUndefined();
  });
});
