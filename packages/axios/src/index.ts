/**
 * `@jitterbug/axios`: retries with exponential backoff and jitter for axios, decided by
 * `@jitterbug/core`. One call, {@link attachRetry}, adds them to an instance; a request's own
 * settings go in its config's `jitterbug` field.
 *
 * @packageDocumentation
 */
export * from '@jitterbug/core';
export { type AxiosAdapterOptions, attachRetry } from './attach.ts';
export type { CallRetryOptions } from './call-options.ts';
export { createDiscardedBodyCap, type DiscardedBodyCap } from './capped-bodies.ts';
export { AxiosTransportError } from './outcome.ts';
