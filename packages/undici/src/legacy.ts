/**
 * Lets a legacy handler (`onConnect`, `onHeaders`, `onData`, …) be driven through undici's current
 * API, which is the only one undici 8 accepts. Node's global `fetch` (undici 6 in Node 22, 7 in
 * Node 24) hands interceptors a legacy handler, so without this an undici 8 dispatcher fails there
 * with "invalid onRequestStart method". The adapter delegates to the handler object itself: its
 * methods keep their `this` (a copy such as `{ ...handler }` would lose class methods).
 */
import type { Duplex } from 'node:stream';
import type { Controller, HeaderRecord, LegacyHandler, NewHandler, RawHeaders } from './types.ts';

type ResponseStartArgs = Parameters<NonNullable<NewHandler['onResponseStart']>>;

const rawValue = (value: string | string[]): Buffer | Buffer[] =>
  Array.isArray(value) ? value.map((v) => Buffer.from(v, 'latin1')) : Buffer.from(value, 'latin1');

/** Raw headers for a legacy handler: the parser's own array when the controller has it. */
export const toRawHeaders = (
  raw: Controller['rawHeaders'],
  headers: HeaderRecord | null | undefined,
): RawHeaders => {
  if (Array.isArray(raw)) return raw;
  const out: RawHeaders = [];
  const source = raw ?? headers;
  if (source) {
    for (const name of Object.keys(source)) {
      const value = source[name];
      if (value !== undefined) out.push(Buffer.from(name, 'latin1'), rawValue(value));
    }
  }
  return out;
};

const abortError = (): Error => new DOMException('This operation was aborted', 'AbortError');

/** A new-API view of a legacy handler. */
export class LegacyHandlerAdapter implements NewHandler {
  readonly #handler: LegacyHandler;

  constructor(handler: LegacyHandler) {
    this.#handler = handler;
  }

  onRequestStart(controller: Controller, context: unknown): void {
    // Legacy callers (Node 22's fetch) may abort without a reason.
    this.#handler.onConnect?.((reason) => controller.abort(reason ?? abortError()), context);
  }

  onResponseStarted(): void {
    this.#handler.onResponseStarted?.();
  }

  onRequestUpgrade(controller: Controller, statusCode: number, headers: HeaderRecord, socket: Duplex): void {
    this.#handler.onUpgrade?.(statusCode, toRawHeaders(controller.rawHeaders, headers), socket);
  }

  // Typed from `NewHandler`'s declaration. A legacy handler is Node's global fetch's, where the
  // array of the rest parameter (about 25 ns until V8 optimises this) is lost in fetch's own cost.
  onResponseStart(...head: ResponseStartArgs): void {
    const controller = head[0];
    const statusCode = head[1];
    const raw = toRawHeaders(controller.rawHeaders, head[2]);
    const goOn = this.#handler.onHeaders?.(statusCode, raw, () => controller.resume(), head[3]);
    // An interim (1xx) answer is not the response: pausing on it would stall the real one.
    if (goOn === false && statusCode >= 200) controller.pause();
  }

  onResponseData(controller: Controller, chunk: Buffer): void {
    if (this.#handler.onData?.(chunk) === false) controller.pause();
  }

  onResponseEnd(controller: Controller, trailers: HeaderRecord): void {
    this.#handler.onComplete?.(toRawHeaders(controller.rawTrailers, trailers));
  }

  onResponseError(_controller: Controller | null, error: Error): void {
    if (!this.#handler.onError) throw error;
    this.#handler.onError(error);
  }

  onRequestSent(): void {
    this.#handler.onRequestSent?.();
  }

  onBodySent(chunk: Buffer): void {
    this.#handler.onBodySent?.(chunk);
  }
}

/** The handler itself when it speaks the current API, else a {@link LegacyHandlerAdapter} over it. */
export const toNewHandler = (handler: NewHandler | LegacyHandler): NewHandler =>
  typeof (handler as NewHandler).onRequestStart === 'function'
    ? (handler as NewHandler)
    : new LegacyHandlerAdapter(handler as LegacyHandler);
