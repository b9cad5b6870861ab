/**
 * The adapter that jitterbug puts in front of the real one. axios calls it after the request
 * interceptors and `transformRequest`, and hands its result to `transformResponse` and the response
 * interceptors, so retries happen below everything the user plugged in: each of those runs once
 * per request, as without retries. This file sets a request up; `transport.ts` sends it.
 */
import type { RetryPolicy } from '@jitterbug/core';
import { bodyKind, runAttempts } from '@jitterbug/core/adapter';
import type { AxiosAdapter, AxiosRequestConfig, AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import { httpAdapter } from '#platform';
import axios from './axios-values.ts';
import type { DiscardedBodyCap } from './capped-bodies.ts';
import { headersOf } from './outcome.ts';
import { requestUrl } from './request-url.ts';
import { AxiosTransport } from './transport.ts';

/** What `config.adapter` may hold. */
export type AdapterSetting = AxiosRequestConfig['adapter'];

const WRAPPED = Symbol('jitterbug.axios.adapter');

/** A jitterbug adapter and the setting it stands in for. */
type RetryingAdapter = AxiosAdapter & { readonly [WRAPPED]: AdapterSetting };

/** The adapter setting without jitterbug's wrapper (a config handed back to axios may carry one). */
export const unwrapAdapter = (adapter: AdapterSetting): AdapterSetting =>
  typeof adapter === 'function' && WRAPPED in adapter ? (adapter as RetryingAdapter)[WRAPPED] : adapter;

// A copy for each request's config, as axios' own config merge gives each request its own array.
const settingCopy = <T extends AdapterSetting>(setting: T): T =>
  Array.isArray(setting) ? ([...setting] as T) : setting;

/**
 * Makes the adapter that runs the real one (the `adapter` setting it stands in for, or axios'
 * default) as many times as the policy decides. One is made per setting, not per request: the
 * request's own state lives in its transport (`transport.ts`).
 */
const retryingAdapter = (
  policy: RetryPolicy,
  setting: AdapterSetting,
  cap: DiscardedBodyCap | undefined,
): AxiosAdapter => {
  // `adapter: 'http'` always names the same function: looked up once, not on every request.
  const http = setting === 'http' ? httpAdapter() : null;
  const adapter = ((config: InternalAxiosRequestConfig): Promise<AxiosResponse> => {
    try {
      // The caller's response.config shows the adapter setting it would show without jitterbug.
      if (setting === undefined) delete config.adapter;
      else config.adapter = settingCopy(setting);
      const real = http ?? axios.getAdapter(setting ?? axios.defaults.adapter, config);
      const requestHeaders = headersOf(config);
      const url = requestUrl(config);
      const data: unknown = config.data;
      // The call's own `jitterbug` field (validated here: a TypeError naming it, nothing sent).
      const run = policy.begin(
        {
          method: config.method ?? 'get',
          url,
          base: config.baseURL,
          headers: requestHeaders,
          body: bodyKind(data),
        },
        config.jitterbug,
      );
      // A `data:` URL is answered without a request: nothing to cap.
      const streamMode = cap && !url.startsWith('data:') ? cap.modeOf(real, config) : undefined;
      return runAttempts(run, new AxiosTransport(config, real, run, requestHeaders, data, streamMode));
    } catch (error) {
      return Promise.reject(error);
    }
  }) as AxiosAdapter as RetryingAdapter;
  Object.defineProperty(adapter, WRAPPED, { value: setting });
  return adapter as AxiosAdapter;
};

/**
 * The retrying adapter for each `adapter` setting a policy's requests carry, made on first use.
 * Settings are compared by content: axios' config merge copies an array setting for every request.
 */
export const retryingAdapters = (
  policy: RetryPolicy,
  cap: DiscardedBodyCap | undefined,
): ((setting: AdapterSetting) => AxiosAdapter) => {
  const made: { setting: AdapterSetting; adapter: AxiosAdapter }[] = [];
  const same = (a: AdapterSetting, b: AdapterSetting): boolean =>
    a === b ||
    (Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      (a as unknown[]).every((item, i) => item === (b as unknown[])[i]));
  return (setting) => {
    for (const entry of made) if (same(entry.setting, setting)) return entry.adapter;
    // Its own copy: the request's array stays the request's.
    const kept = settingCopy(setting);
    const adapter = retryingAdapter(policy, kept, cap);
    // A program that makes a new adapter function per request must not grow this list without end.
    if (made.length >= 8) made.shift();
    made.push({ setting: kept, adapter });
    return adapter;
  };
};
