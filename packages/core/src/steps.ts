/**
 * The attempt sequence's protocol, for whoever writes a driver of it: the steps it asks for and the
 * events a driver tells it (`sequence.ts` keeps the rules, `drive/promise.ts` is the promise driver).
 *
 * A driver and the sequence take turns. The driver tells an event — {@link SequenceEvents} — and is
 * given the next {@link Step} in return; it does that step (the only I/O there is: sending, waiting,
 * handing over), then tells how it went, and so on until `deliver` or `fail`. The sequence never
 * waits: where a hook of the caller's (or the driver's own edit of a request) returns a promise, it
 * hands that promise over as `await` and is told what it settled with, so a driver that cannot
 * await (undici's callbacks) or has no promises at all (a simulation in virtual time) runs the same
 * steps in the same order. A request whose steps need no promise (a success on the first attempt,
 * no hook returning one) is decided without one.
 *
 * One event at a time: a step's outcome is told before the next event (a hedged copy's answer, a
 * hedge timer) is. What a step needs is in the sequence's fields named below, read when it is given.
 */

import type { HeaderGetter } from './retry-after.ts';
import type { EditableRequest, RunView } from './types.ts';

/**
 * What to do next.
 *
 * - `prepare`: the work before the first attempt (a stream body read ahead so that it can be sent
 *   again). Then `done()`, or `failed(error)`.
 * - `hold`: a feature holds the attempt (the pacer: the origin's turn has not come); wait `delayMs`.
 * - `wait`: back off `delayMs` before the next attempt (with `untilOnline`: or until the browser's
 *   `online` event, whichever comes first). For both: the caller's cancellation ends the
 *   wait at once; then `done()`, or `failed(reason)` when the caller's signal aborted (also when a
 *   sleep ignored the signal and ended anyway).
 * - `send`: send the attempt, then tell `answered(copy, status)`; or, with its result at hand as it
 *   ends (a callback driver), `done(result)`, or `failed(error)` when the send failed with no
 *   answer (a dispatch that threw): decided as `answered` then `result` would. In a race (after `race`), it is
 *   copy `copy` (2, 3, …): with `pending` set, send it once `pending` settles (a `beforeRetry` of the
 *   caller's for this copy), or tell `failed(error)` if it rejects; with `hedgeMs` set, tell `due()`
 *   when that long has passed with no copy answered.
 * - `race`: send the attempt as racing copies (hedging wraps the send): copy 1 now, with a cancel of
 *   its own, and `due()` after `hedgeMs` with no copy answered, when the race may send another
 *   (`send`); `answered(copy, status)` for each copy's answer, one at a time.
 * - `result`: the core needs copy `copy`'s answer in its terms: `done(result)` with its
 *   `AttemptResult` (or `failed(error)`).
 * - `await`: `pending` is a promise (a hook's, an edit of the request): `done(value)` with what it
 *   resolved to, or `failed(error)`.
 * - `idle`: nothing until the next event (another copy's answer, `due()`).
 * - `won`: copy `copy` won the race: end the other copies (cancelled, their answers dropped) and the
 *   hedge timer, then `proceed()`.
 * - `drop`: drop copy `copy`'s answer (at most `maxBytes` of its body drained, the rest cancelled or
 *   its connection closed), without waiting for that, then `proceed()`.
 * - `discard`: drop the answer the same way before the wait of a retry, and `done()` once it is gone.
 * - `deliver`: hand copy `copy`'s answer to the caller, with the run's summary (the run is finished).
 * - `fail`: fail the request with `error`, carrying the run's summary if it has one, and end
 *   whatever is still in flight.
 */
export type Step =
  | 'prepare'
  | 'hold'
  | 'wait'
  | 'send'
  | 'race'
  | 'result'
  | 'await'
  | 'idle'
  | 'won'
  | 'drop'
  | 'discard'
  | 'deliver'
  | 'fail';

