/**
 * `withRetry(fetch)`: any WHATWG fetch, with jitterbug's retries.
 */
import type { RetryPolicyOrOptions } from '@jitterbug/core';
import { asLayer, asRetryLayer, fail, isRetryLayer, marking, toRetryPolicy } from '@jitterbug/core/adapter';
import type { FetchFunction, FetchInit } from './call.ts';
import { Call, execute } from './engine.ts';

/**
 * What `withRetry` returns: the given fetch's signature, and a `jitterbug` field in `init`.
 *
 * @typeParam F - the type of the fetch that was wrapped.
 */
export type RetryingFetch<F extends (input: never, init?: never) => Promise<unknown>> = (
  input: Parameters<F>[0],
  init?: Parameters<F>[1] & Pick<FetchInit, 'jitterbug'>,
) => ReturnType<F>;

/**
 * Wraps a fetch (the global one, undici's, a test double) so that every call is retried as the
 * policy decides: backoff with jitter, `Retry-After`, the retry budget, per-route rules when a
 * policy from `createRetryPolicy` is given, and `init.jitterbug` for one call's own overrides
 * (`{ maxAttempts: 5 }`, or `false` to send it once).
 *
 * A string, bytes, `Blob`, `FormData` or `URLSearchParams` body is sent again on a retry; a
 * `ReadableStream` never, unless `bodyBuffering` (`createBodyBuffering()`) read it into memory
 * first. A retried response is drained within `discardBodyMaxBytes`, then cancelled. The caller's
 * `signal` ends a wait at once, with its reason. `getRetryInfo(response)` (or `(error)`) tells what
 * it cost.
 *
 * @typeParam F - the type of `fetch`, which the result keeps.
 * @param fetch - the fetch to call for each attempt (called as a plain function).
 * @param optionsOrPolicy - options for a new policy, or a policy to share (and its retry budget).
 * @throws TypeError naming the option when an option is invalid (and when `fetch` is not a fetch
 *   function — an axios or ky instance is told which adapter to use —, or a third argument is given:
 *   withRetry has no settings of its own).
 *
 * @example
 * ```ts
 * const fetchWithRetry = withRetry(fetch, { maxAttempts: 4 });
 * const response = await fetchWithRetry('https://api.example.com/items');
 * ```
 */
export const withRetry = <F extends (input: never, init?: never) => Promise<unknown>>(
  fetch: F,
  optionsOrPolicy?: RetryPolicyOrOptions,
  // Nothing: withRetry has no settings of its own, and a third argument would be ignored.
  ...unexpected: never[]
): RetryingFetch<F> => {
  // axios, ky and got are functions too, but not fetches: their own retries, their own errors.
  if (typeof fetch !== 'function' || 'extend' in fetch || 'interceptors' in fetch) {
    fail('fetch', 'a fetch function', fetch, 'withRetryFetch');
  }
  if (unexpected.some((argument) => argument !== undefined)) {
    fail('adapterOptions', 'absent (withRetry has none)', unexpected[0], 'withRetry');
  }
  const policy = toRetryPolicy(optionsOrPolicy);
  const send = fetch as unknown as FetchFunction;
  const retrying = (input: never, init?: FetchInit) => {
    // An outer jitterbug layer decides: this one sends the attempt once, as it is, still marked for
    // an interceptor below.
    if (isRetryLayer(init)) return marking() ? asLayer(() => send(input, init)) : send(input, init);
    try {
      const call = new Call(input, init);
      // The call describes itself to the policy (its method, URL, headers and body kind).
      return execute(send, call, policy.begin(call, init?.jitterbug));
    } catch (error) {
      return Promise.reject(error);
    }
  };
  return asRetryLayer(retrying) as unknown as RetryingFetch<F>;
};
