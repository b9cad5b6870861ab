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

/** ky's own retry, set up like jitterbug's (3 attempts, zero delay, the same statuses). */
const PEER_RETRY: Options['retry'] = {
  limit: MAX_ATTEMPTS - 1,
  jitter: true,
  delay: () => 0,
  statusCodes: RETRY_STATUS_CODES,
};

/**
 * A variant's ky options. `kyRetry()`'s result is spread as a user would, so the bench follows
 * whatever the adapter puts in it. `init-noop` (for probes) is a probe of ky itself, not of
 * jitterbug: the peer's retry option plus an `init` hook that does nothing, i.e. what ky spends on
 * every call that carries an `init` hook.
 */
export const kyVariantOptions = async (
  kind: VariantKind | 'init-noop',
  /** The fetch ky sends through (default: the global one); jitterbug takes it as its adapter option. */
  fetch?: (input: Request | URL | string, init?: RequestInit) => Promise<Response>,
): Promise<Options> => {
  const sending = fetch ? { fetch } : {};
  if (kind === 'raw') return { retry: 0, ...sending };
  if (kind === 'peer') return { retry: PEER_RETRY, ...sending };
  if (kind === 'init-noop') return { retry: PEER_RETRY, hooks: { init: [() => {}] }, ...sending } as Options;
  const { kyRetry } = await import('@jitterbug/ky');
  // kyRetry sets ky's `fetch` option to its own; the fetch it sends through is its adapter option.
  return { ...kyRetry(JITTERBUG_OPTIONS, sending) };
};

/** `fetch`: what ky sends through (default: the global fetch), given as `kyVariantOptions` gives it. */
export const kyClient = async (
  kind: VariantKind,
  origin: string,
  fetch?: Parameters<typeof kyVariantOptions>[1],
): Promise<BenchClient> => kyWith(origin, await kyVariantOptions(kind, fetch));
