/**
 * The window in which a span created by an HTTP client instrumentation belongs to a jitterbug
 * attempt: opened by `jitterbug:attempt:start` (published synchronously just before the adapter
 * hands the attempt to its client) and closed when the span is claimed or at the end of the
 * synchronous job, whichever comes first. A request created later (not synchronously by the
 * client's send) is not taken for the attempt: a span is never numbered by a guess.
 */
import type { RunState } from './run-state.ts';

/** The attempt being sent: its run, its resend count and, for a hedged copy, the copy's number. */
export interface Send {
  readonly state: RunState;
  readonly attempt: number;
  readonly resendCount: number;
  readonly copy: number | undefined;
}

export class AttemptWindow {
  #open: Send | undefined = undefined;

  /** Opens the window for `send` until it is claimed or the current synchronous job ends. */
  open(send: Send): void {
    this.#open = send;
    queueMicrotask(() => {
      // Another attempt may have opened the window since: only this send's window closes.
      if (this.#open === send) this.#open = undefined;
    });
  }

  /** The attempt being sent, once: the first span created in the window is its span. */
  claim(): Send | undefined {
    const send = this.#open;
    this.#open = undefined;
    return send;
  }

  /** Closes the window (the instrumentation stops). */
  close(): void {
    this.#open = undefined;
  }
}
