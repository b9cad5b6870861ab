/**
 * Nested retry layers: when a jitterbug layer sends through another (`withRetry(withRetry(fetch))`,
 * ky over a wrapped fetch, two composed interceptors, any of them over a dispatcher composed with
 * `retryInterceptor`), only the **outer** layer retries: it decides with the options and the call's
 * overrides the caller gave it, and an inner layer passes each attempt through, sent once, its
 * failure handed up as it is. Without this a 503 that never clears is sent `maxAttempts²` times.
 *
 * A layer is a function or a handler carrying {@link LAYER}: a layer that sends through one marks its
 * attempts (a `fetch` init field, a dispatch handler), which the inner one sees. Through a client
 * that drops such marks (fetch over an undici dispatcher) the mark is the `#layers` platform's.
 * `Symbol.for`, so that two copies of the package see each other.
 */
export const LAYER: unique symbol = Symbol.for('jitterbug.layer') as never;

/** `target`, marked as a jitterbug layer. */
export const asRetryLayer = <T extends object>(target: T): T =>
  Object.defineProperty(target, LAYER, { value: true });

/** Whether `target` (a fetch function, an init, a handler) is a jitterbug layer or marked by one. */
export const isRetryLayer = (target: unknown): boolean =>
  // A primitive has no such property: the read gives `undefined`, as for an unmarked object.
  target != null && (target as { [LAYER]?: unknown })[LAYER] === true;
