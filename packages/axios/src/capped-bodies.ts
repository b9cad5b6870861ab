/**
 * The opt-in that turns stream mode on: `attachRetry(api, policy, { discardedBodyCap:
 * createDiscardedBodyCap() })`. It is a factory to import rather than `true` so that a program that
 * does not use it does not carry stream mode's code (about 1.3 KB of a browser bundle, gzipped):
 * only this module reaches it.
 */
import { noOptions } from '@jitterbug/core/adapter';
import type { AxiosAdapter, InternalAxiosRequestConfig } from 'axios';
import { httpAdapter, httpBody } from '#platform';
import axios from './axios-values.ts';
import { fetchBody } from './fetch-body.ts';
import type { StreamMode } from './in-flight.ts';
import { streamModeOf } from './stream-mode.ts';

/** What the `discardedBodyCap` option takes: what {@link createDiscardedBodyCap} returns. */
export interface DiscardedBodyCap {
  /** Stream mode for the request's real adapter, or `undefined` for one whose stream jitterbug cannot read. */
  readonly modeOf: (adapter: AxiosAdapter, config: InternalAxiosRequestConfig) => StreamMode | undefined;
}

const httpMode = httpBody && streamModeOf(httpBody);
const fetchMode = streamModeOf(fetchBody);

const DISCARDED_BODY_CAP: DiscardedBodyCap = Object.freeze({
  modeOf: (adapter: AxiosAdapter, config: InternalAxiosRequestConfig): StreamMode | undefined => {
    // Another copy of axios (e.g. its CJS build next to the ESM one this package imports) has its
    // own http adapter with the same name.
    if (adapter === httpAdapter() || (adapter as { adapterName?: unknown }).adapterName === 'http') {
      return httpMode;
    }
    // The fetch adapter is built per environment (`getFetch(config)`, cached) and carries no name:
    // by identity only.
    try {
      return adapter === axios.getAdapter('fetch', config) ? fetchMode : undefined;
    } catch {
      // No fetch in this environment: the adapter cannot be axios' fetch adapter.
      return undefined;
    }
  },
});

/**
 * Stream mode, to give to `attachRetry`: `attachRetry(instance, policy, { discardedBodyCap:
 * createDiscardedBodyCap() })`: every attempt that could still
 * be retried asks axios' `http` or `fetch` adapter for the body as a stream and reads it itself, at
 * most `discardBodyMaxBytes` (default 64 KiB) before the decision. A response to be retried is then
 * drained within that cap or its connection closed, never downloaded whole (a 1 GB or an endless
 * 503 body); the response you get is finished exactly as the adapter would have finished it. Its
 * cost on the success path is in the README ("Discarded bodies"). The `xhr` adapter and your own
 * adapters read bodies themselves: for them it changes nothing.
 */
export const createDiscardedBodyCap = (...none: never[]): DiscardedBodyCap => {
  noOptions('createDiscardedBodyCap', none);
  return DISCARDED_BODY_CAP;
};
