/**
 * `@jitterbug/core/adapter`: what an adapter needs to plug a client into the core, and a user does
 * not: a policy's runs, the attempt loop and its transports, the per-attempt timer, the option
 * checks, the body helpers, the protocol parsing. See "Writing an adapter" in the core's README.
 *
 * @packageDocumentation
 */

export { asLayer, insideLayer, interceptorMade, marking } from '#layers';
export { type AttemptKind, type EditableRequest, editAttempt, generatedKey } from './attempt-edits.ts';
export { type AttemptTimer, attemptTimer, type SignalLike, startTimer } from './attempt-timer.ts';
export { backoffStrategies, exponentialEnvelope, unitRandom } from './backoff.ts';
export { type BodyKind, type BufferedStream, bodyKind, bufferStream, bufferWebStream } from './body.ts';
export { type CheckedOptions, checkOptions, type OptionCheck, policyFor } from './check-options.ts';
export {
  type AttemptOutcome,
  type Decision,
  decide,
  decideByStatus,
  defaultRetry,
  methodAllowsRetry,
  type StopDecision,
} from './decide.ts';
export { runAttempts, type Transport } from './drive/promise.ts';
export { describeError, errorCode, UNPROCESSED_ERROR_CODES } from './errors.ts';
export { isRetryBudget } from './features/budget.ts';
export { isCredentialRefresh } from './features/credential.ts';
export { branded, type FeatureKind, isFeature, type RunFeature, type Turn } from './features/feature.ts';
export { type HedgedCopies, HedgeRace, lost } from './features/hedge-race.ts';
export { isHedging } from './features/hedging.ts';
export { createLatencyWindow, type LatencyWindow } from './features/latency-window.ts';
export { isPacer } from './features/pacer.ts';
export {
  checkResumed,
  isResume,
  type ResumeSender,
  resumeDecision,
  resumeHeaders,
  resumeValidator,
} from './features/resume.ts';
export { isAdaptiveThrottle } from './features/throttle.ts';
export { forceRetry } from './force.ts';
export { asRetryLayer, isRetryLayer, LAYER } from './layer.ts';
export {
  attemptMayRetry,
  mayRetry,
  maySendAgain,
} from './may-retry.ts';
export { fail, noOptions, numberIn } from './option-error.ts';
export type { Mutable, ResolvedOptions } from './options.ts';
export { compilePathPattern } from './path-pattern.ts';
export {
  createPolicy,
  isRetryPolicy,
  type RouteTable,
  toRetryPolicy,
  upperMethod,
} from './policy.ts';
export { type PrivateSlot, privateSlot } from './private-slot.ts';
export {
  type AdvertisedQuota,
  advertisedQuota,
  parseList,
  parseRateLimit,
  parseRateLimitPolicy,
  type QuotaPolicy,
  type ServiceLimit,
} from './rate-limit-fields.ts';
export {
  MAX_SERVER_DELAY_MS,
  parseDelayMs,
  parseHttpDate,
  parseRateLimitReset,
  parseRateLimitWait,
  parseRetryAfter,
  type ServerDelaySource,
  serverDelay,
} from './retry-after.ts';
export { setRetryInfo } from './retry-info.ts';
export { type AttemptResult, type HoldSignal, NO_HEADERS, type RetryRequest, RetryRun } from './run.ts';
export { AttemptSequence } from './sequence.ts';
export { sleep } from './sleep.ts';
export type { SequencePort, Step } from './steps.ts';
