/**
 * What every adapter re-exports (`export * from '@jitterbug/core/public-api'`), so that a user of one
 * adapter finds the same names in it as in another and need not add `@jitterbug/core`: the options'
 * types, `createRetryPolicy`, the opt-in features' factories, `getRetryInfo` and `ResumeError`.
 *
 * @packageDocumentation
 */
export {
  type AdaptiveThrottle,
  type AdaptiveThrottleOptions,
  type AttemptInfo,
  type BackoffOptions,
  type CallOverrides,
  type Cooldown,
  createAdaptiveThrottle,
  createCooldown,
  createHedging,
  createResume,
  createRetryBudget,
  createRetryPolicy,
  type GiveUpEvent,
  getRetryInfo,
  type HedgeOptions,
  type Hedging,
  type Resume,
  ResumeError,
  type RetryAfterOptions,
  type RetryBudget,
  type RetryBudgetOptions,
  type RetryEvent,
  type RetryInfo,
  type RetryOptions,
  type RetryOverrides,
  type RetryPolicy,
  type RetryPolicyOptions,
  type RetryPolicyOrOptions,
  type RetryReason,
  type RouteRule,
  type StopReason,
} from './index.ts';
