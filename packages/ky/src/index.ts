/**
 * `@jitterbug/ky`: retries for ky (1.14+ and 2) decided by `@jitterbug/core` — backoff with jitter,
 * `Retry-After`, per-route rules, a retry budget — in place of ky's own retry.
 *
 * @packageDocumentation
 */
export {
  createRetryPolicy,
  type GiveUpEvent,
  getRetryInfo,
  type RetryEvent,
  type RetryInfo,
  type RetryOptions,
  type RetryPolicy,
  type RetryPolicyOrOptions,
  type RetrySummary,
  type RouteRule,
  type StopReason,
} from '@jitterbug/core';
export { type KyAdapterOptions, type KyRetryOptions, kyMajorOf, kyRetry } from './ky-retry.ts';
