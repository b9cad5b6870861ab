/**
 * `kyRetry()`: ky options that run every attempt of a ky call through jitterbug's fetch engine (ky's
 * `fetch` option), so ky sees one fetch per call and jitterbug makes every retry decision. ky's own
 * retry is off (limit 0), unless the user asks for forced retries (`forcedRetries`: `ky.retry()` from
 * an `afterResponse` hook): those reach `beforeRetry`, where the call's run decides them.
 */
import type { RetryPolicyOrOptions } from '@jitterbug/core';
import { type BodyKind, checkOptions, fail, policyFor } from '@jitterbug/core/adapter';
import { Call, execute, type FetchFunction, type FetchInit, isStreamBody } from '@jitterbug/fetch/engine';
import type { Options } from 'ky';
import * as kyModule from 'ky';
import { byContext, byRequest } from './call-state.ts';
import type { ForcedRetries } from './forced-retries.ts';
import { beforeRequestArgs, type KyOptionsView } from './hook-args.ts';

/** What `kyRetry` returns: spread it into `ky.create()` or pass it to `.extend()`. */
export type KyRetryOptions = Required<Pick<Options, 'fetch' | 'retry' | 'hooks'>>;

/** Settings of the ky adapter itself (retry behaviour is configured by the policy). */
export interface KyAdapterOptions {
  /**
   * The fetch each attempt calls. Default: the global `fetch`, looked up at each call (so test
   * interceptors see it). Give yours here, not as ky's `fetch` option: that would replace jitterbug's.
   */
  readonly fetch?: (input: Request | URL | string, init?: RequestInit) => Promise<Response>;
  /**
   * The `forcedRetries` export of `@jitterbug/ky`, to let `ky.retry()` from an `afterResponse` hook
   * retry the call through its run. Default: none — ky's own retry limit is then 0, and ky makes no
   * copy of each call's `Request` (it clones every request, and tees a stream body into memory,
   * whenever its limit is above 0, for the retry it might make: about 13 µs per call in `bench/`'s
   * in-memory ky probe, a third of a call there); a hook's `ky.retry()` then rejects the call with
   * ky's `ForceRetryError`. An export rather than `true`, so that a program that does not force
   * retries carries none of their code.
   */
  readonly forcedRetries?: ForcedRetries | false;
}

/** The rows of {@link KyAdapterOptions}. */
const ADAPTER_OPTIONS = {
  fetch: (v: unknown, n: string) =>
    typeof v === 'function' ? (v as FetchFunction) : fail(n, 'a function', v),
  // Only the export itself (or false): `true` would make every bundle carry forced retries.
  forcedRetries: (v: unknown, n: string) =>
    v === false
      ? undefined
      : typeof (v as Partial<ForcedRetries> | null)?.beforeRetry === 'function'
        ? (v as ForcedRetries)
        : fail(n, 'the forcedRetries export of @jitterbug/ky', v),
};

const bodyOf = (options: KyOptionsView): BodyKind | undefined =>
  options.body == null ? undefined : isStreamBody(options.body as object) ? 'stream' : 'replayable';

/** The error the caller gets after the last attempt timed out: ky's own `TimeoutError`, as without jitterbug. */
const asKyTimeout = (error: unknown, call: Call): unknown => {
  if ((error as { code?: unknown } | null)?.code !== 'ERR_JITTERBUG_ATTEMPT_TIMEOUT') return error;
  const timeout = new kyModule.TimeoutError(call.input as Request);
  Object.defineProperty(timeout, 'cause', { value: error, writable: true, configurable: true });
  return timeout;
};

/**
 * Why ky's `retry` option, set again after `kyRetry()` (`retry: 2` on a call, or `.extend()` with
 * one), is refused, if it is: ky would retry on its own what jitterbug already retried (a number, or
 * methods), or, without `forcedRetries`, make forced retries that no run decides (a limit above 0:
 * ky would also copy every request again).
 */