/** How an attempt ended, in the core's terms (what `result` asks for). */
export type AttemptResult =
  | {
      /** A response arrived, with this status. */
      readonly status: number;
      /** Reads its headers. */
      readonly headers?: HeaderGetter;
      /** The client's response object, shown to `shouldRetry` as `info.response`. */
      readonly response?: unknown;
      /**
       * The `type` of its `application/problem+json` body, when the driver read one
       * (`problemType()`; the RateLimit draft's problem types decide then).
       */
      readonly problemType?: string;
    }
  | {
      /** The attempt failed without a response, with this error. */
      readonly error: unknown;
      /** The error's code as the adapter reads it (default: the code on its `cause` chain). */
      readonly code?: string;
      /** The caller's own signal ended the attempt. */
      readonly aborted?: boolean;
      /**
       * The adapter knows the server never processed the request (an HTTP/2 `REFUSED_STREAM`, a
       * `GOAWAY` whose last stream is below the request's): retried whatever the method.
       */
      readonly unprocessed?: boolean;
      /**
       * The attempt failed on a connection kept alive from an earlier request, before any byte of
       * its answer (Node's `request.reusedSocket`; undici's socket error on a socket that had read
       * before): the keep-alive race, when the server closes an idle connection as the request is
       * written. The server may have had the request or not: it is retried as a reset is, and free
       * of the budget while the policy's servers answer fine.
       */
      readonly staleConnection?: boolean;
    };

/**
 * What the sequence reads of the driver's request, synchronously and without I/O: the caller's
 * cancellation, and the request the next attempts are sent with (its edits: the attempt headers, a
 * generated idempotency key, what `beforeRetry` sets). All optional: a simulation gives none of it.
 */
export interface SequencePort extends Partial<EditableRequest> {
  /** A copy of the headers the next attempt would be sent with (a client whose attempts can be edited). */
  requestHeaders?(): Headers;
  /** The URL the next attempt would be sent to. */
  requestUrl?(): string;
  /** Sends the attempts from now on with this URL and these headers (a promise while that is prepared). */
  edit?(url: string, headers: Headers): void | Promise<void>;
  /** The caller's cancellation once they cancelled (the reason the request then fails with), else `undefined`. */
  cancellation?(): unknown;
  /** Whether this attempt must be sent once, hedging or not (axios' stream mode). */
  sendOnce?(): boolean;
  /** Its attempts ask for the rest of a body that broke (for `beforeRetry`'s `kind`). */
  readonly resuming?: boolean;
  /** The driver's clock for a race's latencies, in ms (default `performance.now`; a simulation's is virtual). */
  clock?(): number;
}

/** The events a driver tells the sequence; each returns the next {@link Step}. */
export interface SequenceEvents {
  /**
   * Begins: with `preparing`, the first step is `prepare`; `waitFirstMs`: a retry was decided
   * already (a broken body to resume), so the sequence begins with that wait.
   */
  start(port: SequencePort | undefined, preparing: boolean, waitFirstMs?: number): Step;
  /** The step asked for is done (`value`: what `result` or `await` asks for). */
  done(value?: unknown): Step;
  /** The step asked for failed with `error` (a rejection, the caller's abort of a wait). */
  failed(error: unknown): Step;
  /** Copy `copy` answered: its status, or `undefined` when it failed without a response. */
  answered(copy: number, status: number | undefined): Step;
  /** The hedge delay passed with no copy answered. */
  due(): Step;
  /** Goes on after `won` or `drop`. */
  proceed(): Step;
  /**
   * The caller gave up while the driver waits on something the sequence asked for (a hook's promise,
   * a wait): the run ends as aborted, and the step is `fail` with `reason`. What the step asked for
   * then settles unheard.
   */
  cancel(reason: unknown): Step;
}

