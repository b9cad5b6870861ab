/**
 * The events a run tells about a decision of its own: a retry (`onRetry`, the features'
 * `retrying`, `jitterbug:retry`) and giving up (`onGiveUp`, `jitterbug:give-up`).
 */
import type { Decision } from './decide.ts';
import type { Mutable, RetryEvent, StopReason } from './options.ts';
import type { RunRecord } from './run-record.ts';

/** The retry `decision` of `run`, after its attempt that ended with `status` or `error`. */
export const retryEventOf = (
  run: RunRecord,
  decision: Extract<Decision, { readonly retry: true }>,
  status: number | undefined,
  error: unknown,
): Mutable<RetryEvent> => ({
  method: run.method,
  url: run.url,
  attempt: run.attempts,
  delayMs: decision.delayMs,
  delaySource: decision.delaySource,
  serverDelayUnread: decision.serverDelayUnread === true,
  reason: decision.reason,
  status,
  error,
  route: run.options.route,
  budgetTokens: undefined,
});

/** `run` gives up as `reason` on a failure that is normally retried (`refusedDelayMs`: the wait not waited). */
export const giveUpEventOf = (
  run: RunRecord,
  reason: StopReason,
  status: number | undefined,
  error: unknown,
  refusedDelayMs: number | undefined,
) => ({
  method: run.method,
  url: run.url,
  attempt: run.attempts,
  reason,
  status,
  error,
  route: run.options.route,
  refusedDelayMs,
});
