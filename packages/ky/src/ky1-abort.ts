/**
 * ky 1 tells no hook about an abort during an attempt: fetch rejects with the signal's reason, ky
 * asks `retry.shouldRetry`, then its 0 ms delay rejects on the caller's signal, and the call ends
 * without `beforeRetry` or `beforeError`. The signal ky 1 hands to hooks joins the caller's signal
 * with ky's own per-attempt `timeout`, so an abort seen on it may still be ky's timeout (which ky
 * retries through `beforeRetry` like any error).
 *
 * What tells them apart is what reaches `shouldRetry`: after the caller's abort it is the signal's
 * own reason (fetch rejects with it), after ky's timeout a `TimeoutError`. So an abort is noted
 * here with its reason, and `shouldRetry` ends the run when the very same value arrives.
 *
 * An abort that lands in ky's own 0 ms delay after an attempt failed (or after a status was
 * retried) never reaches `shouldRetry`: ky's delay rejects with the reason straight away. A timer
 * after the abort (every microtask of ky's has run by then) reports such an abort as unseen.
 */

const byObject = new WeakMap<object, () => void>();
const byPrimitive = new Map<unknown, () => void>();

const isObject = (value: unknown): value is object =>
  (typeof value === 'object' && value !== null) || typeof value === 'function';

/**
 * Calls `onSeen` with the signal's reason if it aborts and that reason then reaches ky's
 * `shouldRetry`, or `onUnseen` if it has not by the next timer. Returns the function that stops
 * watching (call it when the run is over).
 */
export const watchKy1Abort = (
  signal: AbortSignal,
  onSeen: (reason: unknown) => void,
  onUnseen: (reason: unknown) => void,
): (() => void) => {
  let noted: { reason: unknown; seen: () => void } | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const forget = (): void => {
    clearTimeout(timer);
    timer = undefined;
    if (!noted) return;
    if (isObject(noted.reason)) {
      if (byObject.get(noted.reason) === noted.seen) byObject.delete(noted.reason);
    } else if (byPrimitive.get(noted.reason) === noted.seen) {
      byPrimitive.delete(noted.reason);
    }
    noted = undefined;
  };
  const listener = (): void => {
    const reason: unknown = signal.reason;
    const seen = (): void => {
      forget();
      onSeen(reason);
    };
    noted = { reason, seen };
    if (isObject(reason)) byObject.set(reason, seen);
    else byPrimitive.set(reason, seen);
    timer = setTimeout(() => {
      timer = undefined;
      if (noted?.seen !== seen) return;
      forget();
      onUnseen(reason);
    }, 0);
  };
  if (signal.aborted) listener();
  else signal.addEventListener('abort', listener, { once: true });
  return () => {
    signal.removeEventListener('abort', listener);
    forget();
  };
};

/**
 * `shouldRetry` saw `error`: if it is a watched abort's reason, that abort is reported. ky wraps a
 * reason that is not an `Error` in its `NonError` (the reason is its `value`).
 */
export const reportKy1Abort = (error: unknown): void => {
  const seen = isObject(error) ? byObject.get(error) : byPrimitive.get(error);
  if (seen) {
    seen();
    return;
  }
  const e = error as { name?: unknown; value?: unknown } | null;
  if (e instanceof Error && e.name === 'NonError' && 'value' in e) {
    (isObject(e.value) ? byObject.get(e.value) : byPrimitive.get(e.value))?.();
  }
};
