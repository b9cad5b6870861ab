/**
 * One request's own retry settings, in the axios idiom: a `jitterbug` field of the request config,
 * typed here by augmenting axios' `AxiosRequestConfig` (as axios-retry does for `'axios-retry'`).
 */
import type { CallOverrides } from '@jitterbug/core';

/**
 * What a request's `jitterbug` field takes: options that override the policy's (after its route
 * rule) for this request only, or `false` to send it once. Not `hedge`: a percentile delay needs the
 * latencies a policy or a route shares.
 */
export type CallRetryOptions = CallOverrides | false;

declare module 'axios' {
  // The type parameters of a merged declaration must be a prefix of axios' own: `D` alone fits both
  // axios 1.19+ (`<D = any, P = any>`) and the versions before (`<D = any>`), for TypeScript 5.7 too.
  interface AxiosRequestConfig<D> {
    /**
     * jitterbug's settings for this request only (`@jitterbug/axios`): `{ maxAttempts: 5 }`, or
     * `false` to send it once. Invalid settings reject the request with a `TypeError` naming
     * `jitterbug.<option>`, before anything is sent. An instance default (`axios.create({ jitterbug })`)
     * applies to each of its requests, merged with a request's own as axios merges configs.
     */
    jitterbug?: CallRetryOptions | undefined;
  }
}
