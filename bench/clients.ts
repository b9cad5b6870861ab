/**
 * Every client of the bench in three variants: raw, with jitterbug, and with the peer a user would
 * otherwise pick. The retry settings are made equivalent: 3 attempts in all, zero delay (the retry
 * path measures CPU, not sleeping), the same retried statuses; jitterbug keeps a retry budget on
 * (ratio 1: it never runs dry here) so that its code stays on the path. `get` reads the JSON body
 * and returns the final status. Without an origin a client sends through an in-memory transport
 * (`memory-transports.ts`): the instruction counts' way. Packages are imported when a variant is
 * made, so a process loads only its own client's code.
 */
import type { RetryOptions } from '@jitterbug/fetch';
import type { Dispatcher } from 'undici';

export const CLIENT_NAMES = ['undici-request', 'undici-fetch', 'axios', 'ky', 'fetch'] as const;
/**
 * The sessions' clients: every client, and `fetch-store`, withRetry whose budget is the fleet's over
 * the in-memory store (`createRetryBudget({ store })`), its peer withRetry as `fetch` has it: its
 * "jitterbug vs peer" is what a configured store costs on success (no store round trip is made).
 * Not in the ratchet's counts or the memory runs.
 */
export const SESSION_CLIENTS = [...CLIENT_NAMES, 'fetch-store'] as const;
export type ClientName = (typeof SESSION_CLIENTS)[number];
export type VariantKind = 'raw' | 'jitterbug' | 'peer';
export interface BenchClient {
  get(path: string): Promise<number>;
  close(): Promise<void>;
}

export const LABELS: Record<ClientName, Record<VariantKind, string>> = {
  'undici-request': { raw: 'Agent', jitterbug: 'retryInterceptor', peer: 'interceptors.retry()' },
  'undici-fetch': { raw: 'Agent', jitterbug: 'retryInterceptor', peer: 'interceptors.retry()' },
  axios: { raw: 'axios', jitterbug: 'attachRetry', peer: 'axios-retry' },
  ky: { raw: 'retry: 0', jitterbug: 'kyRetry', peer: 'ky retry (limit 2)' },
  fetch: { raw: 'fetch', jitterbug: 'withRetry', peer: 'fetch-retry' },
  'fetch-store': {
    raw: 'fetch',
    jitterbug: 'withRetry, shared budget over the memory store',
    peer: 'withRetry, its own budget',
  },
};

const [ATTEMPTS, STATUSES] = [3, [408, 429, 500, 502, 503, 504]];
const backoff = { strategy: 'full', baseMs: 0, capMs: 0 } as const;
const OPTIONS: RetryOptions = { maxAttempts: ATTEMPTS, backoff, budget: { ratio: 1, burst: 1000 } };
/** Never contacted in memory; five digits like the loopback port, so that every URL is as long. */
const MEMORY_ORIGIN = 'http://127.0.0.1:40000';
type Fetch = (input: Request | URL | string, init?: RequestInit) => Promise<Response>;
const memory = () => import('./memory-transports.ts');

const undiciClient = async (kind: VariantKind, call: 'request' | 'fetch', origin?: string) => {
  const undici = await import('undici');
  const base: Dispatcher = origin ? new undici.Agent() : new (await memory()).MemoryDispatcher();
  const peer = { maxRetries: ATTEMPTS - 1, minTimeout: 0, maxTimeout: 0, statusCodes: STATUSES };
  const interceptor = (
    kind === 'jitterbug'
      ? (await import('@jitterbug/undici')).retryInterceptor(OPTIONS)
      : undici.interceptors.retry(peer)
  ) as Dispatcher.DispatcherComposeInterceptor;
  const dispatcher = kind === 'raw' ? base : base.compose(interceptor);
  const url = (path: string): string => `${origin ?? MEMORY_ORIGIN}${path}`;
  const get =
    call === 'request'
      ? async (path: string) => {
          const res = await undici.request(url(path), { dispatcher });
          await res.body.json();
          return res.statusCode;
        }
      : async (path: string) => {
          const res = await undici.fetch(url(path), { dispatcher });
          await res.json();
          return res.status;
        };
  return { get, close: () => base.close() };
};

