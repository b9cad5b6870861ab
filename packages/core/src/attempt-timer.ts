/**
 * The per-attempt timeout (`attemptTimeoutMs`) for every adapter: a timer that ends an attempt with
 * an {@link AttemptTimeoutError}, either by a callback (undici's handlers) or as a signal joined
 * with the caller's (the clients that take a signal: fetch, axios).
 */
import { AttemptTimeoutError } from './errors.ts';

/** A caller's signal as the clients give it (axios' may be a look-alike of `AbortSignal`). */
export interface SignalLike {
  /** Whether it has fired. */
  readonly aborted: boolean;
  /** Why it fired (the error an aborted request fails with). */
  readonly reason?: unknown;
  /** Listens for it to fire. */
  addEventListener?(type: 'abort', listener: () => void): void;
  /** Stops listening. */
  removeEventListener?(type: 'abort', listener: () => void): void;
}

/** Calls `onTimeout` after `timeoutMs`; returns what stops it. */
export const startTimer = (
  timeoutMs: number,
  onTimeout: (error: AttemptTimeoutError) => void,
): (() => void) => {
  const timer = setTimeout(() => onTimeout(new AttemptTimeoutError(timeoutMs)), timeoutMs);
  return () => clearTimeout(timer);
};

/** One attempt's signal and its timer. */
export interface AttemptTimer {
  /** Aborts when the caller's signal does (with its reason), or when the timer fires. */
  readonly signal: AbortSignal;
  /** Whether the timer fired (and so ended the attempt). */
  fired(): boolean;
  /** Stops the timer and stops listening to the caller. */
  stop(): void;
}

/**
 * Starts one attempt's timer. Without `timeoutMs`, only the caller's signal as an `AbortSignal`
 * (for a hedged copy, whose signal the race joins with its own cancel).
 */
export const attemptTimer = (timeoutMs: number | undefined, caller?: SignalLike | null): AttemptTimer => {
  const controller = new AbortController();
  let fired = false;
  const stopTimer =
    timeoutMs === undefined
      ? undefined
      : startTimer(timeoutMs, (error) => {
          fired = true;
          controller.abort(error);
        });
  const onAbort = (): void => controller.abort(caller?.reason);
  if (caller?.aborted) onAbort();
  else caller?.addEventListener?.('abort', onAbort);
  return {
    signal: controller.signal,
    fired: () => fired,
    stop: () => {
      stopTimer?.();
      caller?.removeEventListener?.('abort', onAbort);
    },
  };
};
