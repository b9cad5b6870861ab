/**
 * `retryInterceptor`: jitterbug for undici, as an interceptor for `Dispatcher.compose`.
 */
import type { CallOverrides, RetryPolicyOrOptions } from '@jitterbug/core';
import {
  insideLayer,
  interceptorMade,
  isRetryLayer,
  policyFor,
  type RetryRun,
} from '@jitterbug/core/adapter';
import { checkAdapterOptions, type UndiciAdapterOptions } from './adapter-options.ts';
import { prepareBody } from './body.ts';
import { toNewHandler } from './legacy.ts';
import { notADispatcher } from './not-a-dispatcher.ts';
import { requestBodyKind, requestHeaderGetter, requestUrl } from './request-info.ts';
import { ResumeHandler } from './resume-handler.ts';
import { RetryingRequest } from './retrying-request.ts';
import type { DispatchOpts, LegacyHandler, NewHandler, NextDispatch, RetryInterceptor } from './types.ts';
import { Downstream, isUndiciRetryHandler, undiciRetryHandler } from './undici-retry.ts';

/**
 * An interceptor that retries requests as `optionsOrPolicy` decides (options for a new policy, or a
 * policy to share its retry budget), for `Dispatcher.compose`:
 *
 * ```ts
 * const dispatcher = new Agent().compose(retryInterceptor({ maxAttempts: 4 }));
 * await request(url, { dispatcher });      // undici request()
 * await fetch(url, { dispatcher });        // undici fetch() or Node's global fetch
 * ```
 *
 * Works on undici 7 and 8 dispatchers, and accepts handlers in both of undici's APIs, so an undici 8
 * agent composed with it also serves Node's global `fetch` (whose bundled undici hands over legacy
 * handlers). Upgrades and `CONNECT` pass through unretried, and so does what an outer jitterbug layer
 * sends through it (a `withRetry` over this dispatcher, another `retryInterceptor` composed outside
 * it): only the outer layer retries.
 *
 * Composed with undici's own retry, the outer one decides: under `interceptors.retry()` or a
 * `RetryAgent` this passes each dispatch on; over `interceptors.retry()` it tells undici's to pass
 * every answer on; over a `RetryAgent` (which cannot be told) the request fails with a `TypeError`
 * saying how to compose them, before anything is sent. Given where a dispatcher goes, what this
 * returns throws a `TypeError` saying to compose it: `new Agent().compose(retryInterceptor())`.
 *
 * @throws TypeError naming the option when an option is invalid.
 */
export const retryInterceptor = (
  optionsOrPolicy?: RetryPolicyOrOptions,
  adapterOptions: UndiciAdapterOptions = {},
): RetryInterceptor => {
  const policy = policyFor(optionsOrPolicy, 'retryInterceptor');
  const settings = checkAdapterOptions(adapterOptions);
  // From now on jitterbug's layers mark the attempts they send through a client, for this one to see.
  interceptorMade();
  const interceptor = (next: NextDispatch, interceptorOrigin?: unknown): NextDispatch => {
    const downstream = new Downstream(next);
    return function retryDispatch(opts: DispatchOpts, handler: NewHandler | LegacyHandler): boolean {
      const caller = toNewHandler(handler);
      // Upgrades and CONNECT pass through; so does an attempt of an outer retry layer, which alone
      // retries: jitterbug's (another interceptor's, or a fetch's or axios' over this dispatcher), or
      // undici's own (interceptors.retry(), RetryAgent: see undici-retry.ts).
      if (opts.upgrade || opts.method === 'CONNECT' || isRetryLayer(handler) || insideLayer()) {
        return next(opts, caller);
      }
      if (isUndiciRetryHandler(handler)) return next(opts, undiciRetryHandler(handler));
      const headers = requestHeaderGetter(opts.headers);
      const body = opts.body;
      let run: RetryRun;
      try {
        run = policy.begin(
          {
            method: opts.method,
            url: requestUrl(opts, interceptorOrigin),
            headers,
            body: body === undefined || body === null ? 'none' : requestBodyKind(body),
          },
          (opts as { jitterbug?: CallOverrides | false }).jitterbug,
        );
      } catch (error) {
        caller.onResponseError?.(null, error as Error);
        return true;
      }
      const tagHeaders = caller === handler;
      // Opt-in: only then does a request pay for a handler that can resume its body.
      const request = run.options.feature.resume
        ? new ResumeHandler(downstream, caller, run, tagHeaders).request(settings)
        : new RetryingRequest(downstream, caller, run, settings, tagHeaders);
      if (run.body !== 'stream') return request.start(opts);
      const prepared = prepareBody(opts, run, headers, settings.knownLengthBodyMaxBytes);
      return typeof prepared === 'function' ? request.prepare(prepared) : request.start(prepared);
    };
  };
  return notADispatcher(interceptor) as unknown as RetryInterceptor;
};
