/**
 * The caller's async context (AsyncLocalStorage stores, OpenTelemetry's active span), captured at
 * dispatch. undici runs a response's events in the context of its connection, i.e. of whichever
 * request opened it: every retry, hedged copy, wait and decision after an attempt failed runs in the
 * caller's context instead. An `AsyncResource` rather than `AsyncLocalStorage.snapshot()`: about
 * 25 ns per request against 2 µs (Node 22 and 24), and the capture cannot wait until a retry is
 * needed, as by then the caller's context is gone. Decisions after a failure are made in it too.
 */
import { AsyncResource } from 'node:async_hooks';
import type { RetryRun } from '@jitterbug/core/adapter';

/** The caller's context, captured now; `undefined` when the request cannot be retried at all. */
export const callerScope = (run: RetryRun): AsyncResource | undefined =>
  run.options.retry ? new AsyncResource('JitterbugRequest') : undefined;

/** `f()` in the caller's context. */
export const inScope = <T>(scope: AsyncResource | undefined, f: () => T): T =>
  scope ? scope.runInAsyncScope(f) : f();
