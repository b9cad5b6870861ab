/**
 * `attachRetry`: one request interceptor that swaps the request's adapter for a retrying one.
 */
import type { RetryOptions, RetryPolicy, RetryPolicyOrOptions } from '@jitterbug/core';
import { checkOptions, fail, isRetryPolicy, toRetryPolicy } from '@jitterbug/core/adapter';
import type { AxiosInstance, InternalAxiosRequestConfig } from 'axios';
import type { DiscardedBodyCap } from './capped-bodies.ts';
import { retryingAdapters, unwrapAdapter } from './retrying-adapter.ts';

/** Settings of the axios adapter itself: how jitterbug plugs into this instance (retry behaviour is the policy's). */
export interface AxiosAdapterOptions {
  /**
   * Stream mode, opt-in: `{ discardedBodyCap: createDiscardedBodyCap() }`. Each
   * attempt that could still be retried has its body read by jitterbug, at most
   * `discardBodyMaxBytes` before the decision, so that a response to be retried (a 503 with a huge
   * or endless body) is never downloaded whole; axios' `http` and `fetch` adapters only. Default:
   * axios reads every body itself, exactly as without jitterbug (your `maxContentLength` bounds a
   * body, `attemptTimeoutMs` an endless one). Its measured cost is in the README ("Discarded bodies").
   */
  readonly discardedBodyCap?: DiscardedBodyCap;
}

/** The rows of {@link AxiosAdapterOptions}. */
const ADAPTER_OPTIONS = {
  // Only what the factory made: `true` would make every bundle carry stream mode.
  discardedBodyCap: (v: unknown, n: string) =>
    typeof (v as Partial<DiscardedBodyCap> | null)?.modeOf === 'function'
      ? (v as DiscardedBodyCap)
      : fail(n, 'what createDiscardedBodyCap() returns', v),
};

/**
 * The policy of plain options, refusing the two that do nothing with axios' own body reading:
 * `resume` (axios hands over whole bodies), and `discardBodyMaxBytes` without stream mode. A policy
 * is taken as it is: it may be shared with fetch clients, which use both.
 */
const policyOf = (optionsOrPolicy: RetryPolicyOrOptions | undefined, cap: boolean): RetryPolicy => {
  const policy = toRetryPolicy(optionsOrPolicy);
  if (!isRetryPolicy(optionsOrPolicy)) {
    const { resume, discardBodyMaxBytes } = (optionsOrPolicy ?? {}) as RetryOptions;
    if (resume) fail('resume', 'false or absent with attachRetry', resume, 'axiosResume');
    if (discardBodyMaxBytes !== undefined && !cap) {
      fail('discardBodyMaxBytes', 'absent without discardedBodyCap', discardBodyMaxBytes, 'axiosDiscard');
    }
  }
  return policy;
};

/** The detach of the interceptor each instance has now, by its request interceptors. */
const attached = new WeakMap<object, () => void>();

/**
 * Adds jitterbug retries to an axios instance. Retries happen inside the request's adapter, below
 * the interceptors and transforms: your own request and response interceptors, `transformRequest`
 * and `transformResponse` run once per request, whatever the instance's `validateStatus`. A
 * request's own settings go in its config's `jitterbug` field (`false`: send it once).
 *
 * @param instance - the axios instance (`axios.create()`, or `axios` itself).
 * @param optionsOrPolicy - `createRetryPolicy` options, or a policy to share (and its retry budget)
 *   with other clients. Default: the core's defaults.
 * @param adapterOptions - how jitterbug plugs into this instance: {@link AxiosAdapterOptions}.
 * @returns a function that removes the interceptor again (requests already sent keep retrying);
 *   after a later `attachRetry` on the same instance it does nothing.
 * @throws TypeError naming the option when an option is invalid.
 *
 * @example
 * ```ts
 * const api = axios.create({ baseURL: 'https://api.example.com' });
 * const detach = attachRetry(api, { maxAttempts: 4 });
 * const { data } = await api.get('/items', { jitterbug: { maxAttempts: 6 } });
 * ```
 */
export const attachRetry = (
  instance: AxiosInstance,
  optionsOrPolicy?: RetryPolicyOrOptions,
  adapterOptions?: AxiosAdapterOptions,
): (() => void) => {
  if (typeof (instance as Partial<AxiosInstance> | undefined)?.interceptors?.request?.use !== 'function') {
    fail('instance', 'an axios instance', instance, 'attachRetry');
  }
  const { discardedBodyCap } = checkOptions(adapterOptions, ADAPTER_OPTIONS, 'attachRetry');
  const adapterFor = retryingAdapters(
    policyOf(optionsOrPolicy, discardedBodyCap !== undefined),
    discardedBodyCap,
  );
  const interceptors = instance.interceptors.request;
  // Attached before: replaced, so that one request goes through one retry layer, the last one set.
  attached.get(interceptors)?.();
  const id = interceptors.use(
    (config: InternalAxiosRequestConfig) => {
      config.adapter = adapterFor(unwrapAdapter(config.adapter));
      return config;
    },
    undefined,
    // Synchronous: adding this interceptor does not make axios defer the request by a tick.
    { synchronous: true },
  );
  let on = true;
  const detach = (): void => {
    if (!on) return;
    on = false;
    interceptors.eject(id);
    if (attached.get(interceptors) === detach) attached.delete(interceptors);
  };
  attached.set(interceptors, detach);
  return detach;
};
