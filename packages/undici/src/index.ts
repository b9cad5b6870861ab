/**
 * `@jitterbug/undici`: retries with exponential backoff and jitter for undici's `request()`, undici's
 * `fetch()` and Node's global `fetch`, as a `Dispatcher.compose` interceptor.
 *
 * @packageDocumentation
 */
export * from '@jitterbug/core';
export { DEFAULT_KNOWN_LENGTH_BODY_MAX_BYTES, type UndiciAdapterOptions } from './adapter-options.ts';
export { jitterbugOptions } from './call-options.ts';
export { ATTEMPTS_HEADER, readInfoHeaders, TOTAL_DELAY_HEADER } from './info-headers.ts';
export { retryInterceptor } from './interceptor.ts';
export { RetryStatusError, type StatusErrorClass } from './status-error.ts';
export type { RetryDispatch, RetryInterceptor } from './types.ts';
