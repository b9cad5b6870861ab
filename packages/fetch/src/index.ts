/**
 * `@jitterbug/fetch`: retries with exponential backoff and jitter for any WHATWG fetch — browsers,
 * Node, Bun, Deno, Cloudflare Workers — decided by `@jitterbug/core`.
 *
 * @packageDocumentation
 */
export {
  type AttemptInfo,
  type BackoffOptions,
  createRetryPolicy,
  type GiveUpEvent,
  getRetryInfo,
  ResumeError,
  type RetryAfterOptions,
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
} from '@jitterbug/core';
export type { FetchInit, FetchInput } from './call.ts';
export { type RetryingFetch, withRetry } from './with-retry.ts';
