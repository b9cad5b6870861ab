/**
 * A retry the user forces after the run handed its last response over (ky's `ky.retry()` from an
 * `afterResponse` hook). Functions rather than methods of the run, so that only the adapter that
 * offers forced retries carries them.
 */
import type { Decision } from './decide.ts';
import type { HeaderGetter } from './retry-after.ts';
import { setRetryInfo } from './retry-info.ts';
import { NO_HEADERS, type RetryRun } from './run.ts';
import { concludeOn, waitBetween } from './sequence-conclude.ts';

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

/**
 * A forced retry as an adapter runs it, in one call: decided as `forceRetry` decides it, then, on
 * `retry: true`, the policy's delay waited with its sleep (`signal` may end the wait), or, when the
 * user gave `delayMs`, that delay counted (the client waited it). Resolves to whether the request
 * is sent again. Rejects with what the decision threw (a hook's error), or with the reason of the
 * abort that ended the wait, which then carries the finished run's summary (`getRetryInfo`).
 */
export const runForcedRetry = async (
  run: RetryRun,
  delayMs?: number,
  signal?: AbortSignal,
): Promise<boolean> => {
  const pending = forceRetry(run, delayMs);
  const decision = pending instanceof Promise ? await pending : pending;
  if (!decision.retry) return false;
  if (delayMs !== undefined) {
    run.totalDelayMs += delayMs;
    return true;
  }
  try {
    await waitBetween(run, decision.delayMs, signal);
  } catch (reason) {
    if (run.summary) setRetryInfo(reason, run.summary);
    throw reason;
  }
  return true;
};
