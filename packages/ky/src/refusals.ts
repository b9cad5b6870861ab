/**
 * ky options that, set again after `kyRetry()`, would undo it: each call is refused with a
 * `TypeError` that names the option, before anything is sent; development builds say what to write
 * instead (`#messages`: `messages/full.ts`, else `messages/short.ts`).
 */
import { fetchSetText, limitSetText, retrySetText } from '#messages';
import type { KyRetryView } from './hook-args.ts';

/** ky's retry limit when none is given. */
const KY_DEFAULT_LIMIT = 2;

/**
 * Why ky's `retry` option, set again after `kyRetry()` (`retry: 2` on a call, or `.extend()` with
 * one), is refused, if it is: ky would retry on its own what jitterbug already retried (a number, or
 * methods), or, without `forcedRetries`, make forced retries that no run decides (a limit above 0:
 * ky would also copy every request again). `retry` as ky normalized it, or as the call gave it.
 */
export const retrySetAgain = (
  retry: KyRetryView | number | undefined,
  forced: boolean,
): TypeError | undefined => {
  const numeric = typeof retry === 'number';
  // ky retries nothing while its limit is 0, whatever methods it lists (it fills in its defaults).
  const limit = numeric ? retry : (retry?.limit ?? KY_DEFAULT_LIMIT);
  if (limit <= 0) return undefined;
  // Methods left out are ky's own (not none).
  if (numeric || retry?.methods === undefined || retry.methods.length > 0) {
    return new TypeError(retrySetText);
  }
  return forced ? undefined : new TypeError(limitSetText);
};

/** ky's `fetch` option set after `kyRetry()` (on the instance or on a call): jitterbug's is gone. */
export const fetchSetAgain = (): TypeError => new TypeError(fetchSetText);
