/**
 * The caller's async context (AsyncLocalStorage stores, OpenTelemetry's active span), captured at
 * dispatch. undici runs a response's events in the context of its connection, i.e. of whichever
 * request opened it: every retry, hedged copy, wait and decision after an attempt failed runs in the
 * caller's context instead. An `AsyncResource` rather than `AsyncLocalStorage.snapshot()`: about
 * 25 ns per request against 2 µs (Node 22 and 24), and the capture cannot wait until a retry is
 * needed, as by then the caller's context is gone. Decisions after a failure are made in it too.
 *
 * A handler that is an `AsyncResource` carries that context already and is the scope: undici's
 * `request()`, `stream()` and `pipeline()` make theirs in the caller's execution just before they
 * dispatch, and run the caller's callbacks in it. Making one (for fetch's handler, a legacy one, an
 * interceptor's wrapper) is about 750 of the 46,600 instructions of a request that succeeds at once.
 */
import { AsyncResource } from 'node:async_hooks';
import type { RetryRun } from '@jitterbug/core/adapter';

/**
 * The caller's context: `caller`'s own when it is an `AsyncResource`, else captured now; `undefined`
 * when the request cannot be retried at all.
 */
export const callerScope = (run: RetryRun, caller: object): AsyncResource | undefined => {
  if (!run.options.retry) return undefined;
  return caller instanceof AsyncResource ? caller : new AsyncResource('JitterbugRequest');
};

/** `f()` in the caller's context. */
export const inScope = <T>(scope: AsyncResource | undefined, f: () => T): T =>
  scope ? scope.runInAsyncScope(f) : f();
