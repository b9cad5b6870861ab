/**
 * Browsers (and whatever else resolves neither `node` nor a runtime of its own: workers, where
 * `navigator.onLine` exists too, and runtimes without it, where this reads nothing): whether the
 * browser says it is offline, and a wait that ends when it is back online.
 */
import type { Sleep } from '../sleep.ts';

interface OnlineScope {
  readonly navigator?: { readonly onLine?: unknown };
  addEventListener?(type: 'online', listener: () => void): void;
  removeEventListener?(type: 'online', listener: () => void): void;
}

const scope = globalThis as OnlineScope;
const ONLINE = Symbol('online');

/** Whether `navigator.onLine` is `false` (a runtime without it is never offline). */
export const offline = (): boolean => scope.navigator?.onLine === false;

/**
 * Waits `ms` with `sleep`, or until the `online` event, whichever comes first; resolves with whether
 * the browser is back online (at once when it already is), rejects as `sleep` does when `signal`
 * aborts. Leaves no listener behind.
 */
export const untilOnline = async (sleep: Sleep, ms: number, signal?: AbortSignal): Promise<boolean> => {
  if (!offline()) return true;
  if (typeof scope.addEventListener !== 'function') {
    await sleep(ms, signal);
    return !offline();
  }
  const ended = new AbortController();
  const back = (): void => ended.abort(ONLINE);
  const cancel = (): void => ended.abort(signal?.reason);
  scope.addEventListener('online', back);
  signal?.addEventListener('abort', cancel);
  try {
    if (signal?.aborted) cancel();
    await sleep(ms, ended.signal);
  } catch (error) {
    if (ended.signal.reason !== ONLINE) throw error;
  } finally {
    scope.removeEventListener?.('online', back);
    signal?.removeEventListener('abort', cancel);
  }
  return !offline();
};
