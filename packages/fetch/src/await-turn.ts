/** The origin-wide cooldown, as an attempt waits for it. */
import type { RetryRun } from '@jitterbug/core/adapter';
import { tagged } from './tagged.ts';

const held = async (run: RetryRun, signal: AbortSignal | undefined, hold: Promise<void>): Promise<void> => {
  for (let next: void | Promise<void> = hold; next; next = run.beforeAttempt(signal)) {
    try {
      await next;
    } catch (error) {
      throw tagged(error, run);
    }
  }
};

/**
 * Call immediately before each send. `undefined`: send now (nearly always: no promise is made). A
 * promise: the origin is in a cooldown; it resolves when the attempt may go (released in order,
 * with jitter), or rejects with the signal's reason or the run's `CooldownError` when the hold is
 * too long, each carrying the summary.
 */
export const awaitTurn = (run: RetryRun, signal: AbortSignal | undefined): void | Promise<void> => {
  const hold = run.beforeAttempt(signal);
  return hold ? held(run, signal, hold) : undefined;
};
