/**
 * An attempt's turn, for adapters that can await: `run.beforeAttempt` asked until it lets the
 * attempt go. While the origin is in a cooldown it holds the attempt (released in order, with
 * jitter) and is asked again after the hold; the cooldown or the throttle may refuse it instead.
 */
import type { RetryRun } from './policy.ts';

/** What `beforeAttempt` is given: the caller's signal, or an object that makes one only for a hold. */
type HoldSignal = Parameters<RetryRun['beforeAttempt']>[0];

const heldUntilTurn = async (
  run: Pick<RetryRun, 'beforeAttempt'>,
  signal: HoldSignal,
  held: Promise<void>,
): Promise<void> => {
  for (let next: void | Promise<void> = held; next; next = run.beforeAttempt(signal)) await next;
};

/**
 * Call immediately before each send. `undefined` (nearly always, and no promise is made): send now.
 * A promise: it resolves when the attempt may go, or rejects with the signal's reason or with the
 * refusal (`CooldownError`, `ThrottledError`: the run is then finished).
 */
export const awaitTurn = (
  run: Pick<RetryRun, 'beforeAttempt'>,
  signal?: HoldSignal,
): void | Promise<void> => {
  const held = run.beforeAttempt(signal);
  return held ? heldUntilTurn(run, signal, held) : undefined;
};
