/**
 * `attachRetry`: one request interceptor that swaps the request's adapter for a retrying one.
 */
import type { RetryPolicyOrOptions } from '@jitterbug/core';
import { toRetryPolicy } from '@jitterbug/core/adapter';
import type { AxiosInstance, InternalAxiosRequestConfig } from 'axios';
import { retryingAdapters, unwrapAdapter } from './retrying-adapter.ts';

/**
 * Adds jitterbug retries to an axios instance. Retries happen inside the request's adapter, below
 * the interceptors and transforms: your own request and response interceptors, `transformRequest`
 * and `transformResponse` run once per request, whatever the instance's `validateStatus`.
 *
 * @param instance - the axios instance (`axios.create()`, or `axios` itself).
 * @param optionsOrPolicy - `createRetryPolicy` options, or a policy to share (and its retry budget)
 *   with other clients. Default: the core's defaults.
 * @returns a function that removes the interceptor again (requests already sent keep retrying).
 * @throws TypeError naming the option when an option is invalid.
 *
 * @example
 * ```ts
 * const api = axios.create({ baseURL: 'https://api.example.com' });
 * const detach = attachRetry(api, { maxAttempts: 4 });
 * const { data } = await api.get('/items');
 * ```
 */
export const attachRetry = (
  instance: AxiosInstance,
  optionsOrPolicy?: RetryPolicyOrOptions,
): (() => void) => {
  const policy = toRetryPolicy(optionsOrPolicy);
  const adapterFor = retryingAdapters(policy);
  const id = instance.interceptors.request.use(
    (config: InternalAxiosRequestConfig) => {
      config.adapter = adapterFor(unwrapAdapter(config.adapter));
      return config;
    },
    undefined,
    // Synchronous: adding this interceptor does not make axios defer the request by a tick.
    { synchronous: true },
  );
  let attached = true;
  return () => {
    if (!attached) return;
    attached = false;
    instance.interceptors.request.eject(id);
  };
};
