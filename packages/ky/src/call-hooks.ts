/**
 * kyRetry's hooks, which set each call up before ky sends it. ky 2 shows a call's options whole
 * (its hooks, its `fetch`, its timeouts) to `init` hooks alone, per call: the `init` hook does the
 * set-up there, and takes kyRetry's `beforeRequest` hook out of the call unless it has work left
 * (a refusal to throw, the user's `beforeRetry` hooks to serve), since ky makes every call dearer
 * that has a `beforeRequest` hook. ky 1 has no `init` hook: its `beforeRequest` hook does the set-up.
 */
import type { BodyKind } from '@jitterbug/core/adapter';
import { isStreamBody } from '@jitterbug/fetch/engine';
import { byContext, byRequest, CallState, type UserHook } from './call-state.ts';
import type { ForcedRetries } from './forced-retries.ts';
import { beforeRequestArgs, beforeRetryArgs, type KyInitOptions, type KyOptionsView } from './hook-args.ts';
import { kyTimeoutOf } from './ky-timeout.ts';
import { fetchSetAgain, retrySetAgain } from './refusals.ts';
import { KyExit } from './retry-hooks.ts';

/** Every method ky sends: a call that leaves through ky's retry path passes ky's method check. */
const KY_METHODS = ['get', 'post', 'put', 'patch', 'head', 'delete', 'options', 'trace', 'query'];

/** The `fetch` functions of every `kyRetry()`: another one set after this one is not a bypass. */
const kyRetryFetches = new WeakSet<object>();

const bodyOf = (body: unknown): BodyKind | undefined =>
  body == null ? undefined : isStreamBody(body as object) ? 'stream' : 'replayable';

/** Takes `hook` out of `hooks`, an array of the call's own (ky merged it for this call). */
const without = (hooks: unknown[], hook: unknown): void => {
  const at = hooks.indexOf(hook);
  if (at >= 0) hooks.splice(at, 1);
};

/**
 * A `beforeError` hook of the user's, shown jitterbug's retry count: the retries jitterbug sent (ky
 * counts none of them, only what passed its own retry path: a `Response` a `beforeRetry` hook
 * returned, a forced retry), once the call's run began.
 */
const withRetryCount =
  (hook: UserHook, state: CallState): UserHook =>
  (shown) => {
    const kyCount = (shown as { retryCount: number }).retryCount;
    const run = state.run;
    const retryCount = Math.max(kyCount, run ? (run.summary?.attempts ?? run.attempts) - 1 : 0);
    return hook({ ...shown, retryCount });
  };

export interface CallHooks {
  readonly init: (options: KyInitOptions) => void;
  readonly beforeRequest: (...args: unknown[]) => void;
  /** In ky's `beforeRetry` hooks first: settles a call a hook of the user's ended, and forced retries. */
  readonly retryHook: (...args: unknown[]) => unknown;
}

/** The hooks that set up the calls of one `kyRetry()`, whose `fetch` is `fetch`. */
export const callHooks = (fetch: object, forced: ForcedRetries | undefined): CallHooks => {
  kyRetryFetches.add(fetch);
  const isForced = forced !== undefined;
  /** Another kyRetry's `fetch` is the call's: that one sets the call up, this one steps aside. */
  const another = (given: unknown): boolean =>
    given !== fetch && typeof given === 'function' && kyRetryFetches.has(given);

  const retryHook = (...args: unknown[]): unknown => {
    const { error } = beforeRetryArgs(args);
    if (error instanceof KyExit) return error.settle();
    if (forced) return forced.beforeRetry(...args);
    throw error;
  };

  const init = (options: KyInitOptions): void => {
    const { hooks } = options;
    if (another(options.fetch)) {
      without(hooks.beforeRequest, beforeRequest);
      return;
    }
    const state = new CallState(
      options.json !== undefined ? 'replayable' : bodyOf(options.body),
      options.jitterbug as CallState['overrides'],
    );
    state.kyOptions = options;
    if (options.prefix || options.baseUrl) state.base = [options.baseUrl, options.prefix];
    if (typeof options.totalTimeout === 'number') state.startedMs = performance.now();
    state.refused = options.fetch === fetch ? retrySetAgain(options.retry, isForced) : fetchSetAgain();
    const own = hooks.beforeRetry.filter((hook) => hook !== retryHook);
    if (own.length > 0) {
      state.hooks = own as UserHook[];
      hooks.beforeRetry = [retryHook, ...own];
    }
    if (hooks.beforeError.length > 0) {
      hooks.beforeError = hooks.beforeError.map((hook) => withRetryCount(hook as UserHook, state));
    }
    if (!state.refused && !state.hooks) without(hooks.beforeRequest, beforeRequest);
    options.jitterbug = state;
  };

  /**
   * ky 2, a call with hooks of the user's: ky's own retry path is opened for it, which only a
   * {@link KyExit} takes (ky copies the `Request` of such calls, for the retry it might make).
   */
  const openRetryPath = (retry: KyOptionsView['retry'], method: string): void => {
    if (typeof retry !== 'object') return;
    retry.limit = Math.max(retry.limit ?? 0, 1);
    retry.methods = [...KY_METHODS, method.toLowerCase()];
    retry.shouldRetry = ({ error }) => error instanceof KyExit;
    retry.delay = () => 0;
    retry.jitter = undefined;
  };

  const beforeRequest = (...args: unknown[]): void => {
    const { request, options } = beforeRequestArgs(args);
    const boxed = options.jitterbug;
    if (boxed instanceof CallState) {
      if (boxed.refused) throw boxed.refused;
      boxed.options = options;
      if (boxed.hooks) openRetryPath(options.retry, request.method);
      return;
    }
    // ky 1, which shows `fetch` and `timeout` here (ky 2 does not).
    if (another(options.fetch)) return;
    const refused =
      options.fetch === undefined || options.fetch === fetch
        ? retrySetAgain(options.retry, isForced)
        : fetchSetAgain();
    if (refused) throw refused;
    // The call's context finds its state again only for a forced retry (ky's next request).
    const context = forced ? options.context : undefined;
    let state = context ? byContext.get(context) : undefined;
    if (!state) {
      state = new CallState(bodyOf(options.body), undefined);
      state.timeoutMs = kyTimeoutOf(options.timeout);
      if (options.prefixUrl) state.base = [options.prefixUrl];
      if (context) byContext.set(context, state);
    }
    byRequest.set(request, state);
  };

  return { init, beforeRequest, retryHook };
};
