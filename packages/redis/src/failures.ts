/**
 * What a failed command means to a caller that falls back: the store is away (`unavailable`), still
 * loading its data (`loading`), or answered something else (`error`). The client's own errors (it is
 * offline, its socket closed, the connection was refused) say the store is away; the server's error
 * replies say what the server said.
 */
import type { StoreFailure } from '@jitterbug/core/store';

/** Server replies that say the store cannot serve now, rather than that the call was wrong. */
const AWAY = /^(MASTERDOWN|CLUSTERDOWN|TRYAGAIN|READONLY|BUSY)\b/;

/** Whether `error` is an error reply from the server: node-redis' `ErrorReply` (of any copy of it). */
const isErrorReply = (error: unknown): boolean => {
  for (let p = error; typeof p === 'object' && p !== null; p = Object.getPrototypeOf(p))
    if ((p as { constructor?: { name?: string } }).constructor?.name === 'ErrorReply') return true;
  return false;
};

/** Whether the server says it does not have the script (after a restart or `SCRIPT FLUSH`). */
export const isNoScript = (error: unknown): boolean =>
  isErrorReply(error) && String((error as Error).message).startsWith('NOSCRIPT');

/** The failure a command's error comes to. */
export const failureOf = (error: unknown): StoreFailure => {
  if (!isErrorReply(error)) return 'unavailable';
  const message = String((error as Error).message);
  if (message.startsWith('LOADING')) return 'loading';
  return AWAY.test(message) ? 'unavailable' : 'error';
};
