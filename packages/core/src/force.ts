/**
 * A retry the user forces after the run handed its last response over (ky's `ky.retry()` from an
 * `afterResponse` hook). A function rather than a method of the run, so that only the adapter that
 * offers forced retries carries it.
 */
import type { Decision } from './decide.ts';
import type { HeaderGetter } from './retry-after.ts';
import { NO_HEADERS, type RetryRun } from './run.ts';
import { concludeOn } from './sequence-conclude.ts';

/**
 * Decides a forced retry of `run`'s last attempt like any retry of it (`maxAttempts`, the deadline,
 * the budget, a replayable body), after `delayMs` if given, else the policy's delay. The run is open
 * again: on `retry: true` it goes on, and on `retry: false` it finishes anew with that reason (as a
 * failure: the user refused the response); `onFinish` is then called again, with the whole run.
 */
export const forceRetry = (
  run: RetryRun,
  delayMs?: number,
  headers?: HeaderGetter,
): Decision | Promise<Decision> => {
  const last = run.summary;
  run.summary = undefined;
  const outcome = run.outcome(
    last?.status !== undefined
      ? { status: last.status, headers: headers ?? NO_HEADERS }
      : { error: last?.error },
  );
  return concludeOn(run, { ...outcome, forced: { delayMs } });
};
