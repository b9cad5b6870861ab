/**
 * `kyRetry()`: ky options whose hooks hand every retry decision of a ky call to one run of the
 * core. Statuses are decided in `afterResponse` (before ky reads or throws anything), errors in
 * `beforeRetry` (ky sends every error there, see `ky-options.ts`), and the core's wait happens in
 * `beforeRetry` too, so ky's own delay is 0.
 */
import {
  bodyKind,
  type HeaderGetter,
  mayRetry,
  type RetryPolicyOrOptions,
  type RetryRun,
  setRetryInfo,
  toRetryPolicy,
} from '@jitterbug/core';
import ky, { type Options } from 'ky';
import { discardBody } from './discard.ts';
import {
  afterResponseArgs,
  beforeErrorArgs,
  beforeRequestArgs,
  beforeRetryArgs,
  type KyOptionsView,
} from './hook-args.ts';
import { assertKyRetryIntact, kyRetryOption } from './ky-options.ts';
import { bufferRequestBody } from './request-body.ts';

/** What `kyRetry` returns: spread it into `ky.create()` or pass it to `.extend()`. */
export type KyRetryOptions = Required<Pick<Options, 'retry' | 'hooks'>>;

/** One ky call: its run, the caller's own signal (ky 2), and a delay decided before ky's retry starts. */
interface CallState {
  readonly userSignal: AbortSignal | undefined;
  run?: RetryRun;
  pendingDelayMs?: number | undefined;
}

/**
 * ky 1 retries whatever an `afterResponse` hook throws; this is what jitterbug throws there when
 * the core decided to retry a status. It never reaches the caller.
 */
class RetryStatus extends Error {
  constructor() {
    super('jitterbug: retrying a status (ky 1)');
    this.name = 'RetryStatus';
  }
}

/**
 * ky gives every call a fresh `context` object (its options are merged anew per call) and passes the
 * same one to every hook of that call, across retries: the key for the call's state.
 */
const calls = new WeakMap<object, CallState>();

const stateOf = (options: KyOptionsView | undefined): CallState | undefined =>
  options?.context === undefined ? undefined : calls.get(options.context);

const tag = (target: unknown, run: RetryRun): void => {
  if (run.summary) setRetryInfo(target, run.summary);
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

/** The body as the core sees it. A body inside a `Request` passed as input could be anything. */
const requestBodyKind = (options: KyOptionsView, request: Request) => {
  if (options.body !== undefined && options.body !== null) return bodyKind(options.body);
  return request.body === null ? 'none' : 'stream';
};

/**
 * ky options that retry with jitterbug: backoff with jitter, `Retry-After`, per-route rules, a
 * retry budget. Spread them into `ky.create({ ...kyRetry(options), prefixUrl })` or
 * `api.extend(kyRetry(options))`. ky's own retry is switched off; do not set ky's `retry` option
 * afterwards (a request that does is refused with a `TypeError`).
 *
 * One ky call is one run of the policy: the attempts, waits and the outcome are read with
 * `getRetryInfo(response)` or `getRetryInfo(error)`, or through the `onFinish` option.
 *
 * @param optionsOrPolicy - `createRetryPolicy` options, or a policy to share (with its retry budget).
 * @returns `retry` and `hooks` for ky (1.14 or later, or 2).
 */
export const kyRetry = (optionsOrPolicy?: RetryPolicyOrOptions): KyRetryOptions => {
  const policy = toRetryPolicy(optionsOrPolicy);

  // ky 2 only: the caller's signal before ky joins it with its own, and a context for the call.
  const init = (options: { context?: Record<string, unknown>; signal?: AbortSignal | null }): void => {
    const context = options.context ?? {};
    options.context = context;
    calls.set(context, { userSignal: options.signal ?? undefined });
  };

  const beforeRequest = async (...args: unknown[]): Promise<Request | undefined> => {
    const { request, options } = beforeRequestArgs(args);
    assertKyRetryIntact(options.retry);
    const context = options.context;
    if (context === undefined) return undefined;
    let state = calls.get(context);
    // ky 1 calls beforeRequest before every attempt: the run began with the first.
    if (state?.run) return undefined;
    if (!state) {
      state = { userSignal: undefined };
      calls.set(context, state);
    }
    const headers: HeaderGetter = (name) => request.headers.get(name);
    const kind = requestBodyKind(options, request);
    const run = policy.begin({ method: request.method, url: request.url, headers, body: kind });
    state.run = run;
    if (kind !== 'stream' || run.options.bufferStreamBytes <= 0) return undefined;
    if (!mayRetry(run.options, request.method, headers)) return undefined;
    const prepared = await bufferRequestBody(request, run.options.bufferStreamBytes);
    if (prepared.replayable) run.body = 'replayable';
    return prepared.request;
  };

  const afterResponse = async (...args: unknown[]): Promise<unknown> => {
    const { options, response, ky1 } = afterResponseArgs(args);
    const state = stateOf(options);
    const run = state?.run;
    if (!state || !run || run.summary) return undefined;
    const decision = run.next({ status: response.status, headers: (name) => response.headers.get(name) });
    if (!decision.retry) {
      // ky hands this copy on (and cancels its own), so the caller's response carries the summary.
      tag(response, run);
      return response;
    }
    await discardBody(response, run.options.discardBodyMaxBytes);
    state.pendingDelayMs = decision.delayMs;
    if (ky1) throw new RetryStatus();
    return ky.retry({ delay: 0 });
  };

  const beforeRetry = async (...args: unknown[]): Promise<undefined> => {
    const { options, error } = beforeRetryArgs(args);
    const state = stateOf(options);
    const run = state?.run;
    // A retry the core did not ask for (another hook's ky.retry()) is refused with its error.
    if (!state || !run || (run.summary && state.pendingDelayMs === undefined)) throw error;
    let delayMs = state.pendingDelayMs;
    state.pendingDelayMs = undefined;
    if (delayMs === undefined) {
      const decision = run.next({ error, aborted: state.userSignal?.aborted === true });
      if (!decision.retry) {
        tag(error, run);
        throw error;
      }
      delayMs = decision.delayMs;
    }
    try {
      await run.wait(delayMs, waitSignal(state, options));
    } catch (reason) {
      tag(reason, run);
      throw reason;
    }
    return undefined;
  };

  const beforeError = (...args: unknown[]): unknown => {
    const { options, error } = beforeErrorArgs(args);
    const run = stateOf(options)?.run;
    if (run) {
      // ky stopped the call without asking (the caller's abort during ky's 0 ms delay, totalTimeout,
      // a hook that threw): the run ends there.
      if (!run.summary) run.abort(error);
      tag(error, run);
    }
    return error;
  };

  return {
    retry: kyRetryOption(),
    hooks: {
      init: [init],
      beforeRequest: [beforeRequest],
      afterResponse: [afterResponse],
      beforeRetry: [beforeRetry],
      beforeError: [beforeError],
    } as unknown as KyRetryOptions['hooks'],
  };
};
