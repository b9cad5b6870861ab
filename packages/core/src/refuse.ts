/**
 * Ending a run before an attempt is sent: what the opt-in features that hold or refuse attempts (the
 * pacer, the adaptive throttle) do when they refuse one. Not a method of the run, so that a
 * program without those features does not carry it.
 */
import { channels, observed } from '#diagnostics';
import type { StopReason } from './options.ts';
import type { RetryRun } from './run.ts';

/** What refusing asks of a run (a structural type, for features from another copy of the package). */
export type RefusableRun = Pick<RetryRun, 'options' | 'method' | 'url' | 'attempts' | 'finish' | 'hook'>;

/**
 * Finishes `run` as `reason` (telling `onGiveUp` and `jitterbug:give-up`, with the delay that was not
 * waited) and rejects with `error`.
 */
export const refuse = async (
  run: RefusableRun,
  reason: StopReason,
  error: Error,
  refusedDelayMs: number | undefined,
): Promise<never> => {
  const o = run.options;
  const { method, url, attempts: attempt } = run;
  const event = { method, url, attempt, reason, status: undefined, error, route: o.route, refusedDelayMs };
  if (observed && channels.giveUp.hasSubscribers) channels.giveUp.publish({ ...event, run: run as RetryRun });
  // A hook that throws or rejects ends the run as hook-failed (the run's guard) and fails the request.
  const onGiveUp = o.onGiveUp;
  if (onGiveUp) await run.hook(undefined, () => onGiveUp(event));
  await run.finish(reason, undefined, error, false);
  throw error;
};
