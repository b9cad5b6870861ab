/**
 * Conformance drivers for `@jitterbug/undici`: one interceptor, composed onto an undici 8 or an
 * undici 7 `Agent`, serving undici's `request()`, undici's `fetch()` and Node's global `fetch`.
 *
 * Retry info is read the documented ways: `getRetryInfo(error)` (fetch: `error.cause`) for errors,
 * `getRetryInfo(res)` for undici 8's `request()`, otherwise the policy's `onFinish` (only
 * when the scenario passes options, not a ready policy; matched by method and URL, in order).
 */
import { Readable } from 'node:stream';
import { AttemptTimeoutError, getRetryInfo, type RetryInfo } from '@jitterbug/core';
import { retryInterceptor } from '@jitterbug/undici';
import * as undici8 from 'undici';
import * as undici7 from 'undici7';
import {
  type ConformanceBody,
  type ConformanceClient,
  type ConformanceDriver,
  type ConformanceOutcome,
  type ConformanceRequest,
  type ConformanceResult,
  type DriverOptions,
  policyOf,
  type Transport,
  type UnprocessedSignals,
} from '../driver.ts';
import { lengthMismatchDeclared } from './overlong.ts';
import { readOutcome } from './read-body.ts';
import { agentOptions } from './transport.ts';

/**
 * `global-fetch`: Node's fetch with `{ dispatcher }` (Node's bundled undici hands the interceptor
 * legacy handlers); `global-dispatcher`: Node's fetch with no option, after `setGlobalDispatcher`
 * (undici 8 installs a wrapper that speaks the new API to it).
 */
type Client = 'request' | 'fetch' | 'global-fetch' | 'global-dispatcher';
type Undici = typeof undici8 | typeof undici7;

// What the drivers use of request() in both majors (their declarations differ only nominally).
interface RequestResult {
  readonly statusCode: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: AsyncIterable<Uint8Array>;
}
type RequestFn = (url: string, options: Record<string, unknown>) => Promise<RequestResult>;

interface Encoded {
  readonly headers: Record<string, string>;
  readonly body: string | Uint8Array | URLSearchParams | Readable | ReadableStream<Uint8Array> | undefined;
}

const encodeBody = (body: ConformanceBody | undefined, client: Client): Encoded => {
  if (body === undefined) return { headers: {}, body: undefined };
  switch (body.kind) {
    case 'text':
      return { headers: { 'content-type': 'text/plain;charset=UTF-8' }, body: body.value };
    case 'json':
      return { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body.value) };
    case 'bytes':
      return { headers: { 'content-type': 'application/octet-stream' }, body: body.value };
    case 'form':
      // undici's request() would take URLSearchParams for an iterable of pairs: send its text.
      return {
        headers: { 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8' },
        body: client === 'request' ? body.value.toString() : body.value,
      };
    case 'stream': {
      const chunks = body.chunks;
      if (client === 'request')
        return { headers: {}, body: Readable.from(chunks.map((c) => Buffer.from(c))) };
      const encoder = new TextEncoder();
      return {
        headers: {},
        body: new ReadableStream<Uint8Array>({
          start(controller) {
            for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
            controller.close();
          },
        }),
      };
    }
  }
};

const recordToHeaders = (record: Record<string, string | string[] | undefined>): Headers => {
  const headers = new Headers();
  for (const [name, value] of Object.entries(record)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.append(name, value);
  }
  return headers;
};

/** Collects `onFinish` summaries so a fetch caller can pick up its own (by method and URL, in order). */
class FinishLog {
  readonly #byKey = new Map<string, RetryInfo[]>();
  record(summary: RetryInfo): void {
    const key = `${summary.method} ${summary.url}`;
    const list = this.#byKey.get(key);
    if (list) list.push(summary);
    else this.#byKey.set(key, [summary]);
  }
  take(method: string, url: string): RetryInfo | undefined {
    return this.#byKey.get(`${method.toUpperCase()} ${url}`)?.shift();
  }
}

const GLOBAL_1 = Symbol.for('undici.globalDispatcher.1');
const GLOBAL_2 = Symbol.for('undici.globalDispatcher.2');
const globals = globalThis as unknown as Record<symbol, unknown>;

/**
 * The global dispatcher is one per process: each client installs its own and the last one closed
 * puts back what was there before the first.
 */
const globalDispatchers = {
  installed: [] as unknown[],
  saved: undefined as { one: unknown; two: unknown; hadTwo: boolean } | undefined,
  install(undici: Undici, dispatcher: unknown): void {
    this.saved ??= { one: globals[GLOBAL_1], two: globals[GLOBAL_2], hadTwo: GLOBAL_2 in globals };
    this.installed.push(dispatcher);
    (undici.setGlobalDispatcher as (d: unknown) => void)(dispatcher);
  },
  uninstall(undici: Undici, dispatcher: unknown): void {
    this.installed = this.installed.filter((d) => d !== dispatcher);
    const top = this.installed.at(-1);
    if (top !== undefined) {
      (undici.setGlobalDispatcher as (d: unknown) => void)(top);
      return;
    }
    const saved = this.saved!;
    globals[GLOBAL_1] = saved.one;
    if (saved.hadTwo) globals[GLOBAL_2] = saved.two;
    this.saved = undefined;
  },
};

