/**
 * kyRetry's refusals as development builds word them (Node, and bundlers resolving `development` or
 * no build condition): the ky option set again after `kyRetry()`, what it would do, and what to write
 * instead. `short.ts` names the option without the fix, for production and browser builds, as the
 * core's option errors do.
 */

/** ky's `retry` option (a number, or methods) set again: ky would retry on its own. */
export const retrySetText: string =
  'jitterbug: ky\'s "retry" option was set after kyRetry(), so ky would retry on its own what jitterbug already retried; set retries with jitterbug instead (a call\'s `jitterbug: { maxAttempts }`, or the policy)';

/** ky's `retry` limit set again without forced retries: ky would make retries no run decides. */
export const limitSetText: string =
  'jitterbug: ky\'s "retry" limit was set after kyRetry(); for ky.retry() from a hook use kyRetry(options, { forcedRetries: createForcedRetries() }), whose run decides forced retries';

/** ky's `fetch` option set again: the call would bypass jitterbug. */
export const fetchSetText: string =
  'jitterbug: ky\'s "fetch" option was set after kyRetry(), so the call would bypass jitterbug (no retry at all); pass your fetch as kyRetry(options, { fetch }) instead';
