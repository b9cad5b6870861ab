/**
 * Reading a response that axios' http adapter handed over as a Node stream (the adapter's
 * `responseType: 'stream'`, asked for only with `discardedBodyCap`), so that a response to be
 * discarded is read only up to a byte cap, and a response the caller gets is turned into exactly
 * what axios' own buffering would have produced. The error cases mirror `lib/adapters/http.js`
 * (axios 1.x): the same errors, in the same order. Node only: reached through `#platform`.
 */
import type { Readable } from 'node:stream';
import type { AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import { AxiosError, isAxiosError } from '../axios-values.ts';
import {
  type BodyPhase,
  maxContentLengthOf,
  overContentLength,
  type ResponseBodyReader,
  type StreamBody,
} from '../response-body.ts';
import { destroyBody } from './destroy-body.ts';

const STREAM_ABORTED = 'stream has been aborted';

/** Reads a stream-mode response body of the http adapter: up to a cap first, then (if told to) to the end. */
export class BodyReader implements ResponseBodyReader {
  readonly #stream: Readable;
  readonly #response: AxiosResponse;
  readonly #config: InternalAxiosRequestConfig;
  readonly #maxContentLength: number;
  #cap: number;
  #chunks: Buffer[] = [];
  #bytes = 0;
  #final: BodyPhase | undefined;
  #overCap = false;
  #waiter: ((phase: BodyPhase) => void) | undefined;

  /**
   * @param response - the adapter's response, `data` being the body stream.
   * @param config - the config the caller's errors carry.
   * @param cap - pause and report `over-cap` once more than this many bytes arrived.
   */
  constructor(response: AxiosResponse, config: InternalAxiosRequestConfig, cap: number) {
    this.#stream = response.data as Readable;
    this.#response = response;
    this.#config = config;
    this.#cap = cap;
    this.#maxContentLength = maxContentLengthOf(config);
    const stream = this.#stream;
    stream.on('data', (chunk: Buffer) => this.#onData(chunk));
    // Node's IncomingMessage reports a connection lost mid-body as 'aborted' before 'error'.
    stream.on('aborted', () =>
      this.#fail(
        new AxiosError(STREAM_ABORTED, AxiosError.ERR_BAD_RESPONSE, config, response.request, response),
        true,
      ),
    );
    stream.on('error', (error: unknown) =>
      // Errors axios itself emits into the stream (its abort: cancel, timeout) reach the caller as
      // they are; anything else is wrapped, as the buffering adapter does.
      this.#fail(
        isAxiosError(error)
          ? error
          : AxiosError.from(error as Error, undefined, config, response.request, response),
        false,
      ),
    );
    stream.on('end', () => this.#end());
  }

  /** The next phase: `over-cap` (once), then `ended` or `failed`. */
  next(): Promise<BodyPhase> {
    if (this.#final) return Promise.resolve(this.#final);
    if (this.#overCap) return Promise.resolve({ kind: 'over-cap' });
    return new Promise((resolve) => {
      this.#waiter = resolve;
    });
  }

  /** After `over-cap`: keep reading to the end, as axios would have. */
  readToEnd(): void {
    this.#cap = Number.POSITIVE_INFINITY;
    this.#overCap = false;
    this.#stream.resume();
  }

  /** Drops the body: a body read to its end has freed its connection; otherwise the connection is closed. */
  discard(): void {
    this.#chunks = [];
    if (this.#final?.kind === 'ended') return;
    destroyBody(this.#response);
  }

  #onData(chunk: Buffer): void {
    if (this.#final) return;
    this.#chunks.push(chunk);
    this.#bytes += chunk.length;
    const tooLong = overContentLength(
      this.#bytes,
      this.#maxContentLength,
      this.#config,
      this.#response.request,
    );
    if (tooLong) {
      this.#fail(tooLong, false);
      // After failing: destroying may emit 'aborted', which must not replace this error.
      destroyBody(this.#response);
      return;
    }
    if (this.#bytes > this.#cap && !this.#overCap) {
      this.#stream.pause();
      this.#overCap = true;
      this.#emit({ kind: 'over-cap' });
    }
  }

  #end(): void {
    if (this.#final) return;
    const chunks = this.#chunks;
    this.#chunks = [];
    this.#settle({ kind: 'ended', body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) });
  }

  #fail(error: unknown, destroy: boolean): void {
    if (this.#final) return;
    this.#chunks = [];
    this.#settle({ kind: 'failed', error });
    if (destroy) this.#stream.destroy();
  }

  #settle(phase: BodyPhase): void {
    this.#final = phase;
    this.#overCap = false;
    this.#emit(phase);
  }

  #emit(phase: BodyPhase): void {
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.(phase);
  }
}

const EMPTY = Buffer.alloc(0);

/**
 * The whole body of an http-adapter response when it has already arrived, taken in one read; else
 * `undefined` (still arriving, decompressed through a pipeline, or already being read).
 *
 * A small response usually arrives in the same socket read as its headers, so by the time the
 * adapter's promise settles Node's `IncomingMessage` holds all of it (`complete`). Taking it with
 * one `read()` spares the flowing-mode machinery a {@link BodyReader} sets up (listeners, `resume`,
 * a promise per phase), which cost more than everything else jitterbug does in stream mode.
 * The stream still ends normally, so its keep-alive socket goes back to the pool.
 */
export const readArrivedBody = (response: AxiosResponse): Buffer | undefined => {
  const data = response.data as (Readable & { complete?: unknown }) | null | undefined;
  if (
    typeof data !== 'object' ||
    data === null ||
    data.complete !== true ||
    data.readableFlowing !== null ||
    data.destroyed
  ) {
    return undefined;
  }
  const chunk = data.read() as Buffer | null;
  return chunk ?? EMPTY;
};

const stripBom = (text: string): string => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

/** The bytes as a `Buffer` without a copy. */
const asBuffer = (body: Uint8Array): Buffer =>
  Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);

/**
 * The body as axios' buffering http adapter delivers it: a `Buffer` for `arraybuffer`, else a
 * string in `responseEncoding` (BOM stripped for UTF-8). Throws what that adapter rejects with.
 */
export const convertBody = (
  body: Uint8Array,
  response: AxiosResponse,
  config: InternalAxiosRequestConfig,
): Buffer | string => {
  const buffer = asBuffer(body);
  if (config.responseType === 'arraybuffer') return buffer;
  try {
    const encoding = config.responseEncoding;
    const text = buffer.toString(encoding as BufferEncoding | undefined);
    return !encoding || encoding === 'utf8' ? stripBom(text) : text;
  } catch (error) {
    throw AxiosError.from(error as Error, undefined, config, response.request, response);
  }
};

/** The http adapter's stream-mode bodies. */
export const httpBody: StreamBody = { reader: BodyReader, convert: convertBody, arrived: readArrivedBody };
