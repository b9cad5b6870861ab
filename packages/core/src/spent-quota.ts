/**
 * A quota the server says is spent, and when it comes back: the `RateLimit` field
 * (draft-ietf-httpapi-ratelimit-headers, `RateLimit: "daily";r=0;t=36000`: nothing left of the
 * policy `daily` for the next 10 hours) or the older pair `X-RateLimit-Remaining: 0` with
 * `X-RateLimit-Reset` (GitHub, most APIs; `RateLimit-Remaining` / `RateLimit-Reset` of the draft's
 * first versions). A retry before that time is refused again and only spends the request's
 * attempts and the budget: the decision waits for it, or ends the request at once when it is
 * further away than `retryAfter.maxMs` (as a `Retry-After` that long does).
 *
 * The `RateLimit` field is parsed strictly (the draft: a malformed field MUST be ignored:
 * `ratelimit-field.ts`).
 */

import { parseRateLimit, parseRateLimitWait } from './ratelimit-field.ts';
import { type HeaderGetter, parseRateLimitReset } from './retry-after.ts';

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
  const field = headers('ratelimit');
  // A valid `RateLimit` field is the whole answer.
  if (parseRateLimit(field)) {
    const ms = parseRateLimitWait(field);
    return ms === undefined ? undefined : { ms, source: 'ratelimit' };
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
