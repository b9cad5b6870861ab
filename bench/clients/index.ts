/** Every client of the benchmark, by name. */
import { axiosClient } from './axios.ts';
import { fetchClient } from './fetch.ts';
import { kyClient } from './ky.ts';
import type { BenchClient, ClientName, VariantKind } from './types.ts';
import { undiciFetchClient } from './undici-fetch.ts';
import { undiciRequestClient } from './undici-request.ts';

export const CLIENTS: Record<ClientName, (kind: VariantKind, origin: string) => Promise<BenchClient>> = {
  'undici-request': undiciRequestClient,
  'undici-fetch': undiciFetchClient,
  axios: axiosClient,
  ky: kyClient,
  fetch: fetchClient,
};

/** How each variant is labelled in the tables. */
export const VARIANT_LABELS: Record<ClientName, Record<VariantKind, string>> = {
  'undici-request': { raw: 'Agent', jitterbug: 'retryInterceptor', peer: 'interceptors.retry()' },
  'undici-fetch': { raw: 'Agent', jitterbug: 'retryInterceptor', peer: 'interceptors.retry()' },
  axios: { raw: 'axios', jitterbug: 'attachRetry', peer: 'axios-retry' },
  ky: { raw: 'retry: 0', jitterbug: 'kyRetry', peer: 'ky retry (limit 2, jitter)' },
  fetch: { raw: 'fetch', jitterbug: 'withRetry', peer: 'fetch-retry' },
};

export type { BenchClient, ClientName, VariantKind };
