/**
 * `@jitterbug/core`: decides whether and when an HTTP request is retried. No dependencies and no
 * I/O beyond an injectable sleep; the adapters (`@jitterbug/axios`, `@jitterbug/ky`,
 * `@jitterbug/undici`) translate their client's requests into these terms.
 *
 * @packageDocumentation
 */
export {
  type AdaptiveThrottle,
  type AdaptiveThrottleOptions,
  createAdaptiveThrottle,
  DEFAULT_THROTTLE,
  isAdaptiveThrottle,
} from './adaptive-throttle.ts';
export { attemptMayRetry } from './attempt-may-retry.ts';
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
export { type BodyKind, type BufferedStream, bodyKind, bufferStream } from './body.ts';
export {
  createRetryBudget,
  DEFAULT_BUDGET,
  isRetryBudget,
  type RetryBudget,
  type RetryBudgetOptions,
} from './budget.ts';
export {
  type AttemptOutcome,
  type Decision,
  decide,
  decideByStatus,
  methodAllowsRetry,
  type StopDecision,
} from './decide.ts';
export { AttemptTimeoutError, DEFAULT_ERROR_CODES, describeError, errorCode } from './errors.ts';
export { createLatencyWindow, type LatencyWindow } from './latency-window.ts';
export { mayRetry } from './may-retry.ts';
export {
  type BackoffOptions,
  DEFAULTS,
  type DelaySource,
  type GiveUpEvent,
  type OverridableOptions,
  type ResolvedOptions,
  type RetryAfterOptions,
  type RetryEvent,
  type RetryInfo,
  type RetryOptions,
  type RetrySummary,
  type RouteMatch,
  type RouteRule,
  type StopReason,
} from './options.ts';
export { compilePathPattern } from './path-pattern.ts';
export {
  type AttemptResult,
  createRetryPolicy,
  isRetryPolicy,
  type RetryPolicy,
  type RetryPolicyOrOptions,
  type RetryRequest,
  RetryRun,
  toRetryPolicy,
} from './policy.ts';
export { type PrivateSlot, privateSlot } from './private-slot.ts';
export { seededRandom } from './random.ts';
export {
  type HeaderGetter,
  MAX_SERVER_DELAY_MS,
  parseHttpDate,
  parseRateLimitReset,
  parseRetryAfter,
  type ServerDelaySource,
  serverDelay,
} from './retry-after.ts';
export { getRetryInfo, setRetryInfo } from './retry-info.ts';
export { type Sleep, sleep } from './sleep.ts';
