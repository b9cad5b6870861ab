/** undici's `fetch()` with each variant's dispatcher. */
import type { Dispatcher } from 'undici';
import type { BenchClient, VariantKind } from './types.ts';
import { undiciDispatcher } from './undici-dispatcher.ts';

/** `base`: what the variant's dispatcher sends through (default: a new `Agent`). */
export const undiciFetchClient = async (
  kind: VariantKind,
  origin: string,
  base?: Dispatcher,
): Promise<BenchClient> => {
  const { fetch } = await import('undici');
  const { dispatcher, close } = await undiciDispatcher(kind, base);
  return {
    async get(path) {
      const res = await fetch(`${origin}${path}`, { dispatcher });
      await res.json();
      return res.status;
    },
    close,
  };
};
