/**
 * `@jitterbug/core`: decides whether and when an HTTP request is retried. No dependencies and no
 * I/O beyond an injectable sleep; the adapters (`@jitterbug/fetch`, `@jitterbug/ky`,
 * `@jitterbug/axios`, `@jitterbug/undici`) plug it into each client and re-export everything here.
 * This entry point is what a user writes: the policy, the opt-in features' factories, the retry
 * summary, the errors a request can fail with, and their types. What adapters need is in
 * `@jitterbug/core/adapter`; the event channels are in `@jitterbug/core/diagnostics`.
 *
 * @packageDocumentation
 */
export {
  type Backoff,
  type BackoffParams,
  type BackoffState,
  type BackoffStrategyName,
  constant,
  decorrelated,
  equal,
  exponential,
  full,
  initialBackoffState,
  nextDelay,
  type RandomSource,
} from './backoff.ts';
export { createRetryPolicy } from './create-retry-policy.ts';
export { AttemptTimeoutError, DEFAULT_ERROR_CODES } from './errors.ts';
export {
  type AttemptHeaders,
  type AttemptHeadersOptions,
  createAttemptHeaders,
} from './features/attempt-headers.ts';
export {
  type BodyBuffering,
  type BodyBufferingOptions,
  createBodyBuffering,
} from './features/body-buffering.ts';
export {
  createRetryBudget,
  DEFAULT_BUDGET,
  type RetryBudget,
  type RetryBudgetOptions,
} from './features/budget.ts';
export {
  CIRCUIT_BREAKER_DEFAULTS,
  type CircuitBreaker,
  type CircuitBreakerOptions,
  CircuitOpenError,
  createCircuitBreaker,
} from './features/circuit-breaker.ts';
export {
  type CredentialRefresh,
  type CredentialRefreshOptions,
  createCredentialRefresh,
} from './features/credential.ts';
export { createHedging, type HedgeOptions, type Hedging } from './features/hedging.ts';
export {
  createIdempotencyKeys,
  type IdempotencyKeyOptions,
  type IdempotencyKeys,
} from './features/idempotency-keys.ts';
export {
  createPacer,
  type Pacer,
  PacerError,
} from './features/pacer.ts';
export { createRequestEdits, type RequestEdits } from './features/request-edits.ts';
export { createResume } from './features/resumable-response.ts';
export { type Resume, ResumeError } from './features/resume.ts';
export {
  type AdaptiveThrottle,
  type AdaptiveThrottleOptions,
  createAdaptiveThrottle,
  DEFAULT_THROTTLE,
  ThrottledError,
} from './features/throttle.ts';
export {
  type AttemptInfo,
  type BackoffOptions,
  type CallOverrides,
  DEFAULTS,
  type DelaySource,
  type GiveUpEvent,
  type MaybePromise,
  type NextAttempt,
  type RetryAfterOptions,
  type RetryEvent,
  type RetryInfo,
  type RetryOptions,
  type RetryOverrides,
  type RetryPolicyOptions,
  type RetryReason,
  type RouteMatch,
  type RouteRule,
  type StopReason,
} from './options.ts';
export type { RetryPolicy, RetryPolicyOrOptions } from './policy.ts';
export { seededBits, seededRandom } from './random.ts';
export type { HeaderGetter } from './retry-after.ts';
export { getRetryInfo } from './retry-info.ts';
export type { Sleep } from './sleep.ts';
