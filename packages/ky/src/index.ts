/**
 * `@jitterbug/ky`: retries for ky (1.14+ and 2) decided by `@jitterbug/core` — backoff with jitter,
 * `Retry-After`, a retry budget, per-route rules — through ky's `fetch` option, in every runtime.
 *
 * @packageDocumentation
 */
import type { CallOverrides } from '@jitterbug/core';

export * from '@jitterbug/core';
export { createForcedRetries, type ForcedRetries } from './forced-retries.ts';
export { type KyAdapterOptions, type KyRetryOptions, kyRetry } from './ky-retry.ts';

declare module 'ky' {
  interface Options {
    /** This call's overrides of the jitterbug policy's options, or `false` to send it once. */
    jitterbug?: CallOverrides | false;
  }
}
