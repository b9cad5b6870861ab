/**
 * What the attempt sequence keeps only on the paths that need it (a wait, a race, a hook's promise,
 * a failure): a request that succeeds at once never makes it.
 */
import type { StopReason } from './options.ts';
import type { RacedSend } from './steps.ts';

/** A stop waiting for `onGiveUp`'s promise: how the run then ends. */
export interface Ending {
  readonly reason: StopReason;
  readonly status: number | undefined;
  readonly error: unknown;
  readonly success: boolean;
}

/** The sequence's state of the rarer paths. */
export interface Aside {
  /** The status a hook whose promise is out was called for (the summary's, should it fail). */
  hookStatus: number | undefined;
  /** A stop waiting for `onGiveUp`'s promise. */
  ending: Ending | undefined;
  /** What the request fails with. */
  error: unknown;
  /** The wait asked for. */
  delayMs: number;
  /** The promise handed over. */
  pending: PromiseLike<unknown> | undefined;
  /** The race of the attempt's copies, while a feature races them. */
  race: RacedSend | undefined;
  /** When the wait until the browser is back online began (`untilOnline`), by the policy's clock. */
  offlineSinceMs: number;
}

/** A new, empty aside (one literal of one shape). */
export const newAside = (): Aside => ({
  hookStatus: undefined,
  ending: undefined,
  error: undefined,
  delayMs: -1,
  pending: undefined,
  race: undefined,
  offlineSinceMs: -1,
});
