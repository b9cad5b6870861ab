/**
 * What every runtime shares about response bodies: the phases of a body read in stream mode (opt-in,
 * `discardedBodyCap`), axios' `maxContentLength` check, dropping a body, and axios' `settle`. The
 * readers themselves are per adapter: `fetch-body.ts` (web streams, any runtime) and
 * `node/http-body.ts` (the http adapter's Node streams, behind the `node` condition).
 */
import type { AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import { AxiosError } from './axios-values.ts';

/** Where reading a body stands. `over-cap`: more than the cap arrived and reading has paused. */
export type BodyPhase =
  | { readonly kind: 'ended'; readonly body: Uint8Array }
  | { readonly kind: 'failed'; readonly error: unknown }
  | { readonly kind: 'over-cap' };

/** A body read in stream mode, whichever adapter produced the stream. */
export interface ResponseBodyReader {
  /** The next phase: `over-cap` (once), then `ended` or `failed`. */
  next(): Promise<BodyPhase>;
  /** After `over-cap`: keep reading to the end. */
  readToEnd(): void;
  /** Drops the body, closing its connection unless it was read to its end. */
  discard(): void;
}

/** How one adapter's stream-mode bodies are read, and turned into what the adapter would have given. */
export interface StreamBody {
  readonly reader: new (
    response: AxiosResponse,
    config: InternalAxiosRequestConfig,
    cap: number,
  ) => ResponseBodyReader;
  /** The body as the adapter itself delivers it (throws, or rejects with, what it would). */
  readonly convert: (
    body: Uint8Array,
    response: AxiosResponse,
    config: InternalAxiosRequestConfig,
  ) => unknown;
  /**
   * The whole body when it has already arrived, taken at once; else `undefined` (use a reader).
   * Only for an adapter whose `convert` is synchronous (the http adapter's).
   */
  readonly arrived?: (response: AxiosResponse) => Uint8Array | undefined;
}

/** `config.maxContentLength` as axios' adapters read it: -1 (no limit) unless it is a number. */
export const maxContentLengthOf = (config: InternalAxiosRequestConfig): number => {
  const max = config.maxContentLength;
  return typeof max === 'number' ? max : -1;
};

/** The error axios' adapters reject with when `bytes` is over `max` (-1: no limit), else `undefined`. */
export const overContentLength = (
  bytes: number,
  max: number,
  config: InternalAxiosRequestConfig,
  request: unknown,
): AxiosError | undefined =>
  max > -1 && bytes > max
    ? new AxiosError(`maxContentLength size of ${max} exceeded`, AxiosError.ERR_BAD_RESPONSE, config, request)
    : undefined;

/** The chunks as one array (no copy for a single chunk). */
export const concatBytes = (chunks: readonly Uint8Array[], bytes: number): Uint8Array => {
  if (chunks.length === 1) return chunks[0]!;
  const all = new Uint8Array(bytes);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return all;
};

/**
 * Cancels a response's unfinished web body stream (axios' fetch adapter's `responseType: 'stream'`),
 * so a half-read connection is never reused; any other body is left alone. `#platform`'s
 * `destroyBody` is this outside Node; Node's also closes the http adapter's streams.
 */
export const cancelWebBody = (response: AxiosResponse): void => {
  const data = response.data as { cancel?: () => Promise<void> } | null | undefined;
  if (typeof data === 'object' && typeof data?.cancel === 'function') data.cancel().catch(() => {});
};

/** What axios' `settle` does: resolve, or reject per `validateStatus`. */
export const settle = (response: AxiosResponse): AxiosResponse => {
  const { status } = response;
  const validateStatus = response.config.validateStatus;
  if (!status || !validateStatus || validateStatus(status)) return response;
  throw new AxiosError(
    `Request failed with status code ${status}`,
    status >= 400 && status < 500 ? AxiosError.ERR_BAD_REQUEST : AxiosError.ERR_BAD_RESPONSE,
    response.config,
    response.request,
    response,
  );
};
