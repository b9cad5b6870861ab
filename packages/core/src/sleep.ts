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
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** The shape of an injectable sleep: `sleep(ms, signal)` as above. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;
