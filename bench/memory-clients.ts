/**
 * Every client of the benchmark over an in-memory transport: the same factories as over loopback
 * (`clients/`), the same options and the same work per request (the body read as JSON), with only
 * what they send through replaced: undici's `Agent` by `MemoryDispatcher`, Node's `fetch` (for
 * withRetry, fetch-retry and ky) by `memoryFetch`, axios' `'http'` adapter by `memoryAdapter`. The
 * transports are imported by the client that needs one, so a process loads no other client's code.
 */
import { axiosClient } from './clients/axios.ts';
import { fetchClient } from './clients/fetch.ts';
import { kyClient } from './clients/ky.ts';
import type { BenchClient, ClientName, VariantKind } from './clients/types.ts';
import { undiciFetchClient } from './clients/undici-fetch.ts';
import { undiciRequestClient } from './clients/undici-request.ts';

/**
 * Never contacted: the clients need an origin to build their URLs. A port fetch allows (not 9), of
 * five digits like the loopback server's, so that every URL is as long as over loopback.
 */
const ORIGIN = 'http://127.0.0.1:40000';

const dispatcher = async () => new (await import('./memory-dispatcher.ts')).MemoryDispatcher();
const fetch = async () => (await import('./memory-fetch.ts')).memoryFetch();

export const MEMORY_CLIENTS: Record<ClientName, (kind: VariantKind) => Promise<BenchClient>> = {
  'undici-request': async (kind) => undiciRequestClient(kind, ORIGIN, await dispatcher()),
  'undici-fetch': async (kind) => undiciFetchClient(kind, ORIGIN, await dispatcher()),
  axios: async (kind) => axiosClient(kind, ORIGIN, (await import('./memory-adapter.ts')).memoryAdapter()),
  ky: async (kind) => kyClient(kind, ORIGIN, await fetch()),
  fetch: async (kind) => fetchClient(kind, ORIGIN, await fetch()),
};