/**
 * The send of one attempt as a feature wraps it (hedging: the attempt's racing copies). While the
 * attempt races, the sequence hands it the send's events, and it hands the winner back
 * ({@link RaceHost.raceWon}); it says which copy each step is about.
 */
export interface RacedSend {
  /** `send`, `result`, `won`, `drop`: which copy. */
  readonly copy: number;
  /** `race`, a copy's `send`: `due()` after this long with no answer (`undefined`: none follows). */
  readonly hedgeMs: number | undefined;
  /** A copy's `send`: what it is sent after (its edits), if anything. */
  readonly pending: PromiseLike<unknown> | undefined;
  /** Sends the first copy: `race` (others may follow), or `send` (one copy, which the race still times). */
  start(): Step;
  /** Copy `copy` answered. */
  answered(copy: number, status: number | undefined): Step;
  /** The result of the copy `result` asked for. */
  done(result: AttemptResult): Step;
  /** The edits of a copy rejected with `error`. */
  failed(error: unknown): Step;
  /** The hedge delay passed with no answer. */
  due(): Step;
  /** Goes on after `won` or `drop`. */
  proceed(): Step;
  /** The request ended: no more copies, and every later answer is dropped. */
  end(): void;
}

/** What a feature's send of copies asks of the sequence. */
export interface RaceHost extends Pick<RunView, 'options' | 'method' | 'headers' | 'body' | 'attempts'> {
  /** The winning copy's `result`: the run decides on it. */
  raceWon(result: AttemptResult): Step;
  /** The edits of a copy about to be sent: `undefined`, or a promise. Throws what a hook throws. */
  raceEdits(): unknown;
  /** The edits of a copy failed with `error`: the request fails with it. */
  raceFailed(error: unknown): Step;
  /** The caller's cancellation, once they cancelled. */
  cancelled(): unknown;
  /** The driver's clock, for a race's latencies (`undefined`: the race's own, `performance.now`). */
  clock(): number | undefined;
}

/** What a driver reads of the sequence for the step it was given; it never writes them. */
export interface StepFields {
  /** `hold`, `wait`: how long, in ms. */
  readonly delayMs: number;
  /** `wait`: it ends at the browser's `online` event too (a failure while offline). */
  readonly untilOnline: boolean;
  /** `send`, `result`, `won`, `drop`, `deliver`: which copy of the attempt (1 unless it races). */
  readonly copy: number;
  /** `race`, a copy's `send`: tell `due()` after this long with no answer (`undefined`: no other copy follows). */
  readonly hedgeMs: number | undefined;
  /** `await`: the promise; `send`: what the copy is sent after, if anything. */
  readonly pending: PromiseLike<unknown> | undefined;
  /** `drop`, `discard`: the most body bytes to drain. */
  readonly maxBytes: number;
  /** `fail`: what the request fails with. */
  readonly error: unknown;
}

/** The sequence as a driver sees it: its events, and what its steps need. */
export interface DrivenSequence extends SequenceEvents, StepFields {
  readonly options: { readonly discardBodyMaxBytes: number };
}

/** How a promise driver's client sends the copies of an attempt (its transport does). */
export interface Copies<A> {
  /** Sends one copy, which `cancel` ends. Never rejects: a failure comes back as an answer. */
  send(cancel?: AbortSignal): Promise<A>;
  /** The answer's status, when it has one (`undefined`: it failed). */
  status(answer: A): number | undefined;
  /** The answer in the core's terms. */
  result(answer: A): AttemptResult | Promise<AttemptResult>;
  /** Drops an answer: at most `maxBytes` of its body drained, the rest cancelled or its connection closed. */
  discard(answer: A, maxBytes: number): void | Promise<void>;
}

/** What sending an attempt's copies ended with: the step after the race, and the winning copy's answer. */
export interface Raced<A> {
  readonly step: Step;
  readonly answer: A | undefined;
  /** Thrown by the sequence during the race (a feature's error): the request's failure. */
  readonly thrown?: { readonly error: unknown };
}
