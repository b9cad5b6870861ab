/** ky (Node's global fetch): `retry: 0`, with `kyRetry`, with ky's own retry (limit 2, jitter on). */
import type { Options } from 'ky';
import { JITTERBUG_OPTIONS, MAX_ATTEMPTS, RETRY_STATUS_CODES } from '../config.ts';
import type { BenchClient, VariantKind } from './types.ts';

export const kyClient = async (kind: VariantKind, origin: string): Promise<BenchClient> => {
  const { default: ky } = await import('ky');
  let options: Options = { retry: 0 };
  if (kind === 'jitterbug') {
    const { kyRetry } = await import('@jitterbug/ky');
    options = { ...kyRetry(JITTERBUG_OPTIONS) } as Options;
  } else if (kind === 'peer') {
    options = {
      retry: {
        limit: MAX_ATTEMPTS - 1,
        jitter: true,
        delay: () => 0,
        statusCodes: RETRY_STATUS_CODES,
      },
    };
  }
  const api = ky.create({ baseUrl: origin, ...options });
  return {
    async get(path) {
      const res = await api.get(path);
      await res.json();
      return res.status;
    },
    close: async () => {},
  };
};
