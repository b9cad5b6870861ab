/** ky (Node's global fetch): `retry: 0`, with `kyRetry`, with ky's own retry (limit 2, jitter on). */
import type { Options } from 'ky';
import { JITTERBUG_OPTIONS, MAX_ATTEMPTS, RETRY_STATUS_CODES } from '../config.ts';
import type { BenchClient, VariantKind } from './types.ts';

/** A ky instance for `origin` with `options`, reading each JSON body. */
export const kyWith = async (origin: string, options: Options): Promise<BenchClient> => {
  const { default: ky } = await import('ky');
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

export const kyClient = async (kind: VariantKind, origin: string): Promise<BenchClient> => {
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
  return kyWith(origin, options);
};
