/**
 * `@jitterbug/axios`: retries with exponential backoff and jitter for axios, decided by
 * `@jitterbug/core`. One call, {@link attachRetry}, adds them to an instance.
 *
 * @packageDocumentation
 */
export {
  type AttemptInfo,
  type BackoffOptions,
  createRetryPolicy,
  type GiveUpEvent,
  getRetryInfo,
  type RetryAfterOptions,
  type RetryEvent,
  type RetryInfo,
  type RetryOptions,
  type RetryPolicy,
  type RetryPolicyOrOptions,
  type RouteRule,
  type StopReason,
} from '@jitterbug/core';
export { attachRetry } from './attach.ts';
export { AxiosTransportError } from './outcome.ts';
