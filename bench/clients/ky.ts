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

/**
 * A variant's ky options. `init-noop` (for probes): kyRetry's `retry` option and an `init` hook that
 * does nothing, i.e. what ky itself spends on a call carrying both.
 */
export const kyVariantOptions = async (kind: VariantKind | 'init-noop'): Promise<Options> => {
  if (kind === 'raw') return { retry: 0 };
  if (kind === 'peer') {
    return {
      retry: {
        limit: MAX_ATTEMPTS - 1,
        jitter: true,
        delay: () => 0,
        statusCodes: RETRY_STATUS_CODES,
      },
    };
  }
  const { kyRetry } = await import('@jitterbug/ky');
  const options = kyRetry(JITTERBUG_OPTIONS);
  return (
    kind === 'jitterbug' ? { ...options } : { retry: options.retry, hooks: { init: [() => {}] } }
  ) as Options;
};

export const kyClient = async (kind: VariantKind, origin: string): Promise<BenchClient> =>
  kyWith(origin, await kyVariantOptions(kind));
