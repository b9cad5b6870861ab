/**
 * The attempt loop, for every client that can await: the fetch engine (`withRetry`, ky), axios, and
 * the requests for the rest of a broken body. It reads top to bottom, as p-retry's does: check the
 * caller, take the attempt's turn, send (as hedged copies when the policy hedges), let the run
 * decide, then hand over, or drop and wait. The client is a {@link Transport}, which only sends and
 * translates; every decision is the run's. undici's callbacks cannot await, and keep the same steps
 * in their own state machine.
 */
import { type AttemptKind, type EditableRequest, editAttempt } from './attempt-edits.ts';
import type { Decision } from './decide.ts';
import { type AttemptResult, quietly, type RetryRun } from './run.ts';

/**
 * A client as the loop drives it, for one request. `A` is one attempt's answer as the client gave it
 * (a response, or a failure it never rejects with), `R` what the caller gets.
 */
export interface Transport<A, R> extends EditableRequest {
  /** The caller's signal, for waits and holds (made on first use where the client has none). */
  signal(): AbortSignal | undefined;
  /** The caller's cancellation, once they cancelled (the reason the request then rejects with). */
  cancellation(): unknown;
  /** Work before the first attempt (a stream body read ahead); its rejection fails the request. */
  prepare?(): Promise<void> | undefined;
  /**
   * Sends one attempt, or one hedged copy of it (`cancel`: the race ends it when another copy wins).
   * Never rejects: a failure comes back as an answer.
   */
  send(cancel?: AbortSignal): Promise<A>;
  /** The answer's status, when it has one (`undefined`: it failed). */
  status(answer: A): number | undefined;
  /** The answer in the core's terms (asked when its status alone does not settle the run). */
  result(answer: A): AttemptResult | Promise<AttemptResult>;
  /**
   * What the caller gets for the final answer, carrying the run's summary; throws (or rejects with)
   * a failure's error, which the loop then tags.
   */
  deliver(answer: A): R | Promise<R>;
  /** Drops an answer: at most `maxBytes` of its body drained, the rest cancelled or its connection closed. */
  discard(answer: A, maxBytes: number): void | Promise<void>;
  /** Attaches the finished run's summary to the error the caller gets. */
  tag(error: unknown): void;
  /** Whether this attempt must be sent once, hedging or not (axios' stream mode). */
  sendOnce?(): boolean;
  /** Its attempts ask for the rest of a body that broke (for `beforeRetry`'s `kind`). */
  readonly resuming?: boolean;
  /** Releases what the transport made for the request (listeners on the caller's cancellation). */
  close?(): void;
}

/**
 * Sends the request until the run stops, and resolves with what the caller gets, or rejects with its
 * error, each carrying the run's summary. `waitFirstMs`: a retry was decided already (a broken body
 * to resume), so the loop begins with its wait.
 */
export const runAttempts = async <A, R>(
  run: RetryRun,
  t: Transport<A, R>,
  waitFirstMs?: number,
): Promise<R> => {
  // A hook of the client's that may change a retry (ky's): the budget lets one such retry go free.
  if (t.beforeRetry) run.retryHooks = true;
  try {
    const preparing = t.prepare?.();
    if (preparing) {
      // The body read ahead before the first attempt: a failure ends the run (nothing was sent).
      try {
        await preparing;
      } catch (error) {
        if (t.cancellation() !== undefined) await quietly(run.abort(error));
        else await run.next({ error });
        throw error;
      }
    }
    if (waitFirstMs !== undefined) await run.wait(waitFirstMs, t.signal());
    for (;;) {
      // An attempt the caller gave up on before it was sent is not counted.
      const cancelled = t.cancellation();
      if (cancelled !== undefined) {
        await quietly(run.abort(cancelled));
        throw cancelled;
      }
      // Asked again after each hold a feature makes, until the attempt may go.
      for (let held = run.beforeAttempt(t); held; held = run.beforeAttempt(t)) await held;
      if (run.edits()) {
        const kind: AttemptKind = t.resuming ? 'resume' : run.attempts > 0 ? 'retry' : 'first';
        const editing = editAttempt(run, t, kind);
        if (editing) await editing;
      }
      const hedging = run.options.hedge;
      const answer = hedging && !t.sendOnce?.() ? await hedging.race(run, t, t) : await t.send();
      let decision: Decision;
      try {
        const status = t.status(answer);
        let pending: Decision | Promise<Decision> | undefined =
          status === undefined ? undefined : run.settle(status);
        if (pending === undefined) {
          const result = t.result(answer);
          pending = run.next(result instanceof Promise ? await result : result);
        }
        decision = pending instanceof Promise ? await pending : pending;
      } catch (hookError) {
        // A hook of the caller's failed: the request fails with its error, and the answer is dropped.
        void t.discard(answer, 0);
        throw hookError;
      }
      if (!decision.retry) {
        const delivered = t.deliver(answer);
        return delivered instanceof Promise ? await delivered : delivered;
      }
      const discarded = t.discard(answer, run.options.discardBodyMaxBytes);
      if (discarded) await discarded;
      await run.wait(decision.delayMs, t.signal());
    }
  } catch (error) {
    // Whatever ends the request ends the run with it: a hook's error has finished it already; a
    // request the client refuses before any attempt (an invalid header) is the caller's error.
    if (!run.summary) await quietly(run.finish('error-not-retryable', undefined, error, false));
    t.tag(error);
    throw error;
  } finally {
    t.close?.();
  }
};
