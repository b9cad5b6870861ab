/**
 * An undici dispatcher that answers from memory, in place of the `Agent` (`bench/clients/undici-*`
 * compose their interceptor on it as on the agent). It calls a handler as undici's HTTP/1 client
 * does over a keep-alive socket: `onRequestStart` (context `null`) and `onRequestSent` within
 * `dispatch`, then, on the next turn of the event loop (`setImmediate`, where a socket's data would
 * come), `onResponseStarted`, `onResponseStart` with the parsed headers (the raw ones on the
 * controller), one `onResponseData` per socket read and `onResponseEnd`. A pause holds the rest of
 * the body until `resume()`.
 */
import { Dispatcher } from 'undici';
import { answerer } from './answers.ts';
import { bodyChunks, headerObject, type MemoryResponse, memoryResponse } from './memory-response.ts';

type Handler = Dispatcher.DispatchHandler;

/** What undici's `RequestController` offers a handler, and the end of a response by an error. */
class MemoryController implements Dispatcher.DispatchController {
  aborted = false;
  paused = false;
  reason: Error | null = null;
  /** The response has ended: an abort from now on changes nothing. */
  ended = false;
  rawHeaders: Buffer[] | null = null;
  rawTrailers: Buffer[] | null = null;
  /** Delivers the rest of the response (set while a response is under way). */
  proceed: (() => void) | undefined;
  #failed = false;
  readonly #handler: Handler;

  constructor(handler: Handler) {
    this.#handler = handler;
  }

  abort(reason: Error): void {
    if (this.aborted || this.ended) return;
    this.aborted = true;
    this.reason = reason;
    this.fail(reason);
  }

  /** Ends the response with `error`, once: what undici does when a handler throws or aborts. */
  fail(error: Error): void {
    if (this.#failed) return;
    this.#failed = true;
    this.proceed = undefined;
    this.#handler.onResponseError?.(this, error);
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    const proceed = this.proceed;
    if (proceed) queueMicrotask(proceed);
  }
}

const rawHeadersOf = new WeakMap<MemoryResponse, Buffer[]>();
const rawHeaders = (response: MemoryResponse): Buffer[] => {
  let raw = rawHeadersOf.get(response);
  if (!raw) {
    raw = response.headers.flatMap(([name, value]) => [Buffer.from(name), Buffer.from(value)]);
    rawHeadersOf.set(response, raw);
  }
  return raw;
};

/** Sends `response` to `handler` from its status on, as far as the handler lets it (pauses, aborts). */
const deliver = (response: MemoryResponse, handler: Handler, controller: MemoryController): void => {
  const chunks = bodyChunks(response);
  let next = -1;
  const proceed = (): void => {
    try {
      if (next === -1) {
        handler.onResponseStarted?.();
        controller.rawHeaders = rawHeaders(response);
        handler.onResponseStart?.(controller, response.status, headerObject(response), response.statusText);
        next = 0;
      }
      while (next < chunks.length) {
        if (controller.aborted || controller.paused) return;
        handler.onResponseData?.(controller, chunks[next++]!);
      }
      if (controller.aborted || controller.paused) return;
      controller.proceed = undefined;
      controller.ended = true;
      controller.rawTrailers = [];
      handler.onResponseEnd?.(controller, {});
    } catch (error) {
      controller.fail(error as Error);
    }
  };
  controller.proceed = proceed;
  proceed();
};

export class MemoryDispatcher extends Dispatcher {
  readonly #answers = answerer();

  override dispatch(options: Dispatcher.DispatchOptions, handler: Handler): boolean {
    const response = memoryResponse(this.#answers.answer(options.path));
    const controller = new MemoryController(handler);
    handler.onRequestStart?.(controller, null);
    if (controller.aborted) return true;
    handler.onRequestSent?.();
    setImmediate(() => {
      if (!controller.aborted) deliver(response, handler, controller);
    });
    return true;
  }

  override close(): Promise<void> {
    return Promise.resolve();
  }

  override destroy(): Promise<void> {
    return Promise.resolve();
  }
}
