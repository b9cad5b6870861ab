/**
 * Whether a request could be retried at all, before it is sent, or whether the attempt about to be
 * sent could be followed by another: adapters ask this before doing work that only pays off on a
 * retry (reading a stream body into memory so it can be replayed, keeping a copy of a `Request`,
 * reading a body in axios' stream mode) and to leave a last attempt to the client.
 */
import { methodAllowsRetry } from './decide.ts';
import type { ResolvedOptions } from './options.ts';
import type { HeaderGetter } from './retry-after.ts';
import type { RetryRun } from './run.ts';

/**
 * `false` when no outcome of the request can lead to a retry under `options`: retries disabled for
 * its route, `maxAttempts` 1, or a method that is not retried and no idempotency key (a hook's
 * `true` stays within that rule). `true` means a retry is possible, not that one will
 * happen: every actual decision is the run's (its attempt sequence).
 */
export const mayRetry = (options: ResolvedOptions, method: string, requestHeaders: HeaderGetter): boolean =>
  mayRetryUpper(options, method.toUpperCase(), requestHeaders);

/**
 * Whether the request may be sent more than once, so that its body must stay sendable (read ahead,
 * or a `Request` cloned): {@link mayRetry}, or a transparent retry, which any method gets (a refused
 * connection, an HTTP/2 `REFUSED_STREAM`) when `transparentRetries` allows them.
 */
export const maySendAgain = (
  options: ResolvedOptions,
  method: string,
  requestHeaders: HeaderGetter,
): boolean => mayRetry(options, method, requestHeaders) || (options.retry && options.transparentRetries > 0);

/** {@link mayRetry} for a method already in upper case (a run's), without `toUpperCase`. */
export const mayRetryUpper = (
  options: ResolvedOptions,
  upperMethod: string,
  requestHeaders: HeaderGetter,
): boolean =>
  options.retry && options.maxAttempts > 1 && methodAllowsRetry(upperMethod, requestHeaders, options);

/**
 * `false` when no outcome of the run's next attempt can lead to a retry: `mayRetry` says no,
 * the attempt is the last one `maxAttempts` allows, or the body is a stream that cannot be replayed.
 * `true` means a retry is possible, not that one will happen: the decision is the run's.
 */
export const attemptMayRetry = (run: RetryRun, requestHeaders: HeaderGetter): boolean =>
  run.body !== 'stream' &&
  run.attempts - run.transparentRetries - run.uncountedRetries + 1 < run.options.maxAttempts &&
  mayRetryUpper(run.options, run.method, requestHeaders);
