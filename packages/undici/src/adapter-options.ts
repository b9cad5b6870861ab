/**
 * `retryInterceptor`'s own settings (`retryInterceptor(options, adapterOptions)`), and their check.
 */
import { checkOptions, fail, numberIn } from '@jitterbug/core/adapter';
import type { RequestSettings } from './caller-side.ts';
import { RetryStatusError, type StatusErrorClass } from './status-error.ts';

/** Settings of the undici adapter itself (retry behaviour is configured by the policy). */
export interface UndiciAdapterOptions {
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
   * `bodyBuffering`). Default 1 MiB; `0` turns it off (then a fetch request with a body is never
   * retried unless `bodyBuffering: createBodyBuffering({ maxBytes })` covers it).
   */
  readonly knownLengthBodyMaxBytes?: number;
  /**
   * When the last attempt got a status the policy retries (503 after `maxAttempts`, a 429 whose
   * `Retry-After` is too long, a budget used up, …), fail the request with an error instead of
   * handing that response over, as undici's `RetryAgent` does: `true` for jitterbug's
   * {@link RetryStatusError} (`code` `'UND_ERR_REQ_RETRY'`, `statusCode`, `headers`, `data.count`), or
   * undici's own `errors.RequestRetryError` class to get exactly that class. Default `false`.
   */
  readonly throwOnRetryableStatus?: boolean | StatusErrorClass;
}

/** The default of {@link UndiciAdapterOptions.knownLengthBodyMaxBytes}: 1 MiB. */
export const DEFAULT_KNOWN_LENGTH_BODY_MAX_BYTES = 1_048_576;

const ADAPTER_OPTIONS = {
  infoHeaders: (v: unknown, n: string) => (typeof v === 'boolean' ? v : fail(n, 'a boolean', v)),
  knownLengthBodyMaxBytes: (v: unknown, n: string) => numberIn(v, n, 0),
  throwOnRetryableStatus: (v: unknown, n: string) =>
    v === true
      ? RetryStatusError
      : v === false
        ? undefined
        : typeof v === 'function'
          ? (v as StatusErrorClass)
          : fail(n, 'a boolean or an error class', v),
};

/**
 * The settings a request reads, from {@link UndiciAdapterOptions}.
 *
 * @throws TypeError naming the option when one is invalid or unknown.
 */
export const checkAdapterOptions = (
  options: UndiciAdapterOptions | undefined,
): RequestSettings & { knownLengthBodyMaxBytes: number } => {
  const checked = checkOptions(options, ADAPTER_OPTIONS, 'retryInterceptor');
  return {
    infoHeaders: checked.infoHeaders ?? false,
    knownLengthBodyMaxBytes: checked.knownLengthBodyMaxBytes ?? DEFAULT_KNOWN_LENGTH_BODY_MAX_BYTES,
    statusError: checked.throwOnRetryableStatus,
  };
};
