/**
 * `retryInterceptor`: jitterbug for undici, as an interceptor for `Dispatcher.compose`.
 */
import type { CallOverrides, RetryPolicyOrOptions } from '@jitterbug/core';
import { type RetryRun, toRetryPolicy } from '@jitterbug/core/adapter';
import { prepareBody } from './body.ts';
import { toNewHandler } from './legacy.ts';
import { requestBodyKind, requestHeaderGetter, requestUrl } from './request-info.ts';
import { type RequestSettings, RetryingRequest } from './retrying-request.ts';
import { RetryStatusError, type StatusErrorClass } from './status-error.ts';
import type { DispatchOpts, LegacyHandler, NewHandler, NextDispatch, RetryInterceptor } from './types.ts';

/** Settings of the undici adapter itself (retry behaviour is configured by the policy). */
export interface UndiciRetryOptions {
  /**
   * Adds `x-jitterbug-attempts` and `x-jitterbug-total-delay-ms` to the final response's headers,
   * the one way to read a request's retry summary that survives `fetch` (see the README). Default
   * `false`: the caller gets the response exactly as without jitterbug.
   */
  readonly infoHeaders?: boolean;
  /**
   * `fetch` hands every request body (a string too) to the dispatcher as a stream, and declares its
   * `content-length` when it made that stream from a string, bytes, `URLSearchParams`, `Blob` or
   * `FormData`. Such a body of at most this many bytes is read into memory before the first attempt
   * so that it can be sent again. The caller's own streams are not affected, whether given to
   * `request()` or to `fetch` and even with a `content-length` header of the caller's (see
   * `bufferStreamBytes`). Default 1 MiB; `0` turns it off (then a fetch request with a body is never
   * retried unless `bufferStreamBytes` covers it).
   */
  readonly knownLengthBodyBytes?: number;
  /**
   * When the last attempt got a status the policy retries (503 after `maxAttempts`, a 429 whose
   * `Retry-After` is too long, a budget used up, …), fail the request with an error instead of
   * handing that response over, as undici's `RetryAgent` does: `true` for jitterbug's
   * {@link RetryStatusError} (`code` `'UND_ERR_REQ_RETRY'`, `statusCode`, `headers`, `data.count`), or
   * undici's own `errors.RequestRetryError` class to get exactly that class. Default `false`.
   */
  readonly throwOnRetryableStatus?: boolean | StatusErrorClass;
}

/** The default of {@link UndiciRetryOptions.knownLengthBodyBytes}: 1 MiB. */
export const DEFAULT_KNOWN_LENGTH_BODY_BYTES = 1_048_576;

const ADAPTER_KEYS = ['infoHeaders', 'knownLengthBodyBytes', 'throwOnRetryableStatus'];

const checkAdapterOptions = (
  options: UndiciRetryOptions,
): RequestSettings & { knownLengthBodyBytes: number } => {
  for (const key of Object.keys(options)) {
    if (!ADAPTER_KEYS.includes(key)) throw new TypeError(`jitterbug: unknown undici adapter option "${key}"`);
  }
  const {
    infoHeaders = false,
    knownLengthBodyBytes = DEFAULT_KNOWN_LENGTH_BODY_BYTES,
    throwOnRetryableStatus = false,
  } = options;
  if (typeof throwOnRetryableStatus !== 'boolean' && typeof throwOnRetryableStatus !== 'function') {
    throw new TypeError('jitterbug: option "throwOnRetryableStatus" must be a boolean or an error class');
  }
  if (typeof infoHeaders !== 'boolean')
    throw new TypeError('jitterbug: option "infoHeaders" must be a boolean');
  if (
    typeof knownLengthBodyBytes !== 'number' ||
    !(knownLengthBodyBytes >= 0) ||
    !Number.isFinite(knownLengthBodyBytes)
  ) {
    throw new TypeError('jitterbug: option "knownLengthBodyBytes" must be a finite number >= 0');
  }
  const statusError =
    throwOnRetryableStatus === true ? RetryStatusError : throwOnRetryableStatus || undefined;
  return { infoHeaders, knownLengthBodyBytes, statusError };
};

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
 * handlers). Upgrades and `CONNECT` pass through unretried.
 *
 * @throws TypeError naming the option when an option is invalid.
 */
export const retryInterceptor = (
  optionsOrPolicy?: RetryPolicyOrOptions,
  adapterOptions: UndiciRetryOptions = {},
): RetryInterceptor => {
  const policy = toRetryPolicy(optionsOrPolicy);
  const settings = checkAdapterOptions(adapterOptions);
  const interceptor = (next: NextDispatch, interceptorOrigin?: unknown): NextDispatch =>
    function retryDispatch(opts: DispatchOpts, handler: NewHandler | LegacyHandler): boolean {
      const caller = toNewHandler(handler);
      if (opts.upgrade || opts.method === 'CONNECT') return next(opts, caller);
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
      const request = new RetryingRequest(next, caller, run, settings, caller === handler);
      if (run.body !== 'stream') return request.start(opts);
      const prepared = prepareBody(opts, run, headers, settings.knownLengthBodyBytes);
      return typeof prepared === 'function' ? request.prepare(prepared) : request.start(prepared);
    };
  return interceptor as unknown as RetryInterceptor;
};
