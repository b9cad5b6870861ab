/**
 * The `fetch` adapter's stream-mode bodies (with `discardedBodyCap`), in any runtime: a response
 * that axios' fetch adapter handed over as a web stream (`responseType: 'stream'`) is read here up
 * to a byte cap, so that a body to be discarded is cancelled there instead of downloaded; a body the
 * caller gets is turned into exactly what the fetch adapter would have produced, with the same
 * errors (`lib/adapters/fetch.js`, axios 1.x).
 */
import type { AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import { AxiosError, isAxiosError } from './axios-values.ts';
import {
  type BodyPhase,
  concatBytes,
  maxContentLengthOf,
  overContentLength,
  type ResponseBodyReader,
  type StreamBody,
} from './response-body.ts';

/** What the fetch adapter rejects with when reading or converting a body fails. */
export const fetchAdapterError = (
  error: unknown,
  config: InternalAxiosRequestConfig,
  request: unknown,
): AxiosError => {
  if (isAxiosError(error)) return error;
  const e = error as { name?: string; message?: string; code?: string; cause?: unknown } | null;
  if (e?.name === 'TypeError' && /Load failed|fetch/i.test(String(e.message))) {
    const networkError = new AxiosError('Network Error', AxiosError.ERR_NETWORK, config, request);
    Object.defineProperty(networkError, 'cause', {
      value: e.cause ?? error,
      writable: true,
      enumerable: false,
      configurable: true,
    });
    return networkError;
  }
  return AxiosError.from(error as Error, e?.code, config, request);
};

/** Reads a web-stream response body: up to a cap first, then (if told to) to the end. */
export class WebBodyReader implements ResponseBodyReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  readonly #response: AxiosResponse;
  readonly #config: InternalAxiosRequestConfig;
  readonly #maxContentLength: number;
  #cap: number;
  #chunks: Uint8Array[] = [];
  #bytes = 0;
  #final: BodyPhase | undefined;

  /**
   * @param response - the fetch adapter's response, `data` being the body stream (or `null`).
   * @param config - the config the caller's errors carry.
   * @param cap - stop and report `over-cap` once more than this many bytes arrived.
   */
  constructor(response: AxiosResponse, config: InternalAxiosRequestConfig, cap: number) {
    const body = response.data as ReadableStream<Uint8Array> | null | undefined;
    this.#reader = body ? body.getReader() : undefined;
    this.#response = response;
    this.#config = config;
    this.#cap = cap;
    this.#maxContentLength = maxContentLengthOf(config);
  }

  /** The next phase: `over-cap` (once), then `ended` or `failed`. */
  async next(): Promise<BodyPhase> {
    if (this.#final) return this.#final;
    const reader = this.#reader;
    if (!reader) return this.#settle({ kind: 'ended', body: new Uint8Array(0) });
    try {
      // A web stream is pulled: not reading past the cap is all the pausing it needs.
      while (this.#bytes <= this.#cap) {
        const { done, value } = await reader.read();
        if (done) return this.#settle({ kind: 'ended', body: concatBytes(this.#chunks, this.#bytes) });
        this.#chunks.push(value);
        this.#bytes += value.byteLength;
        const tooLong = overContentLength(
          this.#bytes,
          this.#maxContentLength,
          this.#config,
          this.#response.request,
        );
        if (tooLong) {
          reader.cancel().catch(() => undefined);
          return this.#settle({ kind: 'failed', error: tooLong });
        }
      }
      return { kind: 'over-cap' };
    } catch (error) {
      return this.#settle({
        kind: 'failed',
        error: fetchAdapterError(error, this.#config, this.#response.request),
      });
    }
  }

  /** After `over-cap`: keep reading to the end, as the fetch adapter would have. */
  readToEnd(): void {
    this.#cap = Number.POSITIVE_INFINITY;
  }

  /** Drops the body: one read to its end has freed its connection; otherwise it is cancelled. */
  discard(): void {
    this.#chunks = [];
    if (this.#final?.kind === 'ended') return;
    this.#reader?.cancel().catch(() => undefined);
  }

  #settle(phase: BodyPhase): BodyPhase {
    this.#chunks = [];
    this.#final = phase;
    return phase;
  }
}

// The fetch adapter's resolvers, by `responseType` (case-insensitive); anything else is read as text.
const RESOLVERS: Readonly<Record<string, 'arrayBuffer' | 'blob' | 'formData'>> = {
  arraybuffer: 'arrayBuffer',
  blob: 'blob',
  formdata: 'formData',
};

/**
 * The body as axios' fetch adapter delivers it: an `ArrayBuffer`, a `Blob`, `FormData`, or text
 * (for `json`, `text` and the rest: axios' `transformResponse` parses JSON afterwards).
 */
export const convertFetchBody = async (
  body: Uint8Array,
  response: AxiosResponse,
  config: InternalAxiosRequestConfig,
): Promise<unknown> => {
  const type = config.responseType ? String(config.responseType).toLowerCase() : 'text';
  const method = RESOLVERS[type] ?? 'text';
  const contentType = (response.headers as { get?: (name: string) => unknown })?.get?.('content-type');
  // The reader's bytes are in a plain ArrayBuffer: used as they are, not copied.
  const replay = new Response(body.byteLength ? (body as Uint8Array<ArrayBuffer>) : null, {
    headers: typeof contentType === 'string' ? { 'content-type': contentType } : {},
  });
  try {
    return await replay[method]();
  } catch (error) {
    throw fetchAdapterError(error, config, response.request);
  }
};

/** The fetch adapter's stream-mode bodies. */
export const fetchBody: StreamBody = { reader: WebBodyReader, convert: convertFetchBody };
