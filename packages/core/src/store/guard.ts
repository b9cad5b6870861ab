/**
 * What every store on the network does around a call, so that a call never waits long and never
 * rejects: refuse arguments past the limit, answer `paused` for a while after a timeout (so that a
 * store that stops answering costs a caller one timeout per pause, not one per request), give up
 * after `timeoutMs` (the call is told through its `AbortSignal`), and turn a rejection into a
 * failure. `@jitterbug/redis` and `@jitterbug/durable-object` use it; a store of yours can.
 */
import { argsWithinLimit, NUMBER_LIMIT } from './codec.ts';
import type { StoreOperation, StoreReply } from './port.ts';

/** Options of {@link createCallGuard}. */
export interface CallGuardOptions {
  /** The longest a call may take, in ms. */
  readonly timeoutMs: number;
  /** After a timeout, calls answer `paused` at once for this long, in ms (0: never). */
  readonly pauseMs: number;
  /** The clock of the pause (the host's: it decides no operation). Default `performance.now`. */
  readonly now?: () => number;
}

/** Runs store calls under a timeout and a pause; see the module's comment. */
export type CallGuard = (
  operation: StoreOperation,
  args: readonly number[],
  call: (signal: AbortSignal) => Promise<StoreReply>,
) => Promise<StoreReply>;

const TIMEOUT: StoreReply = Object.freeze({ ok: false, failure: 'timeout' });
const PAUSED: StoreReply = Object.freeze({ ok: false, failure: 'paused' });

/** Creates a call guard. */
export const createCallGuard = ({
  timeoutMs,
  pauseMs,
  now = () => performance.now(),
}: CallGuardOptions): CallGuard => {
  let pausedUntil = Number.NEGATIVE_INFINITY;
  return (operation, args, call) => {
    if (!argsWithinLimit(args))
      return Promise.resolve({
        ok: false,
        failure: 'error',
        error: new TypeError(`${operation.name}: an argument is not a number within ${NUMBER_LIMIT}`),
      });
    if (now() < pausedUntil) return Promise.resolve(PAUSED);
    const abort = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<StoreReply>((resolve) => {
      // Decided a turn of the event loop later: a reply that arrived while the loop was busy (a
      // loaded host) is read first, so that the timeout measures the store rather than our own lag.
      timer = setTimeout(() => {
        timer = setTimeout(() => {
          abort.abort();
          resolve(TIMEOUT);
        }, 0);
      }, timeoutMs);
    });
    let answered: Promise<StoreReply>;
    try {
      answered = call(abort.signal).catch(
        (error: unknown): StoreReply => ({ ok: false, failure: 'error', error }),
      );
    } catch (error) {
      answered = Promise.resolve({ ok: false, failure: 'error', error });
    }
    return Promise.race([answered, timedOut]).then((reply) => {
      clearTimeout(timer);
      if (reply === TIMEOUT && pauseMs > 0) pausedUntil = now() + pauseMs;
      return reply;
    });
  };
};
