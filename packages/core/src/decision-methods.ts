/**
 * Decisions of a run, rather than its next step: functions of the attempt sequence that run its own
 * steps (`sequence-*.ts`) to their decision, so the order and the rules stay the sequence's. Every
 * driver now does the sequence's steps (the promise loop, undici's callbacks, the simulators); what
 * is left here is ky's (its hooks share the sequence's wait and its end of a run: `waitBetween`,
 * `finishRun`) and the core's tests, which decide on results by hand (`decideOn`, `settleOn`,
 * `beforeAttempt`, `editAttempt`); the file goes once those move onto the steps. They return plain
 * values when no hook returns a promise, and a promise otherwise. A decision taken after the answer
 * was handed over (a forced retry, a resume) is `sequence-conclude.ts`'s.
 */
import { channels, observed } from '#diagnostics';
import { type AttemptKind, applyEdits, type EditableRequest, hasAttemptHook } from './attempt-edits.ts';
import type { Decision, StopDecision } from './decide.ts';
import { isThenable, nothing, quietly } from './maybe-promise.ts';
import type { StopReason } from './options.ts';
import { admission, refused } from './sequence-attempt.ts';
import { decisionOf, forDecision } from './sequence-conclude.ts';
import { decideResult, settleByStatus } from './sequence-decide.ts';
import { close } from './sequence-end.ts';
import { DECISION } from './sequence-stages.ts';
import type { SequenceState } from './sequence-state.ts';
import type { AttemptResult } from './steps.ts';
import type { HoldSignal } from './types.ts';

/**
 * Called by the adapter immediately before it sends each attempt of `s`. `undefined`: send it now
 * (and subscribers to `jitterbug:attempt:start` have just been told, synchronously). A promise: a
 * feature holds the attempt (a server asked the origin to wait); await it and call this again. It
 * rejects with the signal's reason on an abort, or with the feature's refusal (the run is then
 * finished). `signal` may be an object whose `signal()` is called only for a hold, so that an
 * adapter makes no `AbortController` for attempts that are not held.
 */
export const beforeAttempt = (s: SequenceState, signal?: HoldSignal): void | Promise<void> => {
  const turn = s.options.admitting.length === 0 ? undefined : admission(s);
  if (!turn) {
    if (observed && channels.attemptStart.hasSubscribers) {
      channels.attemptStart.publish({ run: s, attempt: s.attempts + 1 });
    }
    return undefined;
  }
  if ('holdMs' in turn) {
    return waitBetween(s, turn.holdMs, signal && 'aborted' in signal ? signal : signal?.signal());
  }
  forDecision(s);
  try {
    const ended = decisionOf(s, refused(s, turn));
    // A refusal ends in the request's failure: its error, or what a hook failed with.
    return Promise.resolve(ended).then(() => Promise.reject(s.error));
  } catch (error) {
    return Promise.reject(error);
  }
};

/**
 * The decision for a response whose status settles the request by itself (a success, or a status
 * that is never retried, when there is no `shouldRetry` hook to ask): the attempt is counted, the
 * run finishes and the decision is returned, as {@link decideOn} would. `undefined`, with nothing
 * counted, when the response needs {@link decideOn} and its headers.
 */
export const settleOn = (
  s: SequenceState,
  status: number,
): StopDecision | Promise<StopDecision> | undefined => {
  s.afterEnd = DECISION;
  const step = settleByStatus(s, status);
  if (step === undefined) return undefined;
  // Nearly always: no onFinish promise to wait for.
  return (step === 'deliver' ? s.decision : decisionOf(s, step)) as StopDecision | Promise<StopDecision>;
};

/**
 * Reports how an attempt ended and returns what to do. On `retry: true` the adapter discards the
 * response, waits with {@link waitBetween} and sends again; on `retry: false` it hands the response
 * or error to the caller unchanged (the run is then finished and `summary` is set). Throws (or
 * rejects with) what a user hook throws: the adapter then fails the request with it.
 */
export const decideOn = (s: SequenceState, result: AttemptResult): Decision | Promise<Decision> => {
  forDecision(s);
  return decisionOf(s, decideResult(s, result));
};

/**
 * What a user hook returns, given `arg`; when it throws or rejects, the run is finished first (as
 * `hook-failed`, with the hook's error and the attempt's `status`), then the error goes on.
 */
const hook = <A, T>(s: SequenceState, status: number | undefined, call: (arg: A) => T, arg: A): T => {
  const failed = (error: unknown): never => {
    void quietly(finishRun(s, 'hook-failed', status, error, false));
    throw error;
  };
  let result: T;
  try {
    result = call(arg);
  } catch (error) {
    return failed(error);
  }
  return isThenable(result) ? (Promise.resolve(result).catch(failed) as T) : result;
};

/**
 * Waits `ms` with the policy's sleep. When `signal` aborts, rejects with its reason at once and
 * finishes the run as `aborted`; also when an injected sleep ignored the signal and resolved after
 * it fired, so that no adapter starts an attempt the caller has already given up on.
 */
export const waitBetween = async (s: SequenceState, ms: number, signal?: AbortSignal): Promise<void> => {
  try {
    await s.options.sleep(ms, signal);
    if (signal?.aborted) throw signal.reason;
  } catch (error) {
    // The run is over with the abort; an onFinish that rejects does not replace the reason.
    void quietly(finishRun(s, 'aborted', undefined, error, false));
    throw error;
  }
  s.totalDelayMs += ms;
};

/**
 * Finishes the run (once; later calls do nothing): its summary, `jitterbug:run:end`, `onFinish`,
 * whose promise it returns if it returned one (its rejection is the caller's to handle or drop).
 */
export const finishRun = (
  s: SequenceState,
  reason: StopReason,
  status: number | undefined,
  error: unknown,
  success: boolean,
): void | Promise<void> => {
  const told = close(s, reason, status, error, success);
  return isThenable(told) ? Promise.resolve(told).then(nothing) : undefined;
};

/**
 * Sets what the attempt about to be sent carries, when anything is to be set: `undefined` at once
 * when nothing is (nearly always), else a promise only when `beforeRetry` returned one. A hook that
 * throws or rejects has finished the run (`hook-failed`); its error goes on to the caller. (The
 * attempt sequence applies the edits itself, as a step: `sequence-attempt.ts`.)
 */
export const editAttempt = (
  s: SequenceState,
  request: EditableRequest,
  kind: AttemptKind,
): void | Promise<void> => {
  if (!hasAttemptHook(s.options, request, kind)) return applyEdits(s, request, kind) as void | Promise<void>;
  return hook(
    s,
    s.lastOutcome?.status,
    () => applyEdits(s, request, kind),
    undefined,
  ) as void | Promise<void>;
};
