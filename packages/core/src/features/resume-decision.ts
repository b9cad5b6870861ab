/**
 * The decision on a delivered body that broke (the opt-in `resume`): whether to ask for the rest. Its
 * own module, apart from `resume.ts` (whose types the options name), as it runs the sequence's steps.
 */
import type { Decision } from '../decide.ts';
import { concludeOn } from '../sequence-conclude.ts';
import type { SequenceState } from '../sequence-state.ts';
import type { ResumedRun } from './resume.ts';

/**
 * The body of the response `run` handed over broke with `error` (ask only when `resume` is on and the
 * response had a `resumeValidator`): whether to ask for the rest. On `retry: true` the run is open
 * again — wait `delayMs`, send the request again with `resumeHeaders(bytes, validator)`, check the
 * answer with `checkResumed`, and report it as any attempt; the run finishes again
 * (calling `onFinish` again) when it ends. On `retry: false` the run finishes anew as a failure with
 * `error`, which the body then ends with.
 */
export const resumeDecision = (
  run: ResumedRun,
  error: unknown,
  code?: string,
): Decision | Promise<Decision> => {
  run.summary = undefined;
  // A run is the attempt sequence (`RetryPolicy.begin` makes each); `ResumedRun` names only what a
  // `Resume` from another copy of the package reads of it.
  return concludeOn(run as unknown as SequenceState, {
    ...run.outcome(code ? { error, code } : { error }),
    resuming: true,
  });
};
