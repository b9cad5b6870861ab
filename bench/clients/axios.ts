/** axios (http adapter, keep-alive agent): raw, with `attachRetry`, with `axios-retry` (`exponentialDelay`). */
import { Agent } from 'node:http';
import { JITTERBUG_OPTIONS, MAX_ATTEMPTS } from '../config.ts';
import type { BenchClient, VariantKind } from './types.ts';

export const axiosClient = async (kind: VariantKind, origin: string): Promise<BenchClient> => {
  const { default: axios } = await import('axios');
  const httpAgent = new Agent({ keepAlive: true });
  const api = axios.create({ baseURL: origin, httpAgent, adapter: 'http' });
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
  return {
    async get(path) {
      const res = await api.get(path);
      return res.status;
    },
    close: async () => httpAgent.destroy(),
  };
};
