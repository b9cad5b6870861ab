/**
 * `RetryRun`: a request's run, as adapters name it. It is the attempt sequence (`sequence.ts`),
 * which every driver drives by its steps (`steps.ts`).
 */

export { NO_HEADERS } from './attempt-outcome.ts';
export { after, quietly } from './maybe-promise.ts';
export { AttemptSequence as RetryRun } from './sequence.ts';
export type { AttemptResult } from './steps.ts';
export type { HoldSignal, RetryRequest } from './types.ts';
