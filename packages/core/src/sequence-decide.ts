/**
 * How the attempt sequence decides on an attempt's result: counted, observed, `shouldRetry` or
 * `isFailure`, the pure `decide`, the features' reviews; then a retry told (`onRetry`) and its
 * answer dropped, or the run's end (after `onGiveUp` when it gave up).
 */
import { channels, observed } from '#diagnostics';
import { attemptInfoOf, looksFine, outcomeOf } from './attempt-outcome.ts';
import { type AttemptOutcome, type Decision, decide, decideByStatus } from './decide.ts';
import { errorCode } from './errors.ts';
import type { Mutable, RetryEvent, StopReason } from './options.ts';
import { giveUpEventOf, retryEventOf } from './run-events.ts';
import { ask, end, fail } from './sequence-end.ts';
import { callHook } from './sequence-hook.ts';
import {
  DECISION,
  DISCARD,
  FINISH,
  GIVE_UP,
  ON_RETRY,
  OVER,
  PREPARE_FAILED,
  VERDICT,
} from './sequence-stages.ts';
import { type SequenceState, spare } from './sequence-state.ts';
import type { AttemptResult, Step } from './steps.ts';

/** A status that settles the request by itself: the run's end; `undefined` when its result is needed. */
export const settleByStatus = (s: SequenceState, status: number): Step | undefined => {
  const o = s.options;
  const settled = o.observing ? undefined : decideByStatus(status, o);
  if (settled === undefined) return undefined;
  s.attempts++;
  o.progress.answers++;
  if (observed) attemptEnded(s, status, undefined, undefined);
  s.decision = settled;
  return end(s, settled.reason, status, undefined, status < 400, FINISH);
};

/** Decides on the result of the attempt just answered: counted, observed, then `shouldRetry`. */
export const decideResult = (s: SequenceState, result: AttemptResult): Step => {
  if ('status' in result) {
    const step = settleByStatus(s, result.status);
    if (step !== undefined) return step;
  }
  s.attempts++;
  const outcome = outcomeOf(s, result);
  const o = s.options;
  // An intermediary's answer that it never sent the request on is no sign that servers serve.
  if (outcome.status !== undefined && !outcome.notForwarded) {
    o.progress.answers++;
    if (o.statusCodes.has(outcome.status)) o.progress.failedAt = o.progress.answers;
  }
  if (o.observing) for (const feature of o.features) feature.observe?.(s, outcome);
  if (observed) attemptEnded(s, outcome.status, outcome.error, outcome.code);
  // shouldRetry is asked about failures only (a 200 is never sent again for `() => true`), and
  // isFailure about the responses that look like successes.
  const { status } = outcome;
  const askHook = looksFine(status, o) ? o.isFailure : o.shouldRetry;
  if (!askHook || outcome.aborted || !o.retry) return decideOutcome(s, outcome);
  const info = attemptInfoOf(s, outcome, result);
  // Concluded with its verdict (`done` at VERDICT): isFailure's `false` is no opinion, the response
  // is the success it looks like.
  s.lastOutcome = outcome;
  return callHook(s, VERDICT, status, askHook, info);
};

/**
 * Turns the pure decision into the run's state and events: `decide`, then each feature's review,
 * innermost first; then a retry's event (the features', `jitterbug:retry`, `onRetry`), or the end.
 */
export const decideOutcome = (s: SequenceState, outcome: AttemptOutcome): Step => {
  const o = s.options;
  const { features } = o;
  const { status, error } = outcome;
  s.lastOutcome = outcome;
  let decision = decide(outcome, o);
  for (let i = features.length - 1; i >= 0; i--) {
    const review = features[i]!.review;
    if (review) decision = review(s, outcome, decision);
  }
  s.decision = decision;
  if (!decision.retry) {
    // A response the user asked to retry is not a success, whatever its status.
    const success = status !== undefined && status < 400 && !outcome.forced && outcome.verdict !== true;
    return stop(s, decision.reason, decision.gaveUp, status, error, success, decision.refusedDelayMs);
  }
  const { reason } = decision;
  s.backoffState = decision.nextBackoffState;
  s.retries ??= [];
  s.retries.push(reason);
  // A transparent retry does not count in maxAttempts: the server never saw the attempt.
  if (reason === 'unprocessed' || reason === 'not-forwarded') {
    s.transparentRetries++;
    s.stalledRetries = outcome.progressed ? 0 : s.stalledRetries + 1;
    s.answersSeen = o.progress.answers;
  }
  if (decision.uncounted) s.uncountedRetries++;
  if (decision.serverDelayUnread === true) s.unread++;
  // The retry's event is made only when someone is told it (a simulation's retries tell no one).
  let event: Mutable<RetryEvent> | undefined;
  for (let i = 0; i < features.length; i++) {
    const feature = features[i]!;
    if (!feature.retrying) continue;
    event ??= retryEventOf(s, decision, status, error);
    feature.retrying(s, event);
  }
  if (observed && channels.retry.hasSubscribers) {
    event ??= retryEventOf(s, decision, status, error);
    channels.retry.publish({ ...event, run: s });
  }
  const { onRetry } = o;
  if (!onRetry) return retry(s);
  return callHook(s, ON_RETRY, status, onRetry, event ?? retryEventOf(s, decision, status, error));
};

/** A retry, decided and told: the answer is dropped, then the wait. */
export const retry = (s: SequenceState): Step => {
  s.delayMs = (s.decision as Extract<Decision, { readonly retry: true }>).delayMs;
  // A failure while offline waits until the browser is back online (the driver's wait ends at the
  // `online` event: `untilOnline`).
  if (s.decision!.reason === 'offline') s.aside!.offlineSinceMs = s.options.now();
  const then = s.afterEnd;
  if (then === DECISION) return ask(s, OVER, 'discard');
  if (then === PREPARE_FAILED) return fail(s, s.error);
  s.holding = false;
  return ask(s, DISCARD, 'discard');
};

/**
 * Ends the run as `reason`: when it gave up on a failure that is normally retried, `onGiveUp` and
 * `jitterbug:give-up` are told first (with the delay that was not waited).
 */
export const stop = (
  s: SequenceState,
  reason: StopReason,
  gaveUp: boolean,
  status: number | undefined,
  error: unknown,
  success: boolean,
  refusedDelayMs: number | undefined,
): Step => {
  if (!gaveUp) return end(s, reason, status, error, success, FINISH);
  const event = giveUpEventOf(s, reason, status, error, refusedDelayMs);
  if (observed && channels.giveUp.hasSubscribers) channels.giveUp.publish({ ...event, run: s });
  const { onGiveUp } = s.options;
  if (!onGiveUp) return end(s, reason, status, error, success, FINISH);
  spare(s).ending = { reason, status, error, success };
  return callHook(s, GIVE_UP, status, onGiveUp, event);
};

/** Publishes the end of the attempt just counted. */
const attemptEnded = (
  s: SequenceState,
  status: number | undefined,
  error: unknown,
  code: string | undefined,
): void => {
  if (observed && channels.attemptEnd.hasSubscribers) {
    channels.attemptEnd.publish({
      run: s,
      attempt: s.attempts,
      status,
      error,
      errorCode: code ?? (status === undefined ? errorCode(error) : undefined),
    });
  }
};
