/**
 * `kyRetry()`: ky options whose hooks hand every retry decision of a ky call to one run of the
 * core. Statuses are decided as each attempt's response arrives, before ky reads or throws
 * anything: on ky 2 inside the call's `fetch` (wrapped by the `init` hook), on ky 1 in
 * `afterResponse`. Errors are decided in `beforeRetry` (ky sends every error there, see
 * `ky-options.ts`), and the core's wait happens in `beforeRetry` too, so ky's own delay is 0.
 */
import {
  AttemptTimeoutError,
  type BodyKind,
  bodyKind,
  type HeaderGetter,
  mayRetry,
  privateSlot,
  type RetryPolicyOrOptions,
  type RetryRun,
  setRetryInfo,
  toRetryPolicy,
} from '@jitterbug/core';
import type { Options } from 'ky';
import * as kyModule from 'ky';
import { discardBody } from './discard.ts';
import {
  afterResponseArgs,
  beforeErrorArgs,
  beforeRequestArgs,
  beforeRetryArgs,
  type KyOptionsView,
} from './hook-args.ts';
import { assertKyRetryIntact, kyRetryOption, listMethod } from './ky-options.ts';
import { watchKy1Abort } from './ky1-abort.ts';
import { bufferRequestBody } from './request-body.ts';

/** What `kyRetry` returns: spread it into `ky.create()` or pass it to `.extend()`. */
export type KyRetryOptions = Required<Pick<Options, 'retry' | 'hooks'>>;

/** Settings of the ky adapter itself (retry behaviour is configured by the policy). */
export interface KyAdapterOptions {
  /**
   * The major version of the ky that will run the requests. Default: the major of the `ky` that
   * `@jitterbug/ky` resolves (its peer dependency), which is your ky unless a project holds two.
   * On ky 2 statuses are decided inside the call's `fetch`; ky 1 has no `init` hook to wrap it, so
   * there they are decided in an `afterResponse` hook, for which ky clones every response.
   */
  readonly kyMajor?: 1 | 2;
}

/** The major of a ky module namespace: `NetworkError` arrived with ky 2. */
export const kyMajorOf = (namespace: object): 1 | 2 => ('NetworkError' in namespace ? 2 : 1);

const checkAdapterOptions = (options: KyAdapterOptions): 1 | 2 => {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('jitterbug: the ky adapter options must be an object');
  }
  for (const key of Object.keys(options)) {
    if (key !== 'kyMajor') throw new TypeError(`jitterbug: unknown ky adapter option "${key}"`);
  }
  const { kyMajor = kyMajorOf(kyModule) } = options;
  if (kyMajor !== 1 && kyMajor !== 2) {
    throw new TypeError(`jitterbug: option "kyMajor" must be 1 or 2, got ${String(kyMajor)}`);
  }
  return kyMajor;
};

type Fetch = (input: Request | URL | string, init?: RequestInit) => Promise<Response>;

/** One ky call: its run, the caller's own signal (ky 2), and a delay decided before ky's retry starts. */
interface CallState {
  readonly userSignal: AbortSignal | undefined;
  run?: RetryRun;
  pendingDelayMs?: number | undefined;
  /** ky 2: the body's kind as the options gave it (`json`, `body`), before ky made a `Request` of it. */
  bodyKind?: BodyKind | undefined;
  /** ky 2: the call's `retry` option is not kyRetry's; the request is refused when it would be sent. */
  refused?: TypeError | undefined;
  /** ky 1: the signal watched for the caller's abort (ky 1 replaces it after its own timeout). */
  watched?: AbortSignal | undefined;
  stopWatching?: (() => void) | undefined;
  /** ky 1: when the attempt in flight began (ky 1's `timeout` is per attempt). */
  attemptStartedAt?: number | undefined;
}

/**
 * ky retries whatever its `fetch` (ky 2) or an `afterResponse` hook (ky 1) throws; this is what
 * jitterbug throws there when the core decided to retry a status. It never reaches the caller.
 */
class RetryStatus extends Error {
  constructor() {
    super('jitterbug: retrying a status');
    this.name = 'RetryStatus';
  }
}

/**
 * ky gives every call a fresh `context` object (its options are merged anew per call) and passes the
 * same one to every hook of that call, across retries: the call's state is kept on it, in a slot
 * the caller's own hooks cannot see (cheaper on every call than a `WeakMap` entry).
 */
const calls = privateSlot<CallState>();

const stateOf = (options: KyOptionsView | undefined): CallState | undefined =>
  options?.context === undefined ? undefined : calls.get(options.context);

const tag = (target: unknown, run: RetryRun): void => {
  if (run.summary) setRetryInfo(target, run.summary);
};

