/**
 * undici's own retry (`interceptors.retry()`, `RetryAgent`, both its `RetryHandler`) in the same
 * chain as `retryInterceptor`. The outer layer decides, as between jitterbug's own layers (the
 * core's `layer.ts`), so that a request is never sent `maxAttempts` times per attempt:
 *
 * - **undici's retry outside**: it hands this interceptor its `RetryHandler`, and the request passes
 *   straight on ({@link isUndiciRetryHandler}); undici decides, jitterbug sends once per dispatch.
 * - **`interceptors.retry()` inside**: undici's interceptor lays a request's own `retryOptions` over
 *   its options, so each attempt goes out with options that make it hand every answer and error on
 *   unretried (`passOnOptions`); jitterbug decides. Found when its `RetryController` starts an
 *   attempt ({@link isUndiciRetryController}): that attempt, not written yet, is sent again so told,
 *   and every later one is told from the start ({@link Downstream}).
 * - **`RetryAgent` inside**: it takes no per-request options and would send each attempt again by
 *   its own rules: the request fails with a `TypeError` that says how to compose them, before
 *   anything is written.
 *
 * undici's handler and controller are recognised by their shape (undici 7 and 8 alike), as the
 * adapter knows undici only structurally (`types.ts`).
 */
import { toNewHandler } from './legacy.ts';
import type { Controller, DispatchOpts, LegacyHandler, NewHandler, NextDispatch } from './types.ts';

/** undici's `RetryHandler`, as far as this adapter reads it. */
interface UndiciRetryHandler extends NewHandler {
  readonly retryOpts: object;
  /** The handler it wraps (its public field in undici 6, 7 and 8). */
  handler: NewHandler | LegacyHandler;
}

/** Whether `handler` is undici's `RetryHandler`: it decides, and this interceptor only passes it on. */
export const isUndiciRetryHandler = (handler: object): handler is UndiciRetryHandler => {
  // One read of a missing property on every other handler.
  const retryOpts = (handler as { retryOpts?: unknown }).retryOpts;
  return (
    typeof retryOpts === 'object' &&
    retryOpts !== null &&
    typeof (handler as { dispatch?: unknown }).dispatch === 'function'
  );
};

/**
 * undici's `RetryHandler`, ready to be passed on. undici 8's speaks only the current API to the
 * handler it wraps, and Node's global `fetch` hands it a legacy one, which would never hear back
 * (the fetch would hang, with or without jitterbug): that one is translated, as undici 7's
 * `RetryHandler` does itself.
 */
export const undiciRetryHandler = (handler: UndiciRetryHandler): NewHandler => {
  const wrapped = handler.handler;
  if (typeof wrapped === 'object' && wrapped !== null) handler.handler = toNewHandler(wrapped);
  return handler;
};

/**
 * Whether `controller` is the `RetryController` undici's `RetryHandler` gives its handler: its
 * `target` (the connection's controller) is an accessor of its class, where the other controllers
 * undici wraps (decompression's, the cache's) hold theirs as a field.
 */
export const isUndiciRetryController = (controller: Controller): boolean =>
  'target' in controller && !Object.hasOwn(controller, 'target');

/** What one dispatch told undici's retry below: whether its interceptor read the options. */
interface Told {
  taken: boolean;
}

const NO_STATUSES: readonly number[] = Object.freeze([]);

/** undici's `retry` callback that retries nothing: each error goes on to this interceptor. */
const handOn = (error: Error, _context: unknown, callback: (error: Error) => void): void => callback(error);

/**
 * `retryOptions` that make undici's `RetryHandler` pass everything on: no status is retried (and
 * with `throwOnError` a status not retried is handed on as the response it is, not turned into an
 * error), and its `retry` hands every error on. `retry` is read as undici spreads the options into
 * its own, which tells `told` that they were taken (a `RetryAgent` ignores them).
 */
const passOnOptions = (told: Told) => ({
  throwOnError: true,
  statusCodes: NO_STATUSES,
  get retry() {
    told.taken = true;
    return handOn;
  },
});

/** The `TypeError` for a `RetryAgent` under this interceptor. */
const retryAgentBelow = (): TypeError =>
  new TypeError(
    'jitterbug: undici’s RetryAgent is below retryInterceptor, and would send each of its attempts again by its own rules. Compose them the other way round, new RetryAgent(new Agent().compose(retryInterceptor(options))) (undici’s RetryAgent then decides, jitterbug sends once), or drop the RetryAgent: new Agent().compose(retryInterceptor(options))',
  );

/** What to do with an attempt that undici's `RetryHandler` below started. */
export type BelowVerdict = 'go' | 'again' | TypeError;

/**
 * The dispatch below one composed `retryInterceptor` (one per `compose` call), and what it found
 * there: whether undici's retry is below, which then must be told to pass each attempt on.
 */
export class Downstream {
  readonly #next: NextDispatch;
  /** undici's retry was found below: each attempt goes out with {@link passOnOptions}. */
  #telling = false;
  /** What each attempt sent with them was told, by attempt (its last dispatch). */
  readonly #told = new WeakMap<NewHandler, Told>();

  constructor(next: NextDispatch) {
    this.#next = next;
  }

  send(opts: DispatchOpts, attempt: NewHandler): boolean {
    if (!this.#telling) return this.#next(opts, attempt);
    const told: Told = { taken: false };
    this.#told.set(attempt, told);
    return this.#next({ ...opts, retryOptions: passOnOptions(told) } as DispatchOpts, attempt);
  }

  /**
   * `attempt` was started by undici's `RetryController` (nothing is written yet): it goes on when
   * undici's interceptor took the options that make it pass everything on; it is sent again, so told,
   * when it went out before undici's retry was found; a `RetryAgent` (which ignored them) refuses it.
   */
  started(attempt: NewHandler): BelowVerdict {
    const told = this.#told.get(attempt);
    if (told === undefined) {
      this.#telling = true;
      return 'again';
    }
    return told.taken ? 'go' : retryAgentBelow();
  }
}

/** The reason an attempt sent again is aborted with: its report of it, through undici, is ignored. */
export const SENT_AGAIN: Error = new Error('jitterbug: sent again, telling undici’s retry to pass it on');
