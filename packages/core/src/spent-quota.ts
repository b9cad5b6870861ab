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

import { parseRateLimit, spentWaitMs } from './ratelimit-field.ts';
import { type HeaderGetter, parseRateLimitReset } from './retry-after.ts';

const ZERO = /^0{1,15}$/;

/** Where a spent quota's reset was read. */
export type QuotaResetSource = 'ratelimit' | 'ratelimit-reset' | 'x-ratelimit-reset';

/** A wait a rate-limit window's fields give, in ms within `[0, MAX_SERVER_DELAY_MS]`, and its field. */
export interface WindowDelay {
  readonly ms: number;
  readonly source: QuotaResetSource;
  /** The fields say the quota is spent: nothing goes through before then. */
  readonly spent?: true;
}

/** A `…-Remaining` value that says nothing is left. */
const none = (remaining: string | null | undefined): boolean =>
  remaining != null && ZERO.test(remaining.trim());

/**
 * The wait the rate-limit window's fields give, each field read once and only when the answer
 * depends on it: a spent quota first (the longest `t` of the `RateLimit` items whose `r` is 0, else
 * the `X-RateLimit-Reset` of an `X-RateLimit-Remaining: 0`, then the unprefixed pair; a valid
 * `RateLimit` field is the whole answer about a spent quota, the older pairs are read only without
 * one), else the window's reset (`RateLimit-Reset`, then `X-RateLimit-Reset`). `undefined` when
 * none says.
 */
export const windowDelay = (headers: HeaderGetter, nowMs: number): WindowDelay | undefined => {
  const limits = parseRateLimit(headers('ratelimit'));
  const wait = limits && spentWaitMs(limits);
  if (wait !== undefined) return { ms: wait, source: 'ratelimit', spent: true };
  // The prefixed pair's spent quota first; of two resets that are no spent quota's, the unprefixed.
  let reset: WindowDelay | undefined;
  for (const prefix of ['x-', ''] as const) {
    const source = `${prefix}ratelimit-reset` as const;
    const ms = parseRateLimitReset(headers(source), nowMs);
    if (ms === undefined) continue;
    if (!limits && none(headers(`${prefix}ratelimit-remaining`))) return { ms, source, spent: true };
    reset = { ms, source };
  }
  return reset;
};