const create = (
  undici: Undici,
  client: Client,
  baseUrl: string,
  options: DriverOptions,
  transport: Transport | undefined,
): ConformanceClient => {
  const log = new FinishLog();
  const policy = policyOf(options, (summary) => log.record(summary));
  const agent = new undici.Agent(agentOptions(transport));
  // Both majors' compose take the same interceptor; their declarations differ only nominally.
  const dispatcher = (agent as undici8.Agent).compose(retryInterceptor(policy));

  const viaRequest = async (req: ConformanceRequest, url: string): Promise<ConformanceResult> => {
    const { headers, body } = encodeBody(req.body, 'request');
    let res: RequestResult;
    try {
      res = await (undici.request as unknown as RequestFn)(url, {
        dispatcher,
        method: req.method,
        headers: { ...headers, ...req.headers },
        ...(body === undefined ? {} : { body }),
        ...(req.signal ? { signal: req.signal } : {}),
      });
    } catch (error) {
      return { outcome: { kind: 'error', error }, info: getRetryInfo(error) ?? log.take(req.method, url) };
    }
    // undici 8 hands request() the headers object jitterbug tagged; undici 7 rebuilds it from raw headers.
    const tagged = getRetryInfo(res);
    const outcome = await readOutcome(res.statusCode, recordToHeaders(res.headers), res.body);
    const logged = log.take(req.method, url);
    return { outcome, info: tagged ?? logged };
  };

  if (client === 'global-dispatcher') globalDispatchers.install(undici, dispatcher);

  const viaFetch = async (req: ConformanceRequest, url: string): Promise<ConformanceResult> => {
    const { headers, body } = encodeBody(req.body, client);
    const init = {
      method: req.method,
      headers: { ...headers, ...req.headers },
      ...(client === 'global-dispatcher' ? {} : { dispatcher }),
      ...(body === undefined ? {} : { body }),
      ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
      ...(req.signal ? { signal: req.signal } : {}),
    };
    const run = client === 'fetch' ? undici.fetch : globalThis.fetch;
    let outcome: ConformanceOutcome;
    try {
      const res = await (run as (url: string, init: unknown) => Promise<Response>)(url, init);
      outcome = await readOutcome(res.status, new Headers(res.headers), res.body);
    } catch (error) {
      outcome = { kind: 'error', error };
    }
    const logged = log.take(req.method, url);
    if (outcome.kind !== 'error') return { outcome, info: logged };
    const error = outcome.error as { cause?: unknown };
    return { outcome, info: getRetryInfo(error) ?? getRetryInfo(error?.cause) ?? logged };
  };

  return {
    send: (req) => {
      const url = new URL(req.path, baseUrl).href;
      return client === 'request' ? viaRequest(req, url) : viaFetch(req, url);
    },
    close: () => {
      if (client === 'global-dispatcher') globalDispatchers.uninstall(undici, dispatcher);
      return agent.close();
    },
    destroy: () => {
      if (client === 'global-dispatcher') globalDispatchers.uninstall(undici, dispatcher);
      return agent.destroy();
    },
  };
};

/**
 * What the interceptor reads (`packages/undici/src/signals.ts`): a failure before undici started
 * the attempt, REFUSED_STREAM; a GOAWAY below the stream only from undici 8 (undici 7 fails every
 * stream of the connection alike).
 */
const signals = (undici: Undici): UnprocessedSignals => ({
  handshake: true,
  refusedStream: true,
  goawayBelow: undici === undici8,
});

const driver = (
  name: string,
  undici: Undici,
  client: Client,
  transports: ConformanceDriver['transports'] = [],
): ConformanceDriver => ({
  name,
  transports,
  signals: signals(undici),
  ...(undici === undici7 ? { goawayFailsAnswers: true as const } : {}),
  ...(undici === undici7 ? { abortKeepsSocket: true as const } : {}),
  // Node's code for a stream closed with an RST code; the interceptor gives undici's CANCEL
  // (`UND_ERR_INFO`, "stream closed before the response was complete") the same.
  streamResetCodes: ['ERR_HTTP2_STREAM_ERROR'],
  statusesReject: false,
  buffersResponses: false,
  // request(): undici's SocketError; fetch: its `TypeError('fetch failed')` with the cause.
  isNetworkError: (error) =>
    client === 'request'
      ? (error as { code?: string } | null)?.code === 'UND_ERR_SOCKET'
      : error instanceof TypeError && error.message === 'fetch failed' && error.cause !== undefined,
  isAbort: (error, reason) => error === reason,
  // request(): the core's error itself; fetch: its `TypeError('fetch failed')` with it as the cause.
  isAttemptTimeout: (error) =>
    (client === 'request' ? error : (error as { cause?: unknown } | null)?.cause) instanceof
    AttemptTimeoutError,
  overlongBodyDeclared: lengthMismatchDeclared,
  create: (baseUrl, options, transport) => create(undici, client, baseUrl, options, transport),
});

/**
 * undici 8 `request()`, `fetch()` and Node's global `fetch` (both ways), then the same on undici 7.
 * Over TLS and HTTP/2 (`allowH2`): `request()` on each major (each has its own HTTP/2 client),
 * undici 8's `fetch()`, and Node's fetch through an undici 7 agent (the way Node's fetch speaks
 * HTTP/2 at all); the others add nothing the transport could change.
 */
export const undiciDrivers: readonly ConformanceDriver[] = [
  driver('undici request (undici 8)', undici8, 'request', ['tls', 'h2']),
  driver('undici fetch (undici 8)', undici8, 'fetch', ['h2']),
  driver('global fetch + undici 8 Agent', undici8, 'global-fetch'),
  driver('global fetch + setGlobalDispatcher (undici 8)', undici8, 'global-dispatcher'),
  driver('undici request (undici 7)', undici7, 'request', ['h2']),
  driver('undici fetch (undici 7)', undici7, 'fetch'),
  driver('global fetch + undici 7 Agent', undici7, 'global-fetch', ['tls', 'h2']),
  driver('global fetch + setGlobalDispatcher (undici 7)', undici7, 'global-dispatcher'),
];

export default undiciDrivers;
