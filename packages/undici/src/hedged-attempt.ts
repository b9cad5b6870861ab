/**
 * One attempt sent as hedged copies (the core's `hedge` option): the sequence's `race`. Hedging wraps
 * the send in the core (`HedgedSend`), whose race rules say when another copy goes (`due`, after the
 * hedge delay with no answer), which answer wins (`won`) and which is dropped (`drop`); the promise
 * driver sends the same steps with `sendCopies`. This file turns them into undici's dispatches and
 * callbacks: each copy's head or failure is told as its answer (a failure's problem body read first,
 * as an attempt's is: its type decides too), the winning copy becomes the request's current
 * attempt, the copies still waiting are aborted, and those already answering drained within
 * `discardBodyMaxBytes` (to keep their connections).
 */
import type { AttemptTimeoutError } from '@jitterbug/core';
import { lost } from '@jitterbug/core/adapter';
import { Attempt, type AttemptOwner } from './attempt.ts';
import { Drain, type DrainOwner } from './drain.ts';
import type { HeldFor } from './held-body.ts';
import { ProblemBody, readsProblem } from './problem-body.ts';
import { type Failure, failedAttempt, provesUnprocessed } from './signals.ts';
import type { BodySink, Controller, Head, HeaderRecord } from './types.ts';
import { isUndiciRetryController, SENT_AGAIN } from './undici-retry.ts';

/**
 * `out`: sent, no answer yet; `answered`: its answer is told, not yet won or dropped; `draining`: its
 * answer is not wanted and is read and dropped; `over`: nothing more is wanted of it; `won`: the
 * request's current attempt (events go the usual way).
 */
type Phase = 'out' | 'answered' | 'draining' | 'over' | 'won';

// A module-level callback: no closure per hedged attempt.
const onHedgeDue = (attempt: HedgedAttempt): void => attempt.hedgeDue();

/** The handler of one copy. */
class HedgeCopy extends Attempt implements DrainOwner, HeldFor {
  declare private readonly attempt: HedgedAttempt;
  /** Its number in the race, from 1. */
  declare readonly copy: number;
  declare phase: Phase;
  /** Its answer, once told. */
  declare answer: Head | Failure | undefined;
  /** Its answer's body, while it is dropped, or (a failure's problem body) held before the answer is told. */
  declare private body: Drain | ProblemBody | undefined;

  constructor(attempt: HedgedAttempt, request: AttemptOwner, copy: number) {
    super(request);
    this.attempt = attempt;
    this.copy = copy;
    this.phase = 'out';
    this.answer = undefined;
    this.body = undefined;
    // Its own `attemptTimeoutMs`, which goes on bounding the attempt (and its drain) when it wins.
    this.time(request.run.options.attemptTimeoutMs);
  }

  /** Where its body goes: the request's, once it won; its drain; else its problem body, while held. */
  get sink(): BodySink | undefined {
    if (this.phase === 'won') return this.request.sink;
    return this.phase === 'draining' || this.phase === 'answered' ? this.body : undefined;
  }

  /** Nothing more is wanted of this copy: abort it (at once, or as soon as undici starts it). */
  drop(reason: Error): void {
    this.phase = 'over';
    this.abandon(reason);
  }

  /** `attemptTimeoutMs` ran out: a failure of this copy before its head, or of the attempt it won. */
  protected override timedOut(error: AttemptTimeoutError): void {
    if (this.phase === 'won') super.timedOut(error);
    else if (this.phase === 'draining') this.drop(error);
    else if (this.phase === 'out') {
      const unprocessed = this.controller === null;
      this.drop(error);
      this.failed(error, unprocessed);
    }
  }

  /** It failed before its head: told as its answer (the caller's abort, when they aborted). */
  failed(error: Error, unprocessed: boolean): void {
    this.answer = failedAttempt(error, unprocessed, this.request.outer.aborted);
    this.told(undefined);
  }

  /** Its answer (`status`, or `undefined`: it failed) is told to the race. */
  private told(status: number | undefined): void {
    const request = this.request;
    this.phase = 'answered';
    request.raceEvent(() => request.run.answered(this.copy, status));
  }

  override onRequestStart(controller: Controller, context: unknown): void {
    if (this.phase !== 'out' || this.abandonedBy) {
      super.onRequestStart(controller, context);
      return;
    }
    this.controller = controller;
    if (isUndiciRetryController(controller) && this.startedBelowRetry(controller)) return;
    this.attempt.started(controller, context);
  }

  override onResponseStart(
    controller: Controller,
    statusCode: number,
    headers: HeaderRecord,
    statusMessage?: string,
  ): void {
    if (this.phase === 'won') {
      super.onResponseStart(controller, statusCode, headers, statusMessage);
      return;
    }
    if (this.phase !== 'out' || statusCode < 200) return;
    this.answer = this.request.head(controller, statusCode, headers, statusMessage);
    const { options } = this.request.run;
    // A failure's problem body is read before its answer is told, for its type (`problem-body.ts`);
    // the race is settled on the status alone, and the winner's type goes into the decision.
    if (readsProblem(options, this.request.resuming, statusCode, headers)) {
      this.phase = 'answered';
      this.body = new ProblemBody(this, controller, options.discardBodyMaxBytes, (problemType) =>
        this.problemRead(problemType),
      );
      return;
    }
    this.told(statusCode);
  }

  /** Its problem body is read (`problemType`: its type, if it gave one): its answer is told. */
  private problemRead(problemType: string | undefined): void {
    const answer = this.answer;
    if (this.phase !== 'answered' || answer === undefined || 'error' in answer || 'problemType' in answer)
      return;
    this.answer = { ...answer, problemType };
    this.told(answer.statusCode);
  }

