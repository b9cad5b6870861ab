/**
 * `RetryRun`: a request's run, as adapters name it. It is the attempt sequence (`sequence.ts`); a
 * driver that takes decisions rather than steps (undici's, until it drives the steps) uses the
 * functions of `decision-methods.ts`.
 */

export { NO_HEADERS } from './attempt-outcome.ts';
export { after, quietly } from './maybe-promise.ts';
export { AttemptSequence as RetryRun } from './sequence.ts';
export type { AttemptResult } from './steps.ts';
export type { HoldSignal, RetryRequest } from './types.ts';