/** The caller aborted an attempt in flight: it counts, and the run ends as aborted. */
const endAborted = (run: RetryRun, reason: unknown): void => {
  if (run.summary) return;
  run.next({ error: reason, aborted: true });
  tag(reason, run);
};

/**
 * Margin for ky 1's timeout timer, which may fire early by the time its event-loop turn had run
 * before it was set: an abort seen this close to it may be the timeout's.
 */
const KY_TIMER_SLACK_MS = 50;

/** The caller's signal fired before an attempt was sent: the run ends without counting it. */
const endIfAbortedBeforeSending = (run: RetryRun, signal: AbortSignal | null | undefined): void => {
  if (run.summary || !signal?.aborted) return;
  run.abort(signal.reason);
  tag(signal.reason, run);
};

/**
 * ky 1: the run ends as aborted when the caller's abort reaches ky (see `ky1-abort.ts`). Each
 * attempt's request has its own signal, following the caller's (and ky's timeout): the one watched.
 * (The options ky 1 hands hooks may keep the signal of an attempt that ky's timeout aborted.)
 */
const watchAbort = (state: CallState, run: RetryRun, request: Request, options: KyOptionsView): void => {
  state.attemptStartedAt = performance.now();
  const signal = request.signal;
  endIfAbortedBeforeSending(run, signal);
  if (run.summary || state.watched === signal) return;
  state.stopWatching?.();
  state.watched = signal;
  const timeout = options.timeout;
  const unseen = (reason: unknown): void => {
    // Unseen and possibly ky's timeout: ky's beforeRetry will bring its TimeoutError to the core.
    const elapsed = performance.now() - (state.attemptStartedAt ?? 0);
    if (typeof timeout === 'number' && elapsed >= timeout - KY_TIMER_SLACK_MS) return;
    // A retried status was counted when it was decided; a failed attempt never reached the core.
    if (state.pendingDelayMs !== undefined) {
      run.abort(reason);
      tag(reason, run);
    } else {
      endAborted(run, reason);
    }
  };
  state.stopWatching = watchKy1Abort(signal, (reason) => endAborted(run, reason), unseen);
};

const stopWatching = (state: CallState): void => {
  state.stopWatching?.();
  state.stopWatching = undefined;
  state.watched = undefined;
};

/**
 * The wait listens to ky's signal for the call (the caller's signal joined with ky's own
 * `totalTimeout`). After ky's per-attempt `timeout` fired, that signal is aborted for good; ky 2 then
 * still has the caller's own signal (seen by the `init` hook).
 */
const waitSignal = (state: CallState, options: KyOptionsView): AbortSignal | undefined => {
  const managed = options.signal ?? undefined;
  return managed && !managed.aborted ? managed : state.userSignal;
};

/**
 * Reports an attempt's status to the call's run. `true`: retry (the response was discarded and the
 * delay is pending for `beforeRetry`); `false`: the response is final, and tagged with the summary.
 * A status that settles the run by itself (nearly every response) is answered without a promise.
 */
const settleStatus = (run: RetryRun, state: CallState, response: Response): false | Promise<boolean> => {
  if (run.settle(response.status)) {
    tag(response, run);
    return false;
  }
  return decideStatus(run, state, response);
};

const decideStatus = async (run: RetryRun, state: CallState, response: Response): Promise<boolean> => {
  const decision = run.next({ status: response.status, headers: (name) => response.headers.get(name) });
  if (!decision.retry) {
    tag(response, run);
    return false;
  }
  await discardBody(response, run.options.discardBodyMaxBytes);
  state.pendingDelayMs = decision.delayMs;
  return true;
};

const MISMATCH =
  'jitterbug: kyRetry() was set up for ky 2, but this request runs on ky 1 (no `init` hook, so no ' +
  'status could be retried); use kyRetry(options, { kyMajor: 1 })';

/** The body as the core sees it. A body inside a `Request` passed as input could be anything. */
const requestBodyKind = (options: KyOptionsView, request: Request): BodyKind => {
  if (options.body !== undefined && options.body !== null) return bodyKind(options.body);
  return request.body === null ? 'none' : 'stream';
};

/**
 * ky 2: the core's `attemptTimeoutMs` for one attempt, until its response headers arrive. The
 * attempt's signal follows ky's (the caller's and ky's own timeouts) and also aborts with an
 * `AttemptTimeoutError` when the time is up, which the core retries like any lost attempt.
 */
