/** undici's `request()`: raw `Agent`, with jitterbug's `retryInterceptor`, with undici's `interceptors.retry()`. */
import type { Dispatcher } from 'undici';
import type { BenchClient, VariantKind } from './types.ts';
import { undiciDispatcher } from './undici-dispatcher.ts';

/** `base`: what the variant's dispatcher sends through (default: a new `Agent`). */
export const undiciRequestClient = async (
  kind: VariantKind,
  origin: string,
  base?: Dispatcher,
): Promise<BenchClient> => {
  const { request } = await import('undici');
  const { dispatcher, close } = await undiciDispatcher(kind, base);
  return {
    async get(path) {
      const res = await request(`${origin}${path}`, { dispatcher: dispatcher as Dispatcher });
      await res.body.json();
      return res.statusCode;
    },
    close,
  };
};
