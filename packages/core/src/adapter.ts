/**
 * `@jitterbug/core/adapter`: what an adapter needs to plug a client into the core, and a user does
 * not: a policy's runs, the attempt loop and its transports, the per-attempt timer, the option
 * checks, the body helpers, the protocol parsing. See "Writing an adapter" in the core's README.
 *
 * @packageDocumentation
 */

export { asLayer, insideLayer, interceptorMade, marking } from '#layers';
export { type EditableRequest, requestEditing } from './attempt-edits.ts';
export { type AttemptTimer, attemptTimer, startTimer } from './attempt-timer.ts';
export { backoffStrategies } from './backoff.ts';
export { type BodyKind, type BufferedStream, bodyKind, bufferStream } from './body.ts';
export { checkOptions, policyFor } from './check-options.ts';
export type { Decision } from './decide.ts';
export { runAttempts, type Transport } from './drive/promise.ts';
export { describeError, errorCode } from './errors.ts';
export { isRetryBudget } from './features/budget.ts';
export { lost } from './features/hedge-race.ts';
export { checkResumed, resumeHeaders, resumeValidator } from './features/resume.ts';
export { resumeDecision } from './features/resume-decision.ts';
export { runForcedRetry } from './force.ts';
export { lostKeptConnection } from './kept-connection.ts';
export { asRetryLayer, isRetryLayer, LAYER } from './layer.ts';
export { attemptMayRetry, mayRetry, maySendAgain } from './may-retry.ts';
export { fail, noOptions, numberIn } from './option-error.ts';
export { isRetryPolicy, toRetryPolicy } from './policy.ts';
export { type PrivateSlot, privateSlot } from './private-slot.ts';
export { isProblemJson, problemType } from './problem-details.ts';
export { setRetryInfo } from './retry-info.ts';
export { type AttemptResult, RetryRun } from './run.ts';
export { finishRun } from './sequence-end.ts';
export type { SequencePort, Step } from './steps.ts';