const startAttemptTimer = (
  timeoutMs: number | undefined,
  input: Request | URL | string,
  init: RequestInit | undefined,
): { signal: AbortSignal; stop: () => void } | undefined => {
  if (timeoutMs === undefined) return undefined;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new AttemptTimeoutError(timeoutMs)), timeoutMs);
  const outer = init?.signal ?? (input instanceof Request ? input.signal : undefined);
  return {
    signal: outer ? AbortSignal.any([outer, controller.signal]) : controller.signal,
    stop: () => clearTimeout(timer),
  };
};

/** What ky 2's `init` hook receives (the options of one call, a copy ky made for it). */
interface InitOptions {
  method?: string;
  context?: Record<string, unknown>;
  signal?: AbortSignal | null;
  fetch?: Fetch;
  retry?: unknown;
  json?: unknown;
  body?: unknown;
}

/**
 * ky options that retry with jitterbug: backoff with jitter, `Retry-After`, per-route rules, a
 * retry budget. Spread them into `ky.create({ ...kyRetry(options), baseUrl })` (ky 1: `prefixUrl`) or
 * `api.extend(kyRetry(options))`. ky's own retry is switched off; do not set ky's `retry` option
 * afterwards (a request that does is refused with a `TypeError`).
 *
 * One ky call is one run of the policy: the attempts, waits and the outcome are read with
 * `getRetryInfo(response)` or `getRetryInfo(error)`, or through the `onFinish` option.
 *
 * @param optionsOrPolicy - `createRetryPolicy` options, or a policy to share (with its retry budget).
 * @param adapterOptions - settings of the adapter itself: {@link KyAdapterOptions}.
 * @returns `retry` and `hooks` for ky (1.14 or later, or 2).
 * @throws TypeError naming the option when an option is invalid.
 */
