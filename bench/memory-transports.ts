/**
 * What the clients send through in the instruction counts, in place of the network: a dispatcher
 * for undici's `Agent`, a `fetch` for Node's (withRetry, fetch-retry, ky), an adapter for axios'
 * `'http'` (`attachRetry` wraps it as it wraps the real one). Each answers as the loopback server
 * (`server.ts`, with the headers Node adds, the body as one socket read) on the next turn of the
 * event loop, where a socket's data would come (answered in a microtask, a run never returned to the
 * event loop and its heap grew): a client's work per response, less the socket and the HTTP parser.
 */
import { Readable } from 'node:stream';
import { type AxiosAdapter, AxiosError, AxiosHeaders, type AxiosResponse } from 'axios';
import { Dispatcher } from 'undici';
import { type Answer, answerer } from './server.ts';

const wireOf = ({ status, body }: Answer) => {
  const headers = Object.entries({
    'content-type': 'application/json',
    'content-length': String(body.length),
    ...{ Date: 'Wed, 25 Nov 2026 10:58:36 GMT', Connection: 'keep-alive', 'Keep-Alive': 'timeout=60' },
  });
  const raw = headers.flatMap(([name, value]) => [Buffer.from(name), Buffer.from(value)]);
  // As a parser hands them over (undici's, Node's `IncomingMessage`): a new object, lower-case names.
  const object = (): Record<string, string> => {
    const o: Record<string, string> = {};
    for (const [name, value] of headers) o[name.toLowerCase()] = value;
    return o;
  };
  return { statusText: status === 200 ? 'OK' : 'Service Unavailable', headers, raw, object };
};
/** Made once per answer, so that the transports' own work stays small and fixed. */
const WIRES = new Map<Answer, ReturnType<typeof wireOf>>();
const wire = (a: Answer) => WIRES.get(a) ?? WIRES.set(a, wireOf(a)).get(a)!;
const pathOf = (url: string): string =>
  url.startsWith('/') ? url : url.slice(url.indexOf('/', url.indexOf('//') + 2));
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** What undici's `RequestController` offers a handler: pause, resume, abort. */
class Controller implements Dispatcher.DispatchController {
  aborted = false;
  paused = false;
  reason: Error | null = null;
  rawHeaders: Buffer[] | null = null;
  rawTrailers: Buffer[] | null = null;
  /** Delivers the rest of the response while it is under way. */
  proceed: (() => void) | undefined;
  readonly handler: Dispatcher.DispatchHandler;
  constructor(handler: Dispatcher.DispatchHandler) {
    this.handler = handler;
  }
  /** The response has ended (an abort changes nothing any more), or failed. */
  ended = false;
  failed = false;
  abort(reason: Error): void {
    if (this.aborted || this.ended) return;
    this.aborted = true;
    this.reason = reason;
    this.fail(reason);
  }
  /** Ends the response with `error`, once: what undici does when a handler throws or aborts. */
  fail(error: Error): void {
    if (this.failed) return;
    this.failed = true;
    this.proceed = undefined;
    this.handler.onResponseError?.(this, error);
  }
  pause(): void {
    this.paused = true;
  }
  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    if (this.proceed) queueMicrotask(this.proceed);
  }
}

/** Calls a handler as undici's HTTP/1 client does over a keep-alive socket. */
export class MemoryDispatcher extends Dispatcher {
  readonly #answer = answerer();

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const answer = this.#answer(options.path);
    const c = new Controller(handler);
    let step = 0;
    c.proceed = () => {
      try {
        if (step === 0) {
          handler.onResponseStarted?.();
          c.rawHeaders = wire(answer).raw;
          handler.onResponseStart?.(c, answer.status, wire(answer).object(), wire(answer).statusText);
          step = 1;
        }
        if (c.aborted || c.paused) return;
        if (step === 1) handler.onResponseData?.(c, answer.body.subarray());
        step = 2;
        if (c.aborted || c.paused) return;
        c.proceed = undefined;
        c.ended = true;
        c.rawTrailers = [];
        handler.onResponseEnd?.(c, {});
      } catch (error) {
        c.fail(error as Error);
      }
    };
    handler.onRequestStart?.(c, null);
    if (c.aborted) return true;
    handler.onRequestSent?.();
    setImmediate(() => c.proceed?.());
    return true;
  }

  override async close(): Promise<void> {}
  override async destroy(): Promise<void> {}
}

export const memoryFetch = () => {
  const answer = answerer();
  return async (input: Request | URL | string): Promise<Response> => {
    const a = answer(
      pathOf(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url),
    );
    await nextTurn();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(a.body.subarray());
        controller.close();
      },
    });
    return new Response(body, { status: a.status, statusText: wire(a).statusText, headers: wire(a).headers });
  };
};

/** The body as axios' http adapter gives it: decoded text, a `Buffer` or a stream, by `responseType`. */
export const memoryAdapter = (): AxiosAdapter => {
  const answer = answerer();
  return async (config) => {
    const a = answer(pathOf(config.url ?? '/'));
    await nextTurn();
    const [bytes, type, status] = [a.body.subarray(), config.responseType, a.status];
    const data =
      type === 'stream' ? Readable.from([bytes]) : type === 'arraybuffer' ? bytes : bytes.toString();
    const headers = new AxiosHeaders(wire(a).object());
    const { statusText } = wire(a);
    const response: AxiosResponse = { data, status, statusText, headers, config, request: {} };
    if (!config.validateStatus || config.validateStatus(status)) return response;
    const code = status < 500 ? AxiosError.ERR_BAD_REQUEST : AxiosError.ERR_BAD_RESPONSE;
    throw new AxiosError(`Request failed with status code ${status}`, code, config, {}, response);
  };
};
