/**
 * Whether the attempt about to be sent could still be followed by a retry. An adapter asks this
 * before each attempt to skip work that only pays off on a retry (axios: reading a body in stream
 * mode so that a discarded one is never buffered whole) and to leave a last attempt to the client.
 */

import { mayRetryUpper } from './may-retry.ts';
import type { RetryRun } from './policy.ts';
import type { HeaderGetter } from './retry-after.ts';

/**
 * `false` when no outcome of the run's next attempt can lead to a retry: `mayRetry` says no,
 * the attempt is the last one `maxAttempts` allows, or the body is a stream that cannot be replayed.
 * `true` means a retry is possible, not that one will happen: the decision is {@link RetryRun.next}'s.
 */
export const attemptMayRetry = (run: RetryRun, requestHeaders: HeaderGetter): boolean =>
  run.body !== 'stream' &&
  run.attempts - run.transparentRetries + 1 < run.options.maxAttempts &&
  mayRetryUpper(run.options, run.method, requestHeaders);

/**
 * Whether a transparent retry could still follow the run's next attempt (any method gets one, after
 * a failure that proves nothing was sent, while `transparentRetries` has some left): then the
 * request must stay sendable even when {@link attemptMayRetry} says no.
 */
export const transparentRetryLeft = (run: RetryRun): boolean =>
  run.body !== 'stream' && run.options.retry && run.transparentRetries < run.options.transparentRetries;
