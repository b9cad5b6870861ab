/**
 * Nested retry layers in Node: a jitterbug layer (`withRetry`, ky, axios) whose requests reach an
 * undici dispatcher composed with `retryInterceptor` (Node's global fetch with
 * `setGlobalDispatcher`) marks its attempts in an `AsyncLocalStorage`, which the interceptor reads:
 * only the outer layer retries. The mark is made only once an interceptor exists in the process, so
 * a program without one pays one property read per attempt. Chosen by the `node` condition of the
 * core's `#layers` import; elsewhere (`none.ts`) no undici interceptor can exist.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const REGISTRY = Symbol.for('jitterbug.layers');

interface Registry {
  /** Interceptors made (they read the mark). */
  interceptors: number;
  /** Whether any attempt was marked yet: until then an interceptor need not read the storage. */
  marked?: boolean;
  readonly inside: AsyncLocalStorage<true>;
}

/** One registry for every copy of the package in the process, as the retry summary's readers are. */
const shared = globalThis as { [REGISTRY]?: Registry };
shared[REGISTRY] ??= { interceptors: 0, inside: new AsyncLocalStorage<true>() };
const registry: Registry = shared[REGISTRY];

/** Whether a layer's attempts must be marked: an interceptor exists that could see them. */
export const marking = (): boolean => registry.interceptors > 0;

/** `send()`, marked as sent by a jitterbug layer (ask {@link marking} first). */
export const asLayer = <T>(send: () => T): T => {
  registry.marked = true;
  return registry.inside.run(true, send);
};

/** Whether this code runs inside an attempt of an outer jitterbug layer. */
export const insideLayer = (): boolean => registry.marked === true && registry.inside.getStore() === true;

/** An interceptor was made: from now on, layers mark their attempts. */
export const interceptorMade = (): void => {
  registry.interceptors++;
};
