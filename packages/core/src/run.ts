/**
 * `RetryRun`: a request's run, as adapters name it. It is the attempt sequence (`sequence.ts`),
 * whose older methods (`beforeAttempt`, `settle`, `next`, `wait`, …) are its compatibility surface.
 */

export { NO_HEADERS } from './attempt-outcome.ts';
export { after, quietly } from './maybe-promise.ts';
export { AttemptSequence as RetryRun } from './sequence.ts';
export type { AttemptResult } from './steps.ts';
export type { HoldSignal, RetryRequest } from './types.ts';
