/**
 * What the decision looks at for an attempt's result (`AttemptOutcome`), and what `shouldRetry` or
 * `isFailure` is shown of it (`AttemptInfo`), both built from the run's counts.
 */
import { offline } from '#offline';
import { type AttemptOutcome, defaultRetry } from './decide.ts';
import { nothing } from './maybe-promise.ts';
import type { AttemptInfo, ResolvedOptions } from './options.ts';
import { notForwarded } from './proxy-status.ts';
import type { HeaderGetter } from './retry-after.ts';
import type { RunRecord } from './run-record.ts';
import type { AttemptResult } from './steps.ts';

/** A request or a response without headers: every name reads as `undefined`. */
export const NO_HEADERS: HeaderGetter = nothing;

/** Either kind of result read as one: what the other kind lacks reads as `undefined`. */
export type EitherResult = Partial<
  Extract<AttemptResult, { status: number }> & Extract<AttemptResult, { error: unknown }>
>;

/** Whether a response looks like a success: `isFailure` is asked about it, `shouldRetry` about the rest. */
export const looksFine = (status: number | undefined, options: ResolvedOptions): boolean =>
  status !== undefined && status < 400 && !options.statusCodes.has(status);

/** What the decision looks at, for `r`, the result of the attempt `run` just counted. */
export const outcomeOf = (run: RunRecord, r: EitherResult): AttemptOutcome => {
  const o = run.options;
  const nowMs = o.now();
  const { status } = r;
  const responseHeaders = status === undefined ? undefined : (r.headers ?? NO_HEADERS);
  return {
    method: run.method,
    url: run.url,
    requestHeaders: run.headers,
    bodyReplayable: run.body !== 'stream',
    attempt: run.attempts,
    elapsedMs: Math.max(0, nowMs - run.startMs),
    nowMs,
    backoffState: run.backoffState,
    status,
    responseHeaders,
    problemType: r.problemType,
    // Read once here: the run counts an answer that proves nothing as a server's, the decision
    // retries one that proves it transparently. Only a 5xx can prove it (`proxy-status.ts`): a 412's
    // or a 429's status is not looked for in that list.
    notForwarded: status !== undefined && status >= 500 ? (notForwarded(status, responseHeaders) ?? '') : '',
    error: r.error,
    code: r.code,
    aborted: r.aborted === true,
    unprocessed: r.unprocessed === true,
    offline: r.status === undefined && r.aborted !== true && offline(),
    staleConnection: r.staleConnection === true,
    failing: o.progress.failedAt === o.progress.answers,
    transparentRetries: run.transparentRetries,
    uncountedRetries: run.uncountedRetries,
    stalledRetries: run.stalledRetries,
    progressed: o.progress.answers !== run.answersSeen,
  };
};

/** What `shouldRetry` or `isFailure` is shown of `outcome`, the result `result` of the attempt just counted. */
export const attemptInfoOf = (
  run: RunRecord,
  outcome: AttemptOutcome,
  result: AttemptResult,
): AttemptInfo => ({
  method: run.method,
  url: run.url,
  attempt: run.attempts,
  status: outcome.status,
  error: outcome.error,
  headers: outcome.responseHeaders,
  response: 'response' in result ? result.response : undefined,
  defaultRetry: defaultRetry(outcome, run.options),
  elapsedMs: outcome.elapsedMs,
});
