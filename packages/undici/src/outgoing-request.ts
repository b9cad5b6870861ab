/**
 * How a request's attempts go out: undici's options, as the attempt sequence's edits left them (the
 * attempt headers, a generated idempotency key, `beforeRetry`'s headers and URL), the dispatch that
 * sends each attempt or hedged copy, and the current attempt.
 *
 * The base of {@link RetryingRequest} (its only one), not an object of its own: one object per
 * request on the success path besides its attempt (`bench/NOTES.md`). Its fields are assigned in that
 * class's constructor, in one order with the others.
 */
import type { EditableRequest, RetryRun } from '@jitterbug/core/adapter';
import type { SentAttempt } from './attempt-owner.ts';
import { editedOpts, headersObject } from './request-info.ts';
import type { Controller, DispatchOpts } from './types.ts';
import type { Downstream } from './undici-retry.ts';

export abstract class OutgoingRequest implements EditableRequest {
  declare readonly run: RetryRun;
  /** The options every attempt is dispatched with, once known (after a stream body was read ahead). */
  declare opts: DispatchOpts | undefined;
  /** Inside undici's dispatch call: a failure reported now is the request's, not a connection's. */
  declare sending: boolean;
  /** Where attempts are dispatched (the next dispatch, told to pass on when undici's retry is there). */
  declare downstream: Downstream;
  /** The current attempt (`undefined` between attempts). */
  declare current: SentAttempt | undefined;
  /** Where the attempts go once `beforeRetry` sent them elsewhere (else the run's URL). */
  declare protected url: string | undefined;

  /** Sends `attempt`, now the current one, with its `attemptTimeoutMs` timer. */
  sendAttempt(attempt: SentAttempt): boolean {
    this.current = attempt;
    attempt.time(this.run.options.attemptTimeoutMs);
    return this.dispatch(attempt);
  }

  /** The current attempt's controller, once undici started it (the caller's pause and resume go there). */
  get inner(): Controller | null {
    return this.current?.controller ?? null;
  }

  /** Dispatches one attempt (or hedged copy); a dispatch that throws fails it like any error. */
  dispatch(attempt: SentAttempt): boolean {
    this.sending = true;
    try {
      return this.downstream.send(this.opts!, attempt);
    } catch (error) {
      attempt.onResponseError(null, error as Error);
      return true;
    } finally {
      this.sending = false;
    }
  }

  requestHeaders(): Headers {
    return headersObject(this.opts!.headers);
  }

  requestUrl(): string {
    return this.url ?? this.run.url;
  }

  edit(url: string, headers: Headers): void {
    this.url = url;
    this.opts = editedOpts(this.opts!, url, headers);
  }
}
