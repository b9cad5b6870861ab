/** The summary of a finished run (`RetryInfo`): what `onFinish`, the answer and `jitterbug:run:end` carry. */
import type { Mutable, RetryInfo, RetryReason, StopReason } from './options.ts';
import type { RunRecord } from './run-record.ts';

const NO_RETRIES: readonly RetryReason[] = Object.freeze([]);

/** The summary of `run`, ending as `reason` (`success`: with an answer the caller takes as one). */
export const summaryOf = (
  run: RunRecord,
  reason: StopReason,
  status: number | undefined,
  error: unknown,
  success: boolean,
): Mutable<RetryInfo> => ({
  // One literal of one shape: the summary is made on every request's success path.
  method: run.method,
  url: run.url,
  attempts: run.attempts,
  retries: run.retries ? [...run.retries] : NO_RETRIES,
  totalDelayMs: run.totalDelayMs,
  serverDelaysUnread: run.unread,
  elapsedMs: run.elapsedMs(),
  outcome: success ? 'success' : 'failure',
  reason,
  status,
  error,
  route: run.options.route,
  hedge: undefined,
});
