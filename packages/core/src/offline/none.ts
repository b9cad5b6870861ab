/**
 * Node (and Deno and Bun, which resolve `node`): there is no `navigator.onLine` to read, so a
 * failure is never taken as the browser being offline, and nothing of the browser's wait is bundled.
 */
import type { Sleep } from '../sleep.ts';

/** Never offline here. */
export const offline = (): boolean => false;

/** Waits `ms` with `sleep`; there is no `online` event to end it sooner. */
export const untilOnline = async (sleep: Sleep, ms: number, signal?: AbortSignal): Promise<boolean> => {
  await sleep(ms, signal);
  return false;
};
