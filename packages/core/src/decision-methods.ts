/**
 * The run's older methods, which return the decision rather than the next step: undici's state
 * machine, the features' modules (a resume, a forced retry, ky's hooks) and the core README's
 * hand-written loop drive a run by them. Each runs the sequence's own steps (`sequence-*.ts`) to
 * their decision, so the order and the rules stay the sequence's. They return plain values when no
 * hook returns a promise, and a promise otherwise; an adapter awaits only an actual `Promise`.
 */
import { channels, observed } from '#diagnostics';
import type { AttemptOutcome, Decision, StopDecision } from './decide.ts';
import { isThenable, nothing, quietly } from './maybe-promise.ts';
import type { StopReason } from './options.ts';
import { admission, refused } from './sequence-attempt.ts';
import { decideOutcome, decideResult, settleByStatus } from './sequence-decide.ts';
import { close } from './sequence-end.ts';
import { DECISION } from './sequence-stages.ts';
import type { SequenceState } from './sequence-state.ts';
import type { AttemptResult, Step } from './steps.ts';
import type { HoldSignal } from './types.ts';

/** The steps from here end in the decision, not in an answer. */
const forDecision = (s: SequenceState): void => {
  s.afterEnd = DECISION;
  s.holding = false;
};

/** See `RetryRun.beforeAttempt`. */
export const beforeAttempt = (s: SequenceState, signal?: HoldSignal): void | Promise<void> => {
  const turn = s.options.admitting.length === 0 ? undefined : admission(s);
  if (!turn) {
    if (observed && channels.attemptStart.hasSubscribers) {
      channels.attemptStart.publish({ run: s, attempt: s.attempts + 1 });
    }
    return undefined;
  }
  if ('holdMs' in turn) {
    return wait(s, turn.holdMs, signal && 'aborted' in signal ? signal : signal?.signal());
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

/** See `RetryRun.settle`. */
export const settle = (
  s: SequenceState,
  status: number,
): StopDecision | Promise<StopDecision> | undefined => {
  s.afterEnd = DECISION;
  const step = settleByStatus(s, status);
  if (step === undefined) return undefined;
  // Nearly always: no onFinish promise to wait for.
  return (step === 'deliver' ? s.decision : decisionOf(s, step)) as StopDecision | Promise<StopDecision>;
};

/** See `RetryRun.next`. */
export const next = (s: SequenceState, result: AttemptResult): Decision | Promise<Decision> => {
  forDecision(s);
  return decisionOf(s, decideResult(s, result));
};

/** See `RetryRun.conclude`. */
export const conclude = (s: SequenceState, outcome: AttemptOutcome): Decision | Promise<Decision> => {
  forDecision(s);
  return decisionOf(s, decideOutcome(s, outcome));
};

/** See `RetryRun.hook`. */
export const hook = <A, T>(s: SequenceState, status: number | undefined, call: (arg: A) => T, arg: A): T => {
  const failed = (error: unknown): never => {
    void quietly(finish(s, 'hook-failed', status, error, false));
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

/** See `RetryRun.wait`. */
export const wait = async (s: SequenceState, ms: number, signal?: AbortSignal): Promise<void> => {
  try {
    await s.options.sleep(ms, signal);
    if (signal?.aborted) throw signal.reason;
  } catch (error) {
    // The run is over with the abort; an onFinish that rejects does not replace the reason.
    void quietly(finish(s, 'aborted', undefined, error, false));
    throw error;
  }
  s.totalDelayMs += ms;
};

/** See `RetryRun.finish`. */
export const finish = (
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
 * Runs the sequence's steps that need no I/O (the hooks' promises, if any) to the decision they
 * end in; throws (or rejects with) the error the request fails with.
 */
const decisionOf = (s: SequenceState, step: Step): Decision | Promise<Decision> => {
  for (;;) {
    if (step === 'await') {
      return Promise.resolve(s.pending).then(
        (value) => decisionOf(s, s.done(value)),
        (error: unknown) => decisionOf(s, s.failed(error)),
      );
    }
    if (step === 'fail') throw s.error;
    if (step !== 'drop') return s.decision!;
    step = s.proceed();
  }
};
