/**
 * `@jitterbug/core`: decides whether and when an HTTP request is retried. No dependencies and no
 * I/O beyond an injectable sleep; the adapters (`@jitterbug/fetch`, `@jitterbug/ky`,
 * `@jitterbug/axios`, `@jitterbug/undici`) translate their client's requests into these terms.
 * What adapters need and users do not is in `@jitterbug/core/adapter`.
 *
 * @packageDocumentation
 */
export {
  type AdaptiveThrottle,
  type AdaptiveThrottleOptions,
  createAdaptiveThrottle,
  DEFAULT_THROTTLE,
  isAdaptiveThrottle,
  ThrottledError,
} from './adaptive-throttle.ts';
export {
  type Backoff,
  type BackoffParams,
  type BackoffState,
  type BackoffStrategyName,
  backoffStrategies,
  constant,
  decorrelated,
  equal,
  exponential,
  exponentialEnvelope,
  full,
  initialBackoffState,
  nextDelay,
  type RandomSource,
} from './backoff.ts';
export {
  createRetryBudget,
  DEFAULT_BUDGET,
  isRetryBudget,
  type RetryBudget,
  type RetryBudgetOptions,
} from './budget.ts';
export { type Cooldown, CooldownError, createCooldown, isCooldown } from './cooldown.ts';
export { createRetryPolicy } from './create-retry-policy.ts';
export { type AttemptOutcome, type Decision, decide, type StopDecision } from './decide.ts';
export {
  type AttemptEndMessage,
  type AttemptStartMessage,
  CHANNELS,
  type GiveUpMessage,
  type RetryMessage,
  type RunEndMessage,
  type RunIdentity,
  type RunStartMessage,
} from './diagnostics/messages.ts';
export {
  AttemptTimeoutError,
  DEFAULT_ERROR_CODES,
  describeError,
  errorCode,
  UNPROCESSED_ERROR_CODES,
} from './errors.ts';
export { createHedging, type HedgeOptions, type Hedging, isHedging } from './hedge.ts';
export { createLatencyWindow, type LatencyWindow } from './latency-window.ts';
export {
  type AttemptInfo,
  type BackoffOptions,
  type CallOverrides,
  DEFAULTS,
  type DelaySource,
  type GiveUpEvent,
  type MaybePromise,
  type ResolvedOptions,
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
export { compilePathPattern } from './path-pattern.ts';
export { isRetryPolicy, type RetryPolicy, type RetryPolicyOrOptions } from './policy.ts';
export { seededRandom } from './random.ts';
export type { ResumeSender } from './resumable-response.ts';
export {
  checkResumed,
  createResume,
  isResume,
  type Resume,
  ResumeError,
  resumeHeaders,
  resumeValidator,
} from './resume.ts';
export {
  type HeaderGetter,
  MAX_SERVER_DELAY_MS,
  parseHttpDate,
  parseRateLimitReset,
  parseRetryAfter,
  type ServerDelaySource,
  serverDelay,
} from './retry-after.ts';
export { getRetryInfo } from './retry-info.ts';
export { type Sleep, sleep } from './sleep.ts';
