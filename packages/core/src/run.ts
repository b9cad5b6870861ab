/**
 * `RetryRun`: a request's run, as adapters name it. It is the attempt sequence (`sequence.ts`),
 * whose older methods (`beforeAttempt`, `settle`, `next`, `wait`, …) are its compatibility surface.
 */
export { after, quietly } from './maybe-promise.ts';
export { AttemptSequence as RetryRun, NO_HEADERS } from './sequence.ts';
export type { AttemptResult } from './steps.ts';
export type { HoldSignal, RetryRequest } from './types.ts';