const axiosClient = async (kind: VariantKind, origin?: string): Promise<BenchClient> => {
  const [{ default: axios }, { Agent }] = await Promise.all([import('axios'), import('node:http')]);
  const httpAgent = new Agent({ keepAlive: true });
  const adapter = origin ? 'http' : (await memory()).memoryAdapter();
  const api = axios.create({ baseURL: origin ?? MEMORY_ORIGIN, httpAgent, adapter });
  if (kind === 'jitterbug') (await import('@jitterbug/axios')).attachRetry(api, OPTIONS);
  if (kind === 'peer') {
    const { default: axiosRetry, exponentialDelay } = await import('axios-retry');
    // Its exponential delay with a zero factor: the same code path, no waiting.
    axiosRetry(api, { retries: ATTEMPTS - 1, retryDelay: (n, error) => exponentialDelay(n, error, 0) });
  }
  return { get: async (path) => (await api.get(path)).status, close: async () => httpAgent.destroy() };
};

/** ky's or a wrapped fetch's client: `send` gives the response for a path. */
const responseClient = (send: (path: string) => Promise<Response>): BenchClient => ({
  async get(path) {
    const res = await send(path);
    await res.json();
    return res.status;
  },
  close: async () => {},
});

const kyClient = async (kind: VariantKind, origin?: string): Promise<BenchClient> => {
  const { default: ky } = await import('ky');
  const sending = origin ? {} : { fetch: (await memory()).memoryFetch() };
  const retry = { limit: ATTEMPTS - 1, jitter: true, delay: () => 0, statusCodes: STATUSES };
  const options =
    kind === 'jitterbug'
      ? // kyRetry sets ky's `fetch` option to its own; the fetch it sends through is its adapter option.
        (await import('@jitterbug/ky')).kyRetry(OPTIONS, sending)
      : { retry: kind === 'raw' ? 0 : retry, ...sending };
  const api = ky.create({ baseUrl: origin ?? MEMORY_ORIGIN, ...options });
  return responseClient((path) => api.get(path));
};

/** The fleet's budget over the in-memory store, with the settings of `OPTIONS.budget`. */
const storeOptions = async (): Promise<RetryOptions> => {
  const { createMemoryStore, createRetryBudget } = await import('@jitterbug/core/store');
  return { ...OPTIONS, budget: createRetryBudget({ ...OPTIONS.budget, store: createMemoryStore() }) };
};

const fetchClient = async (kind: VariantKind, origin?: string, store = false): Promise<BenchClient> => {
  const plain: Fetch = origin ? globalThis.fetch : (await memory()).memoryFetch();
  let fetch = plain;
  const { withRetry } = await import('@jitterbug/fetch');
  if (kind === 'jitterbug') fetch = withRetry(plain, store ? await storeOptions() : OPTIONS);
  if (kind === 'peer' && store) fetch = withRetry(plain, OPTIONS);
  else if (kind === 'peer') {
    const { default: fetchRetry } = await import('fetch-retry');
    fetch = fetchRetry(plain, { retries: ATTEMPTS - 1, retryDelay: 0, retryOn: STATUSES });
  }
  return responseClient((path) => fetch(`${origin ?? MEMORY_ORIGIN}${path}`));
};

/** A variant of `client` for the loopback server at `origin`, or in memory without one. */
export const makeClient = (client: ClientName, kind: VariantKind, origin?: string): Promise<BenchClient> =>
  client === 'undici-request' || client === 'undici-fetch'
    ? undiciClient(kind, client === 'undici-request' ? 'request' : 'fetch', origin)
    : client === 'fetch-store'
      ? fetchClient(kind, origin, true)
      : { axios: axiosClient, ky: kyClient, fetch: fetchClient }[client](kind, origin);
