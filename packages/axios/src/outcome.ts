/**
 * Translating what axios settled with into the core's terms: a status, or an error with the code
 * the core's `errorCodes` understand. Nothing here decides; it only says what happened.
 */
import type { HeaderGetter } from '@jitterbug/core';
import { type AttemptResult, errorCode } from '@jitterbug/core/adapter';
import { AxiosError, AxiosHeaders, type AxiosResponse, isAxiosError, isCancel } from 'axios';

/** Response headers as the core reads them (any case). */
export const responseHeaders = (response: AxiosResponse): HeaderGetter => {
  // Built on first use: the core reads response headers only for a status it retries.
  let headers: AxiosHeaders | undefined;
  return (name) => {
    headers ??= AxiosHeaders.from(response.headers as AxiosHeaders);
    const value = headers.get(name);
    return value === undefined || value === null || value === false ? undefined : String(value);
  };
};

/** The attempt ended with a response, whatever `validateStatus` thought of it. */
export const statusResult = (response: AxiosResponse): AttemptResult => ({
  status: response.status,
  headers: responseHeaders(response),
});

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
 * in the middle of a body as `ERR_BAD_RESPONSE` ("stream has been aborted"), and its own timeout in
 * the http adapter as `ECONNABORTED`. The axios error is its `cause`; the caller never sees this one.
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
 * The error as the core should see it. Only translations that are honest are made: a body cut off
 * mid-way is a reset connection; `ECONNABORTED` from axios' http adapter is only ever its timeout.
 */
export const errorForCore = (error: unknown, httpAdapter: boolean): unknown => {
  if (!isAxiosError(error)) return error;
  if (error.code === AxiosError.ERR_BAD_RESPONSE && error.message === 'stream has been aborted') {
    return new AxiosTransportError('ECONNRESET', error);
  }
  if (httpAdapter && error.code === AxiosError.ECONNABORTED)
    return new AxiosTransportError('ETIMEDOUT', error);
  // The fetch adapter calls every failure of fetch `ERR_NETWORK` and keeps fetch's error (whose own
  // cause holds the socket's code, e.g. `UND_ERR_SOCKET`, `ECONNREFUSED`) as its cause.
  if (error.code === AxiosError.ERR_NETWORK) {
    const code = errorCode(error.cause);
    if (code !== undefined) return new AxiosTransportError(code, error);
  }
  return error;
};

/** The attempt ended with an error; `aborted` when the caller cancelled it. */
export const errorResult = (
  error: unknown,
  httpAdapter: boolean,
  cancelledByCaller: boolean,
): AttemptResult => ({
  error: errorForCore(error, httpAdapter),
  aborted: cancelledByCaller && isCancel(error),
});
