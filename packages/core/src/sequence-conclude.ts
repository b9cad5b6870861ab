/**
 * A decision of the attempt sequence taken after its answer was handed over (a retry the user forces,
 * a delivered body that broke and is resumed): the sequence's own steps on the outcome, run to the
 * decision they end in rather than to a step for a driver. The features' modules that decide so
 * (`force.ts`, `features/resume-decision.ts`) import this, never a driver's functions.
 */
import type { AttemptOutcome, Decision } from './decide.ts';
import { decideOutcome } from './sequence-decide.ts';
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