export const kyRetry = (
  optionsOrPolicy?: RetryPolicyOrOptions,
  adapterOptions: KyAdapterOptions = {},
): KyRetryOptions => {
  const policy = toRetryPolicy(optionsOrPolicy);
  const kyMajor = checkAdapterOptions(adapterOptions);

  const begin = (state: CallState, request: Request, kind: BodyKind): RetryRun => {
    const headers: HeaderGetter = (name) => request.headers.get(name);
    const run = policy.begin({ method: request.method, url: request.url, headers, body: kind });
    state.run = run;
    return run;
  };

  /**
   * ky 2: the call's `fetch` (yours, or the global one looked up at call time, so test interceptors
   * see it). The run begins with the request as it is sent (after every `beforeRequest` hook). A
   * retried status never leaves this function, so ky neither clones, reads nor throws that
   * response, and your `afterResponse` hooks see only the final one.
   */
  const decidingFetch =
    (state: CallState, inner: Fetch | undefined, decideStatuses: boolean): Fetch =>
    async (input, init) => {
      if (state.refused) throw state.refused;
      let run = state.run;
      if (run === undefined && decideStatuses) {
        const request = input instanceof Request ? input : new Request(input, init);
        run = begin(state, request, state.bodyKind ?? requestBodyKind({}, request));
      }
      if (run) endIfAbortedBeforeSending(run, state.userSignal);
      const timer =
        run && !run.summary ? startAttemptTimer(run.options.attemptTimeoutMs, input, init) : undefined;
      const attemptInit = timer ? { ...init, signal: timer.signal } : init;
      let response: Response;
      try {
        response = await (inner ? inner(input, attemptInit) : globalThis.fetch(input, attemptInit));
      } catch (error) {
        // The caller's abort in flight: ky would only tell beforeError (and not for a reason that is
        // not an Error), and would count no attempt.
        const signal = state.userSignal;
        if (run && signal?.aborted && error === signal.reason) endAborted(run, error);
        throw error;
      } finally {
        timer?.stop();
      }
      if (!decideStatuses || run === undefined || run.summary !== undefined) return response;
      const retrying = settleStatus(run, state, response);
      if (retrying !== false && (await retrying)) throw new RetryStatus();
      return response;
    };

  // ky 2 only: the caller's signal before ky joins it with its own, a context for the call, and
  // the call's fetch, wrapped (with `kyMajor: 1`, only to see the caller's abort in flight).
  const init = (options: InitOptions): void => {
    const context = options.context ?? {};
    options.context = context;
    const state: CallState = { userSignal: options.signal ?? undefined };
    calls.set(context, state);
    if (kyMajor === 2) {
      try {
        assertKyRetryIntact(options.retry);
        listMethod(options.retry, options.method);
      } catch (error) {
        // Thrown here, ky would throw from the call itself instead of rejecting its promise.
        state.refused = error as TypeError;
      }
      if (options.json !== undefined) state.bodyKind = 'replayable';
      else if (options.body !== undefined && options.body !== null) state.bodyKind = bodyKind(options.body);
    }
    options.fetch = decidingFetch(state, options.fetch, kyMajor === 2);
  };

  // ky 1 always; ky 2 only to buffer a stream body before ky clones the request for retries.
  const beforeRequest = async (...args: unknown[]): Promise<Request | undefined> => {
    const { request, options } = beforeRequestArgs(args);
    assertKyRetryIntact(options.retry);
    // ky 1's per-call retry options (ky 2's were given the method in `init`).
    listMethod(options.retry, request.method);
    const context = options.context;
    if (context === undefined) return undefined;
    let state = calls.get(context);
    let ky1 = false;
    if (!state) {
      if (kyMajor === 2) throw new TypeError(MISMATCH);
      // No `init` hook ran: this is ky 1.
      ky1 = true;
      state = { userSignal: undefined };
      calls.set(context, state);
    }
    // ky 1 calls beforeRequest before every attempt: the run began with the first.
    if (state.run) {
      if (state.watched) watchAbort(state, state.run, request, options);
      return undefined;
    }
    const kind = requestBodyKind(options, request);
    const run = begin(state, request, kind);
    if (ky1) watchAbort(state, run, request, options);
    if (run.summary) return undefined;
    if (kind !== 'stream' || run.options.bufferStreamBytes <= 0) return undefined;
    if (!mayRetry(run.options, request.method, (name) => request.headers.get(name))) return undefined;
    let prepared: Awaited<ReturnType<typeof bufferRequestBody>>;
    try {
      prepared = await bufferRequestBody(request, run.options.bufferStreamBytes, options.signal ?? undefined);
    } catch (error) {
      // ky 1 has no beforeError for this: the run ends here (a failing source ends in beforeError).
      if (options.signal?.aborted) run.abort(error);
      throw error;
    }
    if (prepared.replayable) run.body = 'replayable';
    return prepared.request;
  };

  // ky 1 (or `kyMajor: 1` on ky 2): statuses are decided on ky's clone of each response.
  const afterResponse = async (...args: unknown[]): Promise<unknown> => {
    const { options, response, ky1 } = afterResponseArgs(args);
    const state = stateOf(options);
    const run = state?.run;
    if (!state || !run || run.summary) return undefined;
    // On a final status ky hands this copy on (and cancels its own), so it carries the summary.
    const retrying = settleStatus(run, state, response);
    if (retrying === false || !(await retrying)) {
      stopWatching(state);
      return response;
    }
    if (ky1) throw new RetryStatus();
    return kyModule.default.retry({ delay: 0 });
  };

  const beforeRetry = async (...args: unknown[]): Promise<undefined> => {
    const { options, error } = beforeRetryArgs(args);
    const state = stateOf(options);
    if (!state && kyMajor === 2) throw new TypeError(MISMATCH);
    const run = state?.run;
    // A retry the core did not ask for (another hook's ky.retry()) is refused with its error.
    if (!state || !run || (run.summary && state.pendingDelayMs === undefined)) throw error;
    let delayMs = state.pendingDelayMs;
    state.pendingDelayMs = undefined;
    if (delayMs === undefined) {
      const decision = run.next({ error, aborted: state.userSignal?.aborted === true });
      if (!decision.retry) {
        stopWatching(state);
        tag(error, run);
        throw error;
      }
      delayMs = decision.delayMs;
    }
    try {
      await run.wait(delayMs, waitSignal(state, options));
    } catch (reason) {
      stopWatching(state);
      tag(reason, run);
      throw reason;
    }
    return undefined;
  };

  const beforeError = (...args: unknown[]): unknown => {
    const { options, error, ky1 } = beforeErrorArgs(args);
    if (ky1 && kyMajor === 2) return new TypeError(MISMATCH, { cause: error });
    const state = stateOf(options);
    const run = state?.run;
    if (state) stopWatching(state);
    if (run) {
      // ky stopped the call without asking (the caller's abort during ky's 0 ms delay, totalTimeout,
      // a hook that threw): the run ends there.
      if (!run.summary) run.abort(error);
      tag(error, run);
    }
    return error;
  };

  // Only the hooks a call needs, and no empty lists: ky merges every hook list of the options on
  // each call, and runs no beforeRequest machinery for a call without such hooks.
  const hooks: Record<string, unknown[]> = { init: [init] };
  if (kyMajor === 1 || policy.buffersStreams) hooks.beforeRequest = [beforeRequest];
  // ky clones every response for an afterResponse hook: ky 2 has none from jitterbug.
  if (kyMajor === 1) hooks.afterResponse = [afterResponse];
  hooks.beforeRetry = [beforeRetry];
  hooks.beforeError = [beforeError];
  return { retry: kyRetryOption(), hooks: hooks as unknown as KyRetryOptions['hooks'] };
};
