/**
 * The shapes of undici's dispatch protocol that this adapter relies on, written structurally so the
 * same code serves undici 7, undici 8 and the undici inside Node's global `fetch` (6.x in Node 22,
 * 7.x in Node 24) without importing any of them at run time.
 */
import type { Duplex } from 'node:stream';

/** Response headers as undici hands them to new-API handlers: lower-case names. */
export type HeaderRecord = Record<string, string | string[] | undefined>;

/** Raw headers: alternating names and values, as the HTTP parser produced them. */
export type RawHeaders = Array<Buffer | string | Array<Buffer | string>>;

/** What a new-API handler is given to steer its request (undici's `DispatchController`). */
export interface Controller {
  readonly aborted: boolean;
  readonly paused: boolean;
  readonly reason: unknown;
  rawHeaders?: RawHeaders | HeaderRecord | null | undefined;
  rawTrailers?: RawHeaders | HeaderRecord | null | undefined;
  abort(reason: Error): void;
  pause(): void;
  resume(): void;
}

/** A handler in undici's current API (the only one undici 8 accepts). */
export interface NewHandler {
  onRequestStart?(controller: Controller, context: unknown): void;
  onRequestUpgrade?(controller: Controller, statusCode: number, headers: HeaderRecord, socket: Duplex): void;
  onResponseStarted?(): void;
  onResponseStart?(
    controller: Controller,
    statusCode: number,
    headers: HeaderRecord,
    statusMessage?: string,
  ): void;
  onResponseData?(controller: Controller, chunk: Buffer): void;
  onResponseEnd?(controller: Controller, trailers: HeaderRecord): void;
  onResponseError?(controller: Controller | null, error: Error): void;
  onRequestSent?(): void;
  onBodySent?(chunk: Buffer): void;
}

/** A handler in undici's legacy API (undici 6, and still accepted by undici 7). */
export interface LegacyHandler {
  onConnect?(abort: (reason?: Error) => void, context?: unknown): void;
  onResponseStarted?(): void;
  onHeaders?(
    statusCode: number,
    rawHeaders: RawHeaders,
    resume: () => void,
    statusText?: string,
  ): boolean | undefined;
  onUpgrade?(statusCode: number, rawHeaders: RawHeaders, socket: Duplex): void;
  onData?(chunk: Buffer): boolean | undefined;
  onComplete?(trailers: RawHeaders | null): void;
  onError?(error: Error): void;
  onRequestSent?(): void;
  onBodySent?(chunk: Buffer): void;
}

/** The options of one dispatch, as far as this adapter reads them. */
export interface DispatchOpts {
  origin?: string | URL;
  path: string;
  method: string;
  body?: unknown;
  headers?: unknown;
  upgrade?: boolean | string | null;
}

/** The next dispatch in the chain. */
export type NextDispatch = (opts: DispatchOpts, handler: NewHandler) => boolean;

/**
 * The dispatch function the interceptor returns, typed for `compose()` of undici 7 and 8 alike
 * (their declarations of options and handlers differ only nominally; undici declares `dispatch` as
 * a method, so these `never` parameters are accepted). Call it through the composed dispatcher.
 */
export type RetryDispatch = {
  /** Sends one request: `false` when the dispatcher needs a `drain` before the next. */
  dispatch(opts: never, handler: never): boolean;
}['dispatch'];

/** What `retryInterceptor` returns: an interceptor for `Dispatcher.compose` (undici 7 and 8). */
export type RetryInterceptor = (dispatch: (...args: never[]) => unknown, origin?: unknown) => RetryDispatch;

/** A response's head, held while the sequence decides on it. */
export interface Head {
  readonly controller: Controller;
  readonly statusCode: number;
  readonly headers: HeaderRecord;
  readonly statusMessage: string | undefined;
  /** The type of a hedged copy's problem body, read before its answer was told. */
  readonly problemType?: string | undefined;
  /** Why it cannot continue a broken body, when it answers a request for the rest that refuses it. */
  readonly refused: Error | undefined;
}

/** Where the body of the current attempt's answer goes: the caller, a drain, or a hold while a hook decides. */
export interface BodySink {
  data(chunk: Buffer): void;
  end(controller: Controller, trailers: HeaderRecord): void;
  error(error: Error): void;
}
