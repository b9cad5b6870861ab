/**
 * A quota the server says is spent, and when it comes back: the `RateLimit` field
 * (draft-ietf-httpapi-ratelimit-headers, `RateLimit: "daily";r=0;t=36000`: nothing left of the
 * policy `daily` for the next 10 hours) or the older pair `X-RateLimit-Remaining: 0` with
 * `X-RateLimit-Reset` (GitHub, most APIs; `RateLimit-Remaining` / `RateLimit-Reset` of the draft's
 * first versions). A retry before that time is refused again and only spends the request's
 * attempts and the budget: the decision waits for it, or ends the request at once when it is
 * further away than `retryAfter.maxMs` (as a `Retry-After` that long does).
 *
 * The `RateLimit` field is parsed strictly (the draft: a malformed field MUST be ignored); the pacer
 * reads it too (`rate-limit-fields.ts`).
 */
import { type HeaderGetter, parseRateLimitReset } from './retry-after.ts';
import { integer, readField } from './structured-field.ts';

/** A service limit of `RateLimit`: `remaining` requests within the next `resetSeconds`. */
export interface ServiceLimit {
  /** The policy it belongs to (the member's token or string). */
  readonly name: string;
  /** `r`: the requests left. */
  readonly remaining: number;
  /** `t`: the seconds until the quota is reset, when given. */
  readonly resetSeconds: number | undefined;
}

/**
 * Parses `RateLimit`: each item a policy name with `r` (an Integer >= 0, required) and `t` (an
 * Integer >= 0, seconds). `undefined` when the field is absent or malformed.
 */
export const parseRateLimit = (value: string | null | undefined): ServiceLimit[] | undefined =>
  readField(value, (name, params): ServiceLimit | undefined => {
    const remaining = integer(params.get('r'), 0);
    const t = params.get('t');
    const resetSeconds = integer(t, 0);
    if (remaining === undefined || (t !== undefined && resetSeconds === undefined)) return undefined;
    return { name, remaining, resetSeconds };
  });

const ZERO = /^0{1,15}$/;

/** Where a spent quota's reset was read. */
export type QuotaResetSource = 'ratelimit' | 'ratelimit-reset' | 'x-ratelimit-reset';

/**
 * The wait until a spent quota is back, when the response says one is: the longest `t` of the
 * `RateLimit` items whose `r` is 0 (all of them must be back before a request goes through), else the
 * `X-RateLimit-Reset` of an `X-RateLimit-Remaining: 0` (then the unprefixed pair). `undefined` when no
 * quota is spent or none says when it resets. A valid `RateLimit` field is the whole answer: the older
 * pair is read only without one.
 */
export const spentQuota = (
  headers: HeaderGetter,
  nowMs: number,
):
  | {
      /** The wait, in ms, within `[0, MAX_SERVER_DELAY_MS]`. */
      readonly ms: number;
      /** The field it came from. */
      readonly source: QuotaResetSource;
    }
  | undefined => {
  const limits = parseRateLimit(headers('ratelimit'));
  if (limits) {
    let seconds: number | undefined;
    for (const { remaining, resetSeconds } of limits) {
      if (remaining === 0 && resetSeconds !== undefined) seconds = Math.max(seconds ?? 0, resetSeconds);
    }
    return seconds === undefined ? undefined : { ms: seconds * 1000, source: 'ratelimit' };
  }
  for (const prefix of ['x-', ''] as const) {
    const remaining = headers(`${prefix}ratelimit-remaining`);
    if (remaining != null && ZERO.test(remaining.trim())) {
      const ms = parseRateLimitReset(headers(`${prefix}ratelimit-reset`), nowMs);
      if (ms !== undefined) return { ms, source: `${prefix}ratelimit-reset` };
    }
  }
  return undefined;
};
