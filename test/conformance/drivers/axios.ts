/**
 * Conformance driver for `@jitterbug/axios`: an axios instance (its own keep-alive agent, closed
 * by `close()`) with `attachRetry`. axios reads whole bodies before resolving and rejects a status
 * that fails `validateStatus` (the default: not 2xx). Retry info is read the documented way:
 * `getRetryInfo(response)` or `getRetryInfo(error)`.
 *
 * The suite's drivers attach with `{ discardedBodyCap: createDiscardedBodyCap() }` (stream mode): one scenario asserts that a
 * large discarded body is not downloaded, which by default (axios reading every body itself) is
 * axios' `maxContentLength`'s and `attemptTimeoutMs`' job. `axiosDrivers` also has the default
 * attachment, for suites that do not assert that (`test/reliability/huge-body.test.ts` tests both).
 */
import { Agent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { Readable } from 'node:stream';
import {
  type AxiosAdapterOptions,
  attachRetry,
  createDiscardedBodyCap,
  getRetryInfo,
} from '@jitterbug/axios';
import { AttemptTimeoutError } from '@jitterbug/core';
import axios, { type AxiosResponse, type CreateAxiosDefaults, isAxiosError, isCancel } from 'axios';
// undici 7: its dispatchers take the handlers Node's own fetch (undici 6 or 7 inside) hands over; undici 8's do not.
import { Agent as UndiciAgent } from 'undici7';
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
} from '../driver.ts';
import { agentOptions } from './transport.ts';

const encodeBody = (body: ConformanceBody | undefined): { data?: unknown; contentType?: string } => {
  if (body === undefined) return {};
  switch (body.kind) {
    case 'text':
      return { data: body.value, contentType: 'text/plain;charset=UTF-8' };
    case 'json':
      return { data: body.value, contentType: 'application/json' };
    case 'bytes':
      return { data: Buffer.from(body.value), contentType: 'application/octet-stream' };
    case 'form':
      return { data: body.value };
    case 'stream':
      return { data: Readable.from(body.chunks.map((c) => Buffer.from(c))) };
  }
};

const toHeaders = (response: AxiosResponse): Headers => {
  const headers = new Headers();
  for (const [name, value] of Object.entries(response.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, String(v));
    else if (value !== undefined && value !== null) headers.append(name, String(value));
  }
  return headers;
};

/** How a driver's axios instance is made: its adapter, `attachRetry`'s options, axios settings. */
export interface AxiosSetup {
  readonly adapter: 'http' | 'fetch';
  readonly attach?: AxiosAdapterOptions | undefined;
  readonly defaults?: CreateAxiosDefaults | undefined;
  /** Over TLS (HTTP/1.1 only: see `transports.test.ts` for `httpVersion: 2`). */
  readonly transport?: Transport | undefined;
}

/** A conformance client on an axios instance made as `setup` says. */
export const createAxiosClient = (
  baseUrl: string,
  options: DriverOptions,
  setup: AxiosSetup,
): ConformanceClient => {
  const { adapter, transport } = setup;
  if (transport?.name === 'h2') throw new TypeError('the axios driver does not speak HTTP/2');
  const ca = transport?.name === 'tls' ? transport.ca : undefined;
  // Each adapter gets its own connection pool, closed by close(): the fetch adapter runs on Node's
  // global fetch with a dispatcher.
  const agent =
    adapter !== 'http'
      ? undefined
      : ca
        ? new HttpsAgent({ keepAlive: true, ca })
        : new Agent({ keepAlive: true });
  const dispatcher = adapter === 'fetch' ? new UndiciAgent(agentOptions(transport)) : undefined;
  // responseType 'text' and no transforms: the driver reports the body as the server sent it.
  const api = axios.create({
    baseURL: baseUrl,
    adapter,
    ...(agent ? { [ca ? 'httpsAgent' : 'httpAgent']: agent } : { fetchOptions: { dispatcher } }),
    responseType: 'text',
    transformResponse: [],
    ...setup.defaults,
  });
  attachRetry(api, policyOf(options), setup.attach);
  return {
    async send(request: ConformanceRequest): Promise<ConformanceResult> {
      const { data, contentType } = encodeBody(request.body);
      try {
        const response = await api.request<string>({
          method: request.method,
          url: request.path,
          data,
          headers: { ...(contentType ? { 'content-type': contentType } : {}), ...request.headers },
          ...(request.signal ? { signal: request.signal } : {}),
        });
        const outcome: ConformanceOutcome = {
          kind: 'response',
          status: response.status,
          body: String(response.data),
          headers: toHeaders(response),
        };
        return { outcome, info: getRetryInfo(response) };
      } catch (error) {
        const outcome: ConformanceOutcome =
          isAxiosError(error) && error.response && error.message.startsWith('Request failed with status code')
            ? { kind: 'http-error', status: error.response.status, error }
            : { kind: 'error', error };
        return { outcome, info: getRetryInfo(error) };
      }
    },
    async close() {
      agent?.destroy();
      await dispatcher?.destroy();
    },
  };
};

