// setTimeout fires after ~1 ms for anything above 2^31 - 1 ms (about 24.8 days): longer waits are
// taken in steps.
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Waits `ms` milliseconds. Rejects at once with `signal.reason` when the signal aborts (or has
 * already aborted), and in every case leaves no timer and no listener behind.
 */
export const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    // Infinity waits as long as timers can (about 24.8 days, in steps); NaN and negatives do not wait.
    // biome-ignore lint/complexity/useMathMinMax: Math.max would keep a NaN, which must not wait.
    let left = ms === Number.POSITIVE_INFINITY ? MAX_TIMER_MS : ms > 0 ? ms : 0;
    let timer: ReturnType<typeof setTimeout>;
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const step = (): void => {
      const chunk = Math.min(left, MAX_TIMER_MS);
      left -= chunk;
      timer = setTimeout(() => {
        if (left > 0) return step();
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, chunk);
    };
    step();
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** The shape of an injectable sleep: `sleep(ms, signal)` as above. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;
