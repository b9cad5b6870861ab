/**
 * `kyRetry()`: ky options that run every attempt of a ky call through jitterbug's fetch engine (ky's
 * `fetch` option), so ky sees one fetch per call and jitterbug makes every retry decision. ky's own
 * retry is off (limit 0), unless the user asks for forced retries (`forcedRetries`: `ky.retry()` from
 * an `afterResponse` hook): those reach `beforeRetry`, where the call's run decides them. The user's
 * own `beforeRetry` hooks run for jitterbug's retries (ky 2; `retry-hooks.ts`), and ky's `timeout`
 * is the run's deadline (`ky-timeout.ts`).
 */
import type { RetryPolicyOrOptions } from '@jitterbug/core';
import {
  asRetryLayer,
  checkOptions,
  type EditableRequest,
  fail,
  isRetryLayer,
  type RetryRun,
  requestEditing,
} from '@jitterbug/core/adapter';
import { type Answer, Call, execute, type FetchFunction, type FetchInit } from '@jitterbug/fetch/engine';
import type { Options } from 'ky';
import { callHooks } from './call-hooks.ts';
import { byRequest, CallState } from './call-state.ts';
import type { ForcedRetries } from './forced-retries.ts';
import { asKyTimeout, requestOf } from './ky-errors.ts';
import { kyDeadlines } from './ky-timeout.ts';
import { runUserRetryHooks } from './retry-hooks.ts';

/** What `kyRetry` returns: spread it into `ky.create()` or pass it to `.extend()`. */
export type KyRetryOptions = Required<Pick<Options, 'fetch' | 'retry' | 'hooks'>>;

/** Settings of the ky adapter itself (retry behaviour is configured by the policy). */
export interface KyAdapterOptions {
  /**
   * The fetch each attempt calls. Default: the global `fetch`, looked up at each call (so test
   * interceptors see it). Give yours here, not as ky's `fetch` option: one set on the instance or a
   * call after `kyRetry()` would replace jitterbug's, and such a call is refused with a `TypeError`.
   */
  readonly fetch?: (input: Request | URL | string, init?: RequestInit) => Promise<Response>;
  /**
   * `createForcedRetries()`, to let `ky.retry()` from an `afterResponse` hook
   * retry the call through its run. Default: none — ky's own retry limit is then 0, and ky makes no
   * copy of each call's `Request` (it clones every request, and tees a stream body into memory,
   * whenever its limit is above 0, for the retry it might make: about 13 µs per call in `bench/`'s
   * in-memory ky probe, a third of a call there); a hook's `ky.retry()` then rejects the call with
   * ky's `ForceRetryError`. A factory rather than `true`, so that a program that does not force
   * retries carries none of their code.
   */
  readonly forcedRetries?: ForcedRetries | false;
}

/** The rows of {@link KyAdapterOptions}. */
const ADAPTER_OPTIONS = {
  fetch: (v: unknown, n: string) =>
    typeof v === 'function' ? (v as FetchFunction) : fail(n, 'a function', v),
  // Only what the factory made (or false): `true` would make every bundle carry forced retries.
  forcedRetries: (v: unknown, n: string) =>
    v === false
      ? undefined
      : typeof (v as Partial<ForcedRetries> | null)?.beforeRetry === 'function'
        ? (v as ForcedRetries)
        : fail(n, 'false or what createForcedRetries() returns', v),
};

/** A ky call on the fetch engine: an attempt that timed out ends it with ky's own `TimeoutError`. */
class KyCall extends Call {
  /** What the call's own URL was written under (its `baseUrl`, then its `prefix`), for route rules. */
  declare base: readonly unknown[] | undefined;
  /** The edits of the user's own `beforeRetry` hooks, which work without the policy's `requestEdits`. */
  declare edits: EditableRequest['edits'];

  override deliver(answer: Answer): Response {
    try {
      return super.deliver(answer);
    } catch (error) {
      throw asKyTimeout(error, () => requestOf(this.input, this.method));
    }
  }
}