  override onResponseData(controller: Controller, chunk: Buffer): void {
    if (this.phase === 'won') super.onResponseData(controller, chunk);
    else this.sink?.data(chunk);
  }

  override onResponseEnd(controller: Controller, trailers: HeaderRecord): void {
    if (this.phase === 'won') super.onResponseEnd(controller, trailers);
    else this.sink?.end(controller, trailers);
  }

  override onResponseError(controller: Controller | null, error: Error): void {
    if (error === SENT_AGAIN) return;
    if (this.phase === 'won') {
      super.onResponseError(controller, error);
      return;
    }
    const wasOut = this.phase === 'out';
    this.untime();
    // A problem body being read holds the failure for where the answer goes.
    if (this.phase === 'answered' && this.body !== undefined) {
      this.body.error(error);
      return;
    }
    this.phase = 'over';
    if (wasOut) this.failed(error, provesUnprocessed(this.controller !== null, this.request.sending, error));
  }

  // The caller sent one request as far as it knows: the first copy's progress is what it sees.
  override onRequestSent(): void {
    if (this.phase === 'won' || this.copy === 1) this.request.caller.onRequestSent?.();
  }

  override onBodySent(chunk: Buffer): void {
    if (this.phase === 'won' || this.copy === 1) this.request.caller.onBodySent?.(chunk);
  }

  /** Drops this copy's answer: a body is read within `maxBytes`, then its connection is closed. */
  discard(maxBytes: number): void {
    const answer = this.answer;
    this.answer = undefined;
    if (answer === undefined || 'error' in answer) {
      this.phase = 'over';
      return;
    }
    this.phase = 'draining';
    const drain = new Drain(this, maxBytes, 'dropped the answer of a hedged copy');
    this.body = drain;
    drain.start(this.request.run.method, answer.headers);
  }

  /** Its answer is gone: drained in full (its connection goes back to the pool), or closed past the limit. */
  drained(closeWith: Error | undefined): void {
    this.body = undefined;
    if (closeWith) {
      this.drop(closeWith);
    } else {
      this.phase = 'over';
      this.untime();
    }
  }
}

/** The copies of one attempt, as the sequence's race sends them, until one of them wins. */
export class HedgedAttempt {
  declare private readonly request: AttemptOwner;
  /** Its copies, by number from 1 (the race numbers them as it sends them). */
  declare private readonly copies: HedgeCopy[];
  declare private timer: ReturnType<typeof setTimeout> | undefined;
  /** A copy won, or the request ended: every later answer is dropped. */
  declare private over: boolean;

  constructor(request: AttemptOwner) {
    this.request = request;
    this.copies = [];
    this.timer = undefined;
    this.over = false;
  }

  /**
   * `race`, or a copy's `send`: dispatches copy `copy`, after `pending` (its edits) when that is
   * set, whose rejection is told as the send's failure; `due()` follows after `hedgeMs`.
   */
  launch(copy: number, pending: PromiseLike<unknown> | undefined, hedgeMs: number | undefined): boolean {
    const request = this.request;
    const sent = new HedgeCopy(this, request, copy);
    this.copies[copy - 1] = sent;
    if (hedgeMs !== undefined) this.timer = setTimeout(onHedgeDue, hedgeMs, this);
    if (pending === undefined) return request.dispatch(sent);
    pending.then(
      () => {
        if (!this.over) request.dispatch(sent);
      },
      (error: unknown) => {
        sent.phase = 'over';
        request.raceEvent(() => request.run.failed(error));
      },
    );
    return true;
  }

  /** The hedge delay passed with no answer. */
  hedgeDue(): void {
    this.timer = undefined;
    const request = this.request;
    if (!this.over) request.raceEvent(() => request.run.due());
  }

  /** A copy's answer, for `result`. */
  answerOf(copy: number): HedgeCopy['answer'] {
    return this.copies[copy - 1]?.answer;
  }

  /** A copy started: the caller gets its `onRequestStart` with the first one. */
  started(controller: Controller, context: unknown): void {
    if (this.over) controller.abort(lost());
    else this.request.startCaller(context, controller);
  }

  /** `drop`: copy `copy`'s answer is not wanted: drained within `maxBytes`. */
  drop(copy: number, maxBytes: number): void {
    this.copies[copy - 1]?.discard(maxBytes);
  }

  /**
   * `won`: copy `copy` answers the attempt, and is returned: the others still out are aborted, those
   * answering drained within `maxBytes`, as the sequence hears of none of them again.
   */
  won(copy: number, maxBytes: number): HedgeCopy {
    this.close();
    const winner = this.copies[copy - 1]!;
    for (const other of this.copies) {
      if (other === winner) continue;
      if (other.phase === 'out') other.drop(lost());
      else if (other.phase === 'answered') other.discard(maxBytes);
    }
    winner.phase = 'won';
    return winner;
  }

  /**
   * The caller aborted: the copies that started are aborted, and the first of them to report its
   * failure answers the attempt (it counts); the others go unheard. `false` when none had started (or
   * the caller aborted from its onRequestStart, called as the first copy starts: nothing was
   * written): every copy goes, and the attempt does not count.
   */
  cancel(reason: Error, starting: boolean): boolean {
    let started = false;
    for (const copy of this.copies) {
      if (copy.phase !== 'out') continue;
      if (copy.controller && !starting) {
        started = true;
        copy.abandon(reason);
      } else {
        copy.drop(reason);
      }
    }
    if (!started) this.end(reason);
    else this.close();
    return started;
  }

  /** The request ended (it failed, or the caller gave up): every copy goes. */
  end(reason: Error): void {
    this.close();
    for (const copy of this.copies) if (copy.phase === 'out' || copy.phase === 'answered') copy.drop(reason);
  }

  /** Nothing more is sent. */
  private close(): void {
    this.over = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
