/**
 * Node's global `fetch`: raw, wrapped by jitterbug's `withRetry`, wrapped by `fetch-retry` 6 (the
 * peer). `@jitterbug/fetch` is imported when the variant is made, so a missing or broken package
 * fails that variant loudly (its error is reported under "Not run") and leaves the others running.
 */
import { JITTERBUG_OPTIONS, MAX_ATTEMPTS, RETRY_STATUS_CODES } from '../config.ts';
import type { BenchClient, VariantKind } from './types.ts';

type Fetch = typeof globalThis.fetch;

const fetchOf = async (kind: VariantKind, plain: Fetch): Promise<Fetch> => {
  if (kind === 'jitterbug') {
    const { withRetry } = await import('@jitterbug/fetch');
    return withRetry(plain, JITTERBUG_OPTIONS) as Fetch;
  }
  if (kind === 'peer') {
    const { default: fetchRetry } = await import('fetch-retry');
    return fetchRetry(plain, {
      retries: MAX_ATTEMPTS - 1,
      retryDelay: 0,
      retryOn: RETRY_STATUS_CODES,
    }) as Fetch;
  }
  return plain;
};

/** `plain`: the fetch each variant sends through (default: Node's global one). */
export const fetchClient = async (
  kind: VariantKind,
  origin: string,
  plain: Fetch = globalThis.fetch,
): Promise<BenchClient> => {
  const fetch = await fetchOf(kind, plain);
  return {
    async get(path) {
      const res = await fetch(`${origin}${path}`);
      await res.json();
      return res.status;
    },
    close: async () => {},
  };
};
