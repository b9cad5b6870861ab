/** undici's `fetch()` with each variant's dispatcher. */

import type { BenchClient, VariantKind } from './types.ts';
import { undiciDispatcher } from './undici-dispatcher.ts';

export const undiciFetchClient = async (kind: VariantKind, origin: string): Promise<BenchClient> => {
  const { fetch } = await import('undici');
  const { dispatcher, close } = await undiciDispatcher(kind);
  return {
    async get(path) {
      const res = await fetch(`${origin}${path}`, { dispatcher });
      await res.json();
      return res.status;
    },
    close,
  };
};
