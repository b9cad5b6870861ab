/**
 * A decision of the attempt sequence taken after its answer was handed over (a retry the user forces,
 * a delivered body that broke and is resumed): the sequence's own steps on the outcome, run to the
 * decision they end in rather than to a step for a driver. The features' modules that decide so
 * (`force.ts`, `features/resume-decision.ts`) import this, never a driver's functions.
 */
import type { AttemptOutcome, Decision } from './decide.ts';
import { quietly } from './maybe-promise.ts';
import { decideOutcome } from './sequence-decide.ts';
import { finishRun } from './sequence-end.ts';
import { DECISION } from './sequence-stages.ts';
import type { SequenceState } from './sequence-state.ts';
import type { Step } from './steps.ts';

/** The steps from here end in the decision, not in an answer. */
export const forDecision = (s: SequenceState): void => {
  s.afterEnd = DECISION;
  s.holding = false;
};

/**
 * The decision on `outcome`, of the attempt last counted: `decide`, then each feature's review,
 * innermost first, then `onRetry` or the run's end (a resume, a forced retry).
 */
export const concludeOn = (s: SequenceState, outcome: AttemptOutcome): Decision | Promise<Decision> => {
  forDecision(s);
  return decisionOf(s, decideOutcome(s, outcome));
};

/**
 * Runs the sequence's steps that need no I/O (the hooks' promises, if any) to the decision they
 * end in; throws (or rejects with) the error the request fails with.
 */
export const decisionOf = (s: SequenceState, step: Step): Decision | Promise<Decision> => {
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
