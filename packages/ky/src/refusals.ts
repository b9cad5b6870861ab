/**
 * ky options that, set again after `kyRetry()`, would undo it: each call is refused with a
 * `TypeError` that says what to write instead, before anything is sent.
 */
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
    return new TypeError(
      'jitterbug: ky\'s "retry" option was set after kyRetry(), so ky would retry on its own what jitterbug already retried; set retries with jitterbug instead (a call\'s `jitterbug: { maxAttempts }`, or the policy)',
    );
  }
  if (!forced) {
    return new TypeError(
      'jitterbug: ky\'s "retry" limit was set after kyRetry(); for ky.retry() from a hook use kyRetry(options, { forcedRetries: createForcedRetries() }), whose run decides forced retries',
    );
  }
  return undefined;
};

/** ky's `fetch` option set after `kyRetry()` (on the instance or on a call): jitterbug's is gone. */
export const fetchSetAgain = (): TypeError =>
  new TypeError(
    'jitterbug: ky\'s "fetch" option was set after kyRetry(), so the call would bypass jitterbug (no retry at all); pass your fetch as kyRetry(options, { fetch }) instead',
  );
