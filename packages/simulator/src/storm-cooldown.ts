/**
 * The storm's origin-wide cooldown: the question `RetryRun.beforeAttempt` puts to the policy's
 * `Cooldown` before every attempt, asked directly, and the hold a 429/503 leaves on the run.
 *
 * Why not call `beforeAttempt`: a held attempt gets a promise (the run's `wait` on the policy's
 * sleep) and a refused one a rejected promise; in a synchronous simulation they settle only after
 * the whole sweep, holding a few KB each until then (the throttle's refusals cost 500 MB that way,
 * commit cbf611e). These functions make the same calls on the same objects, in the same order, with
 * the same random draws, and a test compares them with `beforeAttempt` attempt by attempt.
 */
import type { Cooldown, HeaderGetter, StopReason } from '@jitterbug/core';
import { serverDelay } from '@jitterbug/core';
import { decideByStatus, holdWait, type RetryRun } from '@jitterbug/core/adapter';

/** What the cooldown says about an attempt about to be sent. */
export type CooldownTurn =
  /** Send it now. */
  | { readonly kind: 'go' }
  /** Wait `waitMs` (the run's `wait`), then ask again; `servedUntil` is the run's new mark. */
  | { readonly kind: 'hold'; readonly waitMs: number; readonly servedUntil: number }
  /** The hold is longer than the options allow: the request ends with `reason`, nothing sent. */
  | { readonly kind: 'refuse'; readonly reason: StopReason; readonly servedUntil: number };

const GO: CooldownTurn = Object.freeze({ kind: 'go' });

/** The origin the core keys holds by (`new URL(url).origin`, as the run computes it). */
export const originOf = (url: string): string => {
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
};

/**
 * The cooldown's part of `run.beforeAttempt()` at the policy's `now()`: the same `releaseAt` and
 * `until` calls on the policy's `Cooldown`, the same jitter draw from its random source (made only
 * while the cooldown is active), the same `retryAfter.maxMs` / `whenLonger` and `deadlineMs` checks.
 * `servedUntil` is the end of the hold the run was last released from or caused (the caller keeps
 * its own copy here, see {@link servedUntilAfter}, rather than writing the run's). A hold is added to the run's
 * `totalDelayMs`, as its `wait` adds it.
 */
export const cooldownTurn = (run: RetryRun, origin: string, servedUntil: number): CooldownTurn => {
  const o = run.options;
  const cooldown: Cooldown | undefined = o.cooldown;
  if (!cooldown?.active) return GO;
  const nowMs = o.now();
  const r = o.retryAfter ? o.random() : 0;
  // The core's unitRandom: a source returning NaN or a negative number reads as 0, above 1 as 1.
  const jitter = o.retryAfter ? (r >= 0 ? Math.min(r, 1) : 0) * o.retryAfter.jitterRatio : 0;
  const release = cooldown.releaseAt(origin, nowMs, servedUntil, jitter);
  if (release === undefined) return GO;
  const until = cooldown.until(origin);
  const { waitMs, refused } = holdWait(o, run.elapsedMs(), release - nowMs);
  if (refused) return { kind: 'refuse', reason: refused, servedUntil: until };
  run.totalDelayMs += waitMs;
  return { kind: 'hold', waitMs, servedUntil: until };
};

/**
 * The run's `servedUntil` after `run.next({ status, headers })` at `nowMs`: a 429 or 503 that went
 * through the decision (not settled by its status alone) and carries a server delay holds the
 * origin until `nowMs + delay`, and the run has then served that hold (it keeps its own place).
 */
export const servedUntilAfter = (
  run: RetryRun,
  status: number,
  headers: HeaderGetter,
  nowMs: number,
  servedUntil: number,
): number => {
  const o = run.options;
  if (!o.cooldown || !o.retryAfter || (status !== 429 && status !== 503)) return servedUntil;
  if (decideByStatus(status, o) !== undefined) return servedUntil;
  const server = serverDelay(headers, nowMs);
  return server ? nowMs + server.ms : servedUntil;
};
