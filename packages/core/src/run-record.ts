/**
 * What one request's run has counted (attempts, waits, retries, the backoff), as the pieces the
 * attempt sequence builds from it read it: the decision's outcome, the retry and give-up events, the
 * summary (`attempt-outcome.ts`, `run-events.ts`, `run-summary.ts`). The sequence is one.
 */
import type { BackoffState } from './backoff.ts';
import type { RetryReason } from './options.ts';
import type { RunView } from './types.ts';

/** A run's counts, read-only for those who read them. */
export interface RunRecord extends RunView {
  /** Retries a feature made that `maxAttempts` does not count (a credential refresh's). */
  readonly uncountedRetries: number;
  /** When the request began, on the policy's clock. */
  readonly startMs: number;
  /** Where the backoff stands (decorrelated jitter needs the last delay). */
  readonly backoffState: BackoffState;
  /** Why each retry so far was made, in order. */
  readonly retries: readonly RetryReason[] | undefined;
  /** Retries of a 429 or 503 whose delay could not be read. */
  readonly unread: number;
  /** Of the transparent retries, the last ones in a row made while no server answered the policy's requests. */
  readonly stalledRetries: number;
  /** The policy's answers counted when this request began or last retried transparently. */
  readonly answersSeen: number;
}
