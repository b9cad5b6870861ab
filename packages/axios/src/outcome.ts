/**
 * Translating what axios settled with into the core's terms: a status, or an error with the code
 * the core's `errorCodes` understand. Nothing here decides; it only says what happened.
 */
import type { HeaderGetter } from '@jitterbug/core';
import { type AttemptResult, errorCode, isProblemJson, problemType } from '@jitterbug/core/adapter';
import type { AxiosResponse } from 'axios';
import { lostReusedSocket } from '#platform';
import { AxiosError, AxiosHeaders, isAxiosError, isCancel } from './axios-values.ts';

/**
 * The headers of a request's config or of a response, as the core reads them (any case). Built on
 * first use: the core reads request headers only for a method it would not retry anyway, and
 * response headers only for a status it retries.
 */
export const headersOf = (holder: { readonly headers: unknown }): HeaderGetter => {
  let headers: AxiosHeaders | undefined;
  return (name) => {
    headers ??= AxiosHeaders.from(holder.headers as AxiosHeaders);
    const value = headers.get(name);
    return value === undefined || value === null || value === false ? undefined : String(value);
  };
};

/**
 * The attempt ended with a response, whatever `validateStatus` thought of it. `shown` is what
 * `shouldRetry` gets as `info.response` (default: the response itself, `data` as the adapter left it).
 * A failed answer's `application/problem+json` body gives its `problemType` (within `maxBytes`).
 */
export const statusResult = (
  response: AxiosResponse,
  maxBytes: number,
  shown: AxiosResponse = response,
): AttemptResult => {
  const headers = headersOf(response);
  const result = { status: response.status, headers, response: shown };
  if (response.status < 400 || !isProblemJson(headers('content-type'))) return result;
  const type = dataProblemType(shown.data, maxBytes, Number(headers('content-length')));
  return type === undefined ? result : { ...result, problemType: type };
};

/**
 * The `type` of a problem body as axios left it in `data`: text or bytes (`responseType` `text`,
 * `arraybuffer`), or the object axios parsed (JSON, by default), measured by its declared length.
 * Nothing of a stream or a `Blob`: the caller's to read.
 */
const dataProblemType = (data: unknown, maxBytes: number, declared: number): string | undefined => {
  if (typeof data === 'string' || data instanceof Uint8Array) return problemType(data, maxBytes);
  if (data instanceof ArrayBuffer) return problemType(new Uint8Array(data), maxBytes);
  if (typeof data !== 'object' || data === null || declared > maxBytes) return undefined;
  if (Symbol.asyncIterator in data || typeof (data as { pipe?: unknown }).pipe === 'function')
    return undefined;
  const type = (data as { type?: unknown }).type;
  return typeof type === 'string' && type !== '' ? type : undefined;
};

/**
 * Whether a rejection is `settle`'s (the status failed `validateStatus`) rather than a failure
 * while reading the body, which also carries the response.
 */
export const isStatusRejection = (error: unknown): error is AxiosError & { response: AxiosResponse } =>
  isAxiosError(error) &&
  error.response !== undefined &&
  error.cause === undefined &&
  error.message === `Request failed with status code ${error.response.status}`;

/**
 * An error whose code tells the core what an axios error means: axios reports a connection lost
 * in the middle of a body as `ERR_BAD_RESPONSE` ("stream has been aborted"), and its own timeout as
 * `ECONNABORTED`. The axios error is its `cause`; the caller never sees this one.
 */
export class AxiosTransportError extends Error {
  /** `ECONNRESET`, `ETIMEDOUT`, or the code under the fetch adapter's `ERR_NETWORK`. */
  readonly code: string;
  /**
   * @param code - the code the core should read.
   * @param cause - the axios error it stands for.
   */
  constructor(code: string, cause: unknown) {
    super(`${code}: ${(cause as Error).message}`, { cause });
    this.name = 'AxiosTransportError';
    this.code = code;
  }
}

/**
 * The attempt ended with an error; `aborted` when the caller cancelled it. Only translations that
 * are honest are made: a body cut off mid-way is a reset connection; `ECONNABORTED` is axios'
 * timeout (http, xhr) unless the browser aborted; `ERR_NETWORK` (xhr and fetch: any network failure)
 * is the socket's code under it when there is one (Node's fetch), else `ERR_NETWORK` itself (what a
 * browser gives: no code at all). A reset of a request the http adapter wrote on a reused
 * connection, before any answer, is the keep-alive race: `staleConnection`.
 */
export const errorResult = (error: unknown, cancelledByCaller: boolean): AttemptResult => {
  if (!isAxiosError(error)) return { error };
  const { code, message } = error;
  const network = code === AxiosError.ERR_NETWORK;
  const translated =
    code === AxiosError.ERR_BAD_RESPONSE && message === 'stream has been aborted'
      ? 'ECONNRESET'
      : // 'Request aborted': the xhr adapter's ECONNABORTED when the browser aborted the request (a
        // navigation, Firefox's status 0), not a timeout. Every other ECONNABORTED is axios' `timeout`.
        code === AxiosError.ECONNABORTED && message !== 'Request aborted'
        ? 'ETIMEDOUT'
        : // The fetch adapter keeps fetch's error (whose own cause holds the socket's code, e.g.
          // `UND_ERR_SOCKET`, `ECONNREFUSED`) as its cause; the xhr adapter and a browser's fetch have none.
          network && errorCode(error.cause);
  if (translated) return { error: new AxiosTransportError(translated, error) };
  if (network) return { error, code };
  return lostReusedSocket(error)
    ? { error, staleConnection: true }
    : { error, aborted: cancelledByCaller && isCancel(error) };
};
