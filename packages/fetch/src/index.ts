/**
 * `@jitterbug/fetch`: retries with exponential backoff and jitter for any WHATWG fetch — browsers,
 * Node, Bun, Deno, Cloudflare Workers — decided by `@jitterbug/core`.
 *
 * @packageDocumentation
 */
export * from '@jitterbug/core';
export type { FetchInit, FetchInput } from './call.ts';
export { type RetryingFetch, withRetry } from './with-retry.ts';
