/**
 * `attachRetry`: one request interceptor that swaps the request's adapter for a retrying one.
 */
import type { RetryPolicyOrOptions } from '@jitterbug/core';
import { toRetryPolicy } from '@jitterbug/core/adapter';
import type { AxiosInstance, InternalAxiosRequestConfig } from 'axios';
import type { DiscardedBodyCap } from './capped-bodies.ts';
import { retryingAdapters, unwrapAdapter } from './retrying-adapter.ts';

/** How jitterbug plugs into this axios instance (not the retry policy's options). */
export interface AttachOptions {
  /**
   * Stream mode, opt-in: pass the `capDiscardedBodies` export (`{ capDiscardedBodies }`). Each
   * attempt that could still be retried has its body read by jitterbug, at most
   * `discardBodyMaxBytes` before the decision, so that a response to be retried (a 503 with a huge
   * or endless body) is never downloaded whole; axios' `http` and `fetch` adapters only. Default:
   * axios reads every body itself, exactly as without jitterbug (your `maxContentLength` bounds a
   * body, `attemptTimeoutMs` an endless one). Its measured cost is in the README ("Discarded bodies").
   */
  readonly capDiscardedBodies?: DiscardedBodyCap;
}

const describe = (value: unknown): string =>
  typeof value === 'string' ? JSON.stringify(value) : value === null ? 'null' : String(typeof value);

/** The stream-mode opt-in, if given, or the `TypeError` naming what is wrong with `options`. */
const bodyCap = (options: unknown): DiscardedBodyCap | undefined => {
  if (options === undefined) return undefined;
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new TypeError(
      `jitterbug: attachRetry's third argument must be an object, got ${describe(options)}`,
    );
  }
  for (const key of Object.keys(options)) {
    if (key !== 'capDiscardedBodies') throw new TypeError(`jitterbug: unknown option "${key}"`);
  }
  const cap = (options as AttachOptions).capDiscardedBodies;
  // Only the export itself: `true` would make every bundle carry stream mode.
  if (cap !== undefined && typeof (cap as Partial<DiscardedBodyCap> | null)?.modeOf !== 'function') {
    throw new TypeError(
      `jitterbug: option "capDiscardedBodies" must be the capDiscardedBodies export of @jitterbug/axios, got ${describe(cap)}`,
    );
  }
  return cap;
};

/**
 * Adds jitterbug retries to an axios instance. Retries happen inside the request's adapter, below
 * the interceptors and transforms: your own request and response interceptors, `transformRequest`
 * and `transformResponse` run once per request, whatever the instance's `validateStatus`. A
 * request's own settings go in its config's `jitterbug` field (`false`: send it once).
 *
 * @param instance - the axios instance (`axios.create()`, or `axios` itself).
 * @param optionsOrPolicy - `createRetryPolicy` options, or a policy to share (and its retry budget)
 *   with other clients. Default: the core's defaults.
 * @param options - how jitterbug plugs into this instance: {@link AttachOptions}.
 * @returns a function that removes the interceptor again (requests already sent keep retrying).
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
  options?: AttachOptions,
): (() => void) => {
  const policy = toRetryPolicy(optionsOrPolicy);
  const adapterFor = retryingAdapters(policy, bodyCap(options));
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
