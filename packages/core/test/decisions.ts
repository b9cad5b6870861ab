/**
 * The run's decisions as functions, for the core's tests: each runs the attempt sequence's own steps
 * (`sequence-*.ts`) to the decision they end in, rather than to a step for a driver, so that a test
 * can tell a run one result after another and read what was decided. Every client drives the steps
 * (`steps.ts`); these were undici's until it did. They return plain values when no hook returns a
 * promise, and a promise otherwise.
 */
import { channels, observed } from '#diagnostics';
import { type AttemptKind, applyEdits, type EditableRequest, hasAttemptHook } from '../src/attempt-edits.ts';
import type { Decision, StopDecision } from '../src/decide.ts';
import { isThenable, quietly } from '../src/maybe-promise.ts';
import { admission, refused } from '../src/sequence-attempt.ts';
import { decisionOf, forDecision, waitBetween } from '../src/sequence-conclude.ts';
import { decideResult, settleByStatus } from '../src/sequence-decide.ts';
import { finishRun } from '../src/sequence-end.ts';
import { DECISION } from '../src/sequence-stages.ts';
import type { SequenceState } from '../src/sequence-state.ts';
import type { AttemptResult } from '../src/steps.ts';
import type { HoldSignal } from '../src/types.ts';

export { finishRun, waitBetween };

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