/**
 * ky options that retry with jitterbug: backoff with jitter, `Retry-After`, a retry budget, per-route
 * rules (give a policy from `createRetryPolicy`), in every runtime ky runs in. Spread them into
 * `ky.create({ ...kyRetry(options), baseUrl })` or pass them to `api.extend(kyRetry(options))`.
 *
 * Each ky call is one run: `getRetryInfo(response)` or `getRetryInfo(error)` tells what it cost; a
 * call's own overrides go in its `jitterbug` option (`api.get(url, { jitterbug: { maxAttempts: 5 } })`,
 * `false` to send it once); with `forcedRetries`, `ky.retry()` from an `afterResponse` hook is a
 * forced retry of the run. ky's `timeout` is the run's deadline: no wait that would end past it is
 * started. On ky 2 your own `beforeRetry` hooks run before each retry, with ky's arguments, and may
 * return a `Request`, a `Response` or `ky.stop` as with ky's own retry.
 *
 * @param optionsOrPolicy - `createRetryPolicy` options (without routes), or a policy to share.
 * @param adapterOptions - settings of the adapter itself: {@link KyAdapterOptions}.
 * @throws TypeError naming the option when an option is invalid.
 */
export const kyRetry = (
  optionsOrPolicy?: RetryPolicyOrOptions,
  adapterOptions: KyAdapterOptions = {},
): KyRetryOptions => {
  const { policy, overridesFor } = kyDeadlines(optionsOrPolicy);
  const { fetch: inner, forcedRetries: forced } = checkOptions(adapterOptions, ADAPTER_OPTIONS, 'kyRetry');
  const send: FetchFunction = inner ?? ((input, init) => globalThis.fetch(input, init));
  /**
   * A call with `beforeRetry` hooks of the user's: each attempt's input and response are kept (with
   * a copy of a failed response's body, for `HTTPError.data`), and the hooks run before each retry.
   */
  const withUserHooks = (state: CallState, call: KyCall, run: RetryRun): Promise<Response> => {
    const keeping: FetchFunction = (input, init) =>
      send(input, init).then(
        (response) => {
          state.keep(input, response);
          return response;
        },
        (error: unknown) => {
          state.keep(input);
          throw error;
        },
      );
    call.beforeRetry = (next) => runUserRetryHooks(state, next, call);
    call.edits = requestEditing;
    return execute(isRetryLayer(send) ? asRetryLayer(keeping) : keeping, call, run).finally(() =>
      state.dropCopy(),
    );
  };

  const fetch = (input: Request | URL | string, init?: FetchInit): Promise<Response> => {
    try {
      const given = init?.jitterbug;
      // ky 2: the call's state is its `jitterbug` option (the init hook put it there); ky 1: its Request.
      const state =
        given instanceof CallState ? given : typeof input === 'object' ? byRequest.get(input) : undefined;
      const call = new KyCall(input, init, state?.body);
      call.base = state?.base;
      let run = state?.run;
      if (!run) {
        const overrides = given instanceof CallState ? given.overrides : given;
        run = policy.begin(
          call,
          state ? overridesFor(overrides, state.timeLeftMs(), call.method, call.url, call.base) : overrides,
        );
        if (state) state.run = run;
      }
      return state?.hooks ? withUserHooks(state, call, run) : execute(send, call, run);
    } catch (error) {
      return Promise.reject(error);
    }
  };
  const { init, beforeRequest, retryHook } = callHooks(fetch, forced);

  // ky's own retry is on for forced retries only, when asked for: it lists no method and no status.
  // ky checks its limit before the beforeRetry hook, so it is one above the policy's retries (the
  // run refuses the last one with its own reason), and no higher: hooks lost to a spread
  // (`{ ...kyRetry(), hooks }` replaces them) cannot make ky send a forced retry more than once
  // beyond what the policy allows. Otherwise 0, so that ky copies no request for a retry of its own.
  const limit = forced ? Math.max(...[policy.options, ...policy.routeOptions].map((o) => o.maxAttempts)) : 0;
  return {
    fetch: fetch as KyRetryOptions['fetch'],
    // Without forced retries a limit of 0: a number, which ky merges into each call at less cost than
    // an object. With them, no methods: ky's own retry never starts on a status or an error (it checks
    // the method first), only on a ky.retry().
    retry: forced ? { limit, methods: [], delay: () => 0 } : 0,
    // ky 1 has no init hooks, and drops the key.
    hooks: (forced
      ? { init: [init], beforeRequest: [beforeRequest], beforeRetry: [retryHook] }
      : { init: [init], beforeRequest: [beforeRequest] }) as unknown as KyRetryOptions['hooks'],
  };
};