const retrySetAgain = (options: KyOptionsView, forced: boolean): TypeError | undefined => {
  const { retry } = options;
  // ky retries nothing while its limit is 0, whatever methods it lists (it fills in its defaults).
  const limit = typeof retry === 'number' ? retry : (retry?.limit ?? 0);
  if (limit <= 0) return undefined;
  if (typeof retry === 'number' || (retry?.methods?.length ?? 0) > 0) {
    return new TypeError(
      'jitterbug: ky\'s "retry" option was set after kyRetry(), so ky would retry on its own what jitterbug already retried; set retries with jitterbug instead (a call\'s `jitterbug: { maxAttempts }`, or the policy)',
    );
  }
  if (!forced) {
    return new TypeError(
      'jitterbug: ky\'s "retry" limit was set after kyRetry(); for ky.retry() from a hook use kyRetry(options, { forcedRetries }) with the forcedRetries export, whose run decides forced retries',
    );
  }
  return undefined;
};

/**
 * ky options that retry with jitterbug: backoff with jitter, `Retry-After`, a retry budget, per-route
 * rules (give a policy from `createRetryPolicy`), in every runtime ky runs in. Spread them into
 * `ky.create({ ...kyRetry(options), baseUrl })` or pass them to `api.extend(kyRetry(options))`.
 *
 * Each ky call is one run: `getRetryInfo(response)` or `getRetryInfo(error)` tells what it cost; a
 * call's own overrides go in its `jitterbug` option (`api.get(url, { jitterbug: { maxAttempts: 5 } })`,
 * `false` to send it once); with `forcedRetries`, `ky.retry()` from an `afterResponse` hook is a
 * forced retry of the run.
 *
 * @param optionsOrPolicy - `createRetryPolicy` options (without routes), or a policy to share.
 * @param adapterOptions - settings of the adapter itself: {@link KyAdapterOptions}.
 * @throws TypeError naming the option when an option is invalid.
 */
export const kyRetry = (
  optionsOrPolicy?: RetryPolicyOrOptions,
  adapterOptions: KyAdapterOptions = {},
): KyRetryOptions => {
  const policy = policyFor(optionsOrPolicy, 'kyRetry');
  const { fetch: inner, forcedRetries: forced } = checkOptions(adapterOptions, ADAPTER_OPTIONS, 'kyRetry');
  const send: FetchFunction = inner ?? ((input, init) => globalThis.fetch(input, init));
  const settings = { finalError: asKyTimeout };

  const fetch = (input: Request | URL | string, init?: FetchInit): Promise<Response> => {
    try {
      const state = typeof input === 'object' ? byRequest.get(input) : undefined;
      const call = new Call(input, init, state?.body);
      let run = state?.run;
      if (!run) {
        run = policy.begin(
          {
            method: call.method,
            url: call.url,
            headers: call.headers,
            body: call.body,
          },
          init?.jitterbug,
        );
        if (state) state.run = run;
      }
      return execute(send, call, run, settings);
    } catch (error) {
      return Promise.reject(error);
    }
  };

  // Links the call (its context) with the request ky sends (the body's kind is known only here).
  const beforeRequest = (...args: unknown[]): void => {
    const { request, options } = beforeRequestArgs(args);
    const refused = retrySetAgain(options, forced !== undefined);
    if (refused) throw refused;
    // The call's context finds its state again only for a forced retry (ky's next request).
    const context = forced ? options.context : undefined;
    let state = context ? byContext.get(context) : undefined;
    if (!state) {
      state = { body: bodyOf(options), run: undefined };
      if (context) byContext.set(context, state);
    }
    byRequest.set(request, state);
  };

  // ky's own retry is on for forced retries only, when asked for: it lists no method and no status.
  // ky checks its limit before the beforeRetry hook, so it is one above the policy's retries (the
  // run refuses the last one with its own reason), and no higher: hooks lost to a spread
  // (`{ ...kyRetry(), hooks }` replaces them) cannot make ky send a forced retry more than once
  // beyond what the policy allows. Otherwise 0, so that ky copies no request for a retry of its own.
  const limit = forced
    ? Math.max(policy.options.maxAttempts, ...policy.routeOptions.map((o) => o.maxAttempts))
    : 0;
  return {
    fetch: fetch as KyRetryOptions['fetch'],
    // Without forced retries a limit of 0: a number, which ky merges into each call at less cost than
    // an object. With them, no methods: ky's own retry never starts on a status or an error (it checks
    // the method first), only on a ky.retry().
    retry: forced ? { limit, methods: [], delay: () => 0 } : 0,
    hooks: (forced
      ? { beforeRequest: [beforeRequest], beforeRetry: [forced.beforeRetry] }
      : { beforeRequest: [beforeRequest] }) as unknown as KyRetryOptions['hooks'],
  };
};
