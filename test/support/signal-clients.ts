/**
 * The clients whose failure signals the `signals-*` tests record, each sending one request and
 * reporting what its caller got (and, for undici dispatchers, what an interceptor saw): undici 8's
 * `request()` and `fetch()` on an `Agent` with `allowH2`, Node's global fetch through an undici 7
 * `Agent` with `allowH2` (Node's fetch refuses undici 8 dispatchers), and axios' http adapter over
 * HTTP/1.1 (`httpsAgent`) and over HTTP/2 (`httpVersion: 2`). No retry layer is attached.
 */
import { Readable } from 'node:stream';
import axios from 'axios';
import * as undici8 from 'undici';
import * as undici7 from 'undici7';
import { type DispatchTrace, type ErrorShape, errorShape, traceDispatches } from './signal-probe.ts';
import { trustingAgentOptions, trustingHttpsAgent } from './tls.ts';

export interface ProbeRequest {
  readonly method: 'GET' | 'POST';
  /** `text`: the string `payload` (undici's request() sends it as a Buffer); `stream`: the same as a stream. */
  readonly body?: 'text' | 'stream';
  /** The certificate to trust; none: the client trusts only its defaults. */
  readonly ca?: string;
  /** undici's connect timeout (the TCP connect and the TLS handshake). */
  readonly connectTimeoutMs?: number;
  /** axios' `timeout` (the whole request: it has no connect timeout of its own). */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

export interface ProbeOutcome {
  readonly status?: number;
  readonly body?: string;
  readonly error?: ErrorShape;
  /** Every dispatch an interceptor saw (undici clients only). */
  readonly traces?: readonly DispatchTrace[];
}

export type ProbeClient = (url: string, request: ProbeRequest) => Promise<ProbeOutcome>;

const PAYLOAD = 'payload';

const nodeBody = (request: ProbeRequest): string | Readable | undefined => {
  if (request.body === 'text') return PAYLOAD;
  if (request.body === 'stream') return Readable.from([Buffer.from(PAYLOAD)]);
  return undefined;
};

const webBody = (request: ProbeRequest): string | ReadableStream<Uint8Array> | undefined => {
  if (request.body === 'text') return PAYLOAD;
  if (request.body !== 'stream') return undefined;
  return new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(PAYLOAD));
      controller.close();
    },
  });
};

const agentOptions = (request: ProbeRequest) => {
  const options = {
    allowH2: true,
    ...(request.connectTimeoutMs ? { connect: { timeout: request.connectTimeoutMs } } : {}),
  };
  return request.ca ? trustingAgentOptions(request.ca, options) : options;
};

const fetchInit = (request: ProbeRequest, dispatcher: unknown): Record<string, unknown> => {
  const body = webBody(request);
  return {
    method: request.method,
    dispatcher,
    ...(body === undefined ? {} : { body }),
    ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
    ...(request.signal ? { signal: request.signal } : {}),
  };
};

type FetchLike = (url: string, init: Record<string, unknown>) => Promise<Response>;

const viaFetch = async (
  run: FetchLike,
  url: string,
  init: Record<string, unknown>,
): Promise<ProbeOutcome> => {
  try {
    const res = await run(url, init);
    return { status: res.status, body: await res.text() };
  } catch (error) {
    return { error: errorShape(error) };
  }
};

/** undici 8 `request()`. */
export const undici8Request: ProbeClient = async (url, request) => {
  const { traces, interceptor } = traceDispatches();
  const agent = new undici8.Agent(agentOptions(request));
  const dispatcher = agent.compose(interceptor as unknown as undici8.Dispatcher.DispatcherComposeInterceptor);
  try {
    const body = nodeBody(request);
    const res = await undici8.request(url, {
      dispatcher,
      method: request.method,
      ...(body === undefined ? {} : { body }),
      ...(request.signal ? { signal: request.signal } : {}),
    });
    return { status: res.statusCode, body: await res.body.text(), traces };
  } catch (error) {
    return { error: errorShape(error), traces };
  } finally {
    await agent.close();
  }
};

/** undici 8 `fetch()`. */
export const undici8Fetch: ProbeClient = async (url, request) => {
  const { traces, interceptor } = traceDispatches();
  const agent = new undici8.Agent(agentOptions(request));
  const dispatcher = agent.compose(interceptor as unknown as undici8.Dispatcher.DispatcherComposeInterceptor);
  try {
    return {
      ...(await viaFetch(undici8.fetch as unknown as FetchLike, url, fetchInit(request, dispatcher))),
      traces,
    };
  } finally {
    await agent.close();
  }
};

/** Node's global fetch (undici 7 inside Node 24) through an undici 7 `Agent`. */
export const nodeFetchUndici7: ProbeClient = async (url, request) => {
  const { traces, interceptor } = traceDispatches();
  const agent = new undici7.Agent(agentOptions(request));
  const dispatcher = agent.compose(interceptor as unknown as undici7.Dispatcher.DispatcherComposeInterceptor);
  try {
    return {
      ...(await viaFetch(globalThis.fetch as unknown as FetchLike, url, fetchInit(request, dispatcher))),
      traces,
    };
  } finally {
    await agent.close();
  }
};

const viaAxios = async (url: string, request: ProbeRequest, http2: boolean): Promise<ProbeOutcome> => {
  const httpsAgent = request.ca ? trustingHttpsAgent(request.ca) : undefined;
  try {
    const res = await axios.request<string>({
      url,
      method: request.method,
      data: nodeBody(request),
      responseType: 'text',
      transformResponse: [],
      validateStatus: () => true,
      ...(request.timeoutMs ? { timeout: request.timeoutMs } : {}),
      ...(request.signal ? { signal: request.signal } : {}),
      ...(http2
        ? // axios keeps HTTP/2 sessions in a module-wide cache: close them soon after use.
          {
            httpVersion: 2 as const,
            http2Options: { ...(request.ca ? { ca: request.ca } : {}), sessionTimeout: 10 },
          }
        : httpsAgent
          ? { httpsAgent }
          : {}),
    });
    return { status: res.status, body: res.data };
  } catch (error) {
    return { error: errorShape(error) };
  } finally {
    httpsAgent?.destroy();
  }
};

/** axios' http adapter over HTTP/1.1 (`httpsAgent` trusting `ca`). */
export const axiosHttp1: ProbeClient = (url, request) => viaAxios(url, request, false);

/** axios' http adapter over HTTP/2 (`httpVersion: 2`, `http2Options.ca`). */
export const axiosHttp2: ProbeClient = (url, request) => viaAxios(url, request, true);
