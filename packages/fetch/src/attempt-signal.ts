/**
 * The signal one attempt is sent with: the caller's, joined with the attempt's own timer when
 * `attemptTimeoutMs` is set. The timer covers the attempt until its response headers arrive.
 */
import { AttemptTimeoutError } from '@jitterbug/core';

/** One attempt's signal and its timer. */
export interface AttemptSignal {
  readonly signal: AbortSignal;
  /** Whether the timer fired (and so ended the attempt). */
  fired(): boolean;
  /** Stops the timer. */
  stop(): void;
}

/** A signal for one attempt, or `undefined` when the caller's own (if any) is all it needs. */
export const attemptSignal = (
  timeoutMs: number | undefined,
  caller: AbortSignal | null | undefined,
): AttemptSignal | undefined => {
  if (timeoutMs === undefined) return undefined;
  const controller = new AbortController();
  let fired = false;
  const timer = setTimeout(() => {
    fired = true;
    controller.abort(new AttemptTimeoutError(timeoutMs));
  }, timeoutMs);
  return {
    signal: caller ? AbortSignal.any([caller, controller.signal]) : controller.signal,
    fired: () => fired,
    stop: () => clearTimeout(timer),
  };
};