/** axios 1.x with `attachRetry` by default, on its http adapter (the default in Node). */
const byDefault: ConformanceDriver = {
  name: 'axios (by default)',
  statusesReject: true,
  buffersResponses: true,
  isNetworkError: (error) => isAxiosError(error) && error.code === 'ECONNRESET',
  // axios rejects every signal abort with its own CanceledError (as without jitterbug); jitterbug
  // gives it the signal's reason as `cause`. A signal aborted before the request never reaches
  // jitterbug: axios' dispatchRequest rejects it first, without a cause.
  isAbort: (error, reason, beforeSend = false) => {
    if (!isCancel(error) || (error as { code?: string }).code !== 'ERR_CANCELED') return false;
    const { cause } = error as { cause?: unknown };
    return cause === reason || (beforeSend && cause === undefined);
  },
  // An AxiosError with jitterbug's code and the core's error as its cause, not a CanceledError.
  isAttemptTimeout: (error) =>
    isAxiosError(error) &&
    !isCancel(error) &&
    error.code === 'ERR_JITTERBUG_ATTEMPT_TIMEOUT' &&
    error.cause instanceof AttemptTimeoutError,
  transports: ['tls'],
  // axios shows the socket's code and nothing of the connection (a handshake reset is a plain
  // ECONNRESET); its HTTP/1.1 adapter speaks no HTTP/2.
  signals: { handshake: false, refusedStream: false, goawayBelow: false },
  create: (baseUrl, options, transport) =>
    createAxiosClient(baseUrl, options, { adapter: 'http', transport }),
};

/**
 * The same in stream mode (`discardedBodyCap`), as the suite runs axios. Stream mode sends each
 * attempt once: a body jitterbug reads is not raced.
 */
export const axiosDriver: ConformanceDriver = {
  ...byDefault,
  name: 'axios',
  hedges: false,
  create: (baseUrl, options, transport) =>
    createAxiosClient(baseUrl, options, {
      adapter: 'http',
      attach: { discardedBodyCap: createDiscardedBodyCap() },
      transport,
    }),
};

/**
 * axios with `adapter: 'fetch'`: the same rules; a connection lost before a response is the fetch
 * adapter's `ERR_NETWORK` (undici's socket error as its cause).
 */
const fetchByDefault: ConformanceDriver = {
  ...byDefault,
  name: 'axios (fetch adapter, by default)',
  // Node's fetch over an undici 7 agent.
  abortKeepsSocket: true,
  transports: [],
  isNetworkError: (error) =>
    isAxiosError(error) &&
    error.code === 'ERR_NETWORK' &&
    (error.cause as { code?: unknown } | undefined)?.code === 'UND_ERR_SOCKET',
  create: (baseUrl, options) => createAxiosClient(baseUrl, options, { adapter: 'fetch' }),
};

/** The fetch adapter in stream mode. */
export const axiosFetchDriver: ConformanceDriver = {
  ...fetchByDefault,
  name: 'axios (fetch adapter)',
  hedges: false,
  create: (baseUrl, options) =>
    createAxiosClient(baseUrl, options, {
      adapter: 'fetch',
      attach: { discardedBodyCap: createDiscardedBodyCap() },
    }),
};

/** Both adapters, attached by default (axios reads every body itself) and with `discardedBodyCap`. */
export const axiosDrivers: readonly ConformanceDriver[] = [
  axiosDriver,
  axiosFetchDriver,
  byDefault,
  fetchByDefault,
];
