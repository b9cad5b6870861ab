/** axios (http adapter, keep-alive agent): raw, with `attachRetry`, with `axios-retry` (`exponentialDelay`). */
import { Agent } from 'node:http';
import type { AxiosAdapter, AxiosInstance } from 'axios';
import { JITTERBUG_OPTIONS, MAX_ATTEMPTS } from '../config.ts';
import type { BenchClient, VariantKind } from './types.ts';

/**
 * An axios instance on its own keep-alive agent, given to `setup` before the first request; its
 * adapter is `'http'` unless `adapter` is given.
 */
export const axiosWith = async (
  origin: string,
  setup: (api: AxiosInstance) => void | Promise<void>,
  adapter: AxiosAdapter | 'http' = 'http',
): Promise<BenchClient> => {
  const { default: axios } = await import('axios');
  const httpAgent = new Agent({ keepAlive: true });
  const api = axios.create({ baseURL: origin, httpAgent, adapter });
  await setup(api);
  return {
    async get(path) {
      const res = await api.get(path);
      return res.status;
    },
    close: async () => httpAgent.destroy(),
  };
};

/** Puts a variant's retry layer on `api`: none for `raw`, `attachRetry`, or axios-retry. */
export const installVariant = async (api: AxiosInstance, kind: VariantKind): Promise<void> => {
  if (kind === 'jitterbug') {
    const { attachRetry } = await import('@jitterbug/axios');
    attachRetry(api, JITTERBUG_OPTIONS);
  } else if (kind === 'peer') {
    const { default: axiosRetry, exponentialDelay } = await import('axios-retry');
    axiosRetry(api, {
      retries: MAX_ATTEMPTS - 1,
      // Its exponential delay with a zero factor: the same code path, no waiting.
      retryDelay: (count, error) => exponentialDelay(count, error, 0),
    });
  }
};

/** `adapter`: what the instance sends through (default: axios' `'http'` adapter). */
export const axiosClient = (
  kind: VariantKind,
  origin: string,
  adapter?: AxiosAdapter | 'http',
): Promise<BenchClient> => axiosWith(origin, (api) => installVariant(api, kind), adapter);
