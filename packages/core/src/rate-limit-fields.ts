/**
 * What a server advertises about its rate limit before it refuses anything: the IETF `RateLimit` and
 * `RateLimit-Policy` fields (draft-ietf-httpapi-ratelimit-headers, the Structured Field form:
 * `RateLimit-Policy: "default";q=100;w=60`, `RateLimit: "default";r=50;t=30`), and the older
 * `X-RateLimit-Remaining` / `X-RateLimit-Reset` pair (GitHub, most APIs; also `RateLimit-Remaining` /
 * `RateLimit-Reset` of the draft's first versions and express-rate-limit).
 *
 * Parsed strictly: a structured field is parsed as RFC 9651 says, and a value that does not parse, or
 * whose items lack a required parameter or give a wrong type, is ignored as a whole (the draft: a
 * malformed field MUST be ignored). Every number comes out finite and non-negative: garbage never
 * becomes `NaN`, a negative or an infinite count.
 */

import { parseRateLimit } from './ratelimit-field.ts';
import { type HeaderGetter, parseRateLimitReset } from './retry-after.ts';
import { integer, readField } from './structured-field.ts';

/** A quota policy of `RateLimit-Policy`: `quota` requests per `windowSeconds`. */
export interface QuotaPolicy {
  /** The policy's name (the member's token or string). */
  readonly name: string;
  /** `q`: the requests allowed per window. */
  readonly quota: number;
  /** `w`: the window, in seconds, when given. */
  readonly windowSeconds: number | undefined;
}

/**
 * Parses `RateLimit-Policy`: each item a policy name with `q` (an Integer >= 0, required), `w` (an
 * Integer > 0, seconds) and `qu` (the quota's unit: policies in other units than `"requests"` are
 * left out). `undefined` when the field is absent or malformed.
 */
export const parseRateLimitPolicy = (value: string | null | undefined): QuotaPolicy[] | undefined =>
  readField(value, (name, params): QuotaPolicy | null | undefined => {
    const quota = integer(params.get('q'), 0);
    const w = params.get('w');
    const windowSeconds = integer(w, 1);
    const unit = params.get('qu');
    if (quota === undefined || (w !== undefined && windowSeconds === undefined)) return undefined;
    if (unit !== undefined && typeof unit !== 'string') return undefined;
    return unit !== undefined && unit !== 'requests' ? null : { name, quota, windowSeconds };
  });

const COUNT = /^\d{1,15}$/;

/** What a response advertises, as the pacer uses it. */
export interface AdvertisedQuota {
  /**
   * The pace it allows now, in requests per ms: each policy's remaining quota spread over the time
   * left in its window (`r / t`), no faster than a policy's long-run `q / w` (the draft's advice
   * against a large `r / t`); 0 when a quota is spent.
   */
  readonly rate: number;
  /** How long `rate` holds, in ms: until the binding window resets; `Infinity` for a `q / w` alone. */
  readonly forMs: number;
  /** The slowest policy's `q / w`, in requests per ms, for after a window resets; `Infinity` if none. */
  readonly policyRate: number;
}

/**
 * The quota a response advertises: from `RateLimit` and `RateLimit-Policy` when they are valid, else
 * from `X-RateLimit-Remaining` with `X-RateLimit-Reset` (or the draft's first, unprefixed pair); the
 * most constraining of its policies. `undefined` when it advertises nothing usable (a limit without
 * a window says nothing about time).
 */
export const advertisedQuota = (headers: HeaderGetter, nowMs: number): AdvertisedQuota | undefined => {
  const policies = parseRateLimitPolicy(headers('ratelimit-policy')) ?? [];
  let policyRate = Infinity;
  for (const p of policies) {
    if (p.windowSeconds !== undefined) policyRate = Math.min(policyRate, p.quota / (p.windowSeconds * 1000));
  }
  let limits: { remaining: number; resetMs: number | undefined }[] | undefined = parseRateLimit(
    headers('ratelimit'),
  )?.map((l) => ({
    remaining: l.remaining,
    resetMs: l.resetSeconds === undefined ? undefined : l.resetSeconds * 1000,
  }));
  if (!limits) {
    const remaining = (headers('x-ratelimit-remaining') ?? headers('ratelimit-remaining'))?.trim();
    const reset =
      remaining === undefined
        ? undefined
        : parseRateLimitReset(headers('x-ratelimit-reset') ?? headers('ratelimit-reset'), nowMs);
    if (remaining !== undefined && COUNT.test(remaining) && reset !== undefined) {
      limits = [{ remaining: Number(remaining), resetMs: reset }];
    }
  }
  let rate = policyRate;
  let forMs = Infinity;
  let spentMs = 0;
  for (const { remaining, resetMs } of limits ?? []) {
    // A window that ends now says nothing either.
    if (resetMs === undefined || resetMs <= 0) continue;
    if (remaining === 0) spentMs = Math.max(spentMs, resetMs);
    else if (remaining / resetMs < rate) {
      rate = remaining / resetMs;
      forMs = resetMs;
    }
  }
  if (spentMs > 0) return { rate: 0, forMs: spentMs, policyRate };
  return rate === Infinity ? undefined : { rate, forMs, policyRate };
};
