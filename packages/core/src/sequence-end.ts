/**
 * How the attempt sequence ends a run: once, with its summary and `onFinish` (waited for or not),
 * then the answer handed over, the request's failure, or the decision (for a decision taken after
 * the answer was handed over, `sequence-conclude.ts`).
 */
import { channels, observed } from '#diagnostics';
import { isThenable, nothing } from './maybe-promise.ts';
import type { StopReason } from './options.ts';
import { summaryOf } from './run-summary.ts';
import {
  DECISION,
  DELIVER,
  DELIVERED,
  DROPPED,
  FAIL,
  FAILING,
  type FinishMode,
  OVER,
  QUIET,
} from './sequence-stages.ts';
import type { SequenceState } from './sequence-state.ts';
import type { Step } from './steps.ts';

/** Gives `step`, whose outcome is told at `stage`. */
export const ask = (s: SequenceState, stage: number, step: Step): Step => {
  s.stage = stage;
  return step;
};

/** What follows the run's end is the request's failure, with `error`. */
export const failing = (s: SequenceState, error: unknown): void => {
  s.error = error;
  s.afterEnd = FAIL;
};

/**
 * The caller gave up (their signal aborted): the run ends as `aborted`, with `onFinish` taken as
 * `mode` says, and the request fails with `reason`.
 */
export const aborted = (s: SequenceState, reason: unknown, mode: FinishMode): Step => {
  failing(s, reason);
  return end(s, 'aborted', undefined, reason, false, mode);
};

/**
 * A hook of the caller's threw or rejected: the run ends as `hook-failed`, with the hook's error and
 * the attempt's `status` (so that `onFinish`, the summary and `jitterbug:run:end` see every request;
 * `onFinish` is not waited for), and the request fails with that error.
 */
export const hookFailed = (s: SequenceState, error: unknown, status: number | undefined): Step => {
  if (s.aside) s.aside.ending = undefined;
  failing(s, error);
  return end(s, 'hook-failed', status, error, false, DROPPED);
};

/**
 * Ends the run as `reason` (once: a finished run stays as it ended), then `onFinish`, which `mode`
 * waits for or not; then what follows the end. An `onFinish` that throws fails the request with its
 * error.
 */
export const end = (
  s: SequenceState,
  reason: StopReason,
  status: number | undefined,
  error: unknown,
  success: boolean,
  mode: FinishMode,
): Step => {
  let told: unknown;
  try {
    told = close(s, reason, status, error, success);
  } catch (thrown) {
    return fail(s, thrown);
  }
  if (isThenable(told)) {
    if (mode !== DROPPED) {
      s.pending = told;
      return ask(s, mode, 'await');
    }
    told.then(nothing, nothing);
  }
  const afterEnd = s.afterEnd;
  if (afterEnd === DELIVER) {
    s.stage = DELIVERED;
    return 'deliver';
  }
  if (afterEnd === DECISION) {
    s.stage = OVER;
    return 'deliver';
  }
  return ended(s);
};

/** What follows the run's end. */
export const ended = (s: SequenceState): Step => {
  const then = s.afterEnd;
  if (then === DELIVER) return ask(s, DELIVERED, 'deliver');
  if (then === DECISION) return ask(s, OVER, 'deliver');
  // The request fails: an abort, a refusal, a hook's error, or a failure before the first
  // attempt, whatever was decided on it.
  return fail(s, s.error);
};

/**
 * The request fails with `error`: an answer the driver holds is dropped first; the run ends as
 * `error-not-retryable` if nothing ended it before (a request its client refused before any
 * attempt, a step that broke).
 */
export const fail = (s: SequenceState, error: unknown): Step => {
  failing(s, error);
  s.aside?.race?.end();
  if (!s.holding) return failNow(s);
  s.holding = false;
  return ask(s, FAILING, 'drop');
};

/** Ends the request with the decision's failure, now (no feature holds it back). */
export const failNow = (s: SequenceState): Step => {
  if (s.summary) return ask(s, OVER, 'fail');
  return end(s, 'error-not-retryable', undefined, s.error, false, QUIET);
};

/**
 * Finishes the run (once; later calls do nothing): its summary, the features' part of it,
 * `jitterbug:run:end`; returns what `onFinish` returned.
 */
const close = (
  s: SequenceState,
  reason: StopReason,
  status: number | undefined,
  error: unknown,
  success: boolean,
): unknown => {
  if (s.summary) return undefined;
  const o = s.options;
  // A spent quota's stop says when it is back (the decision that ended the run).
  const quotaResetAt =
    reason === 'quota-exceeded' && s.decision && !s.decision.retry ? s.decision.quotaResetAt : undefined;
  const summary = summaryOf(s, reason, status, error, success, quotaResetAt);
  const { finishing } = o;
  for (let i = 0; i < finishing.length; i++) finishing[i]!.finish!(s, summary);
  s.summary = summary;
  if (observed && channels.runEnd.hasSubscribers) channels.runEnd.publish({ run: s, info: summary });
  return o.onFinish ? o.onFinish(summary) : undefined;
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
