/**
 * One attempt sent as hedged copies (the core's `hedge` option), by the core's race rules: its
 * `HedgeRace` says when another copy goes (`due`: the hedge delay passed, the hedge budget has a
 * token), which answer wins and which is dropped (`answer`), and feeds the percentile the request's
 * time to its first answer; the promise racer of the fetch engine and axios drives the same race.
 * This file only turns undici's callbacks into the race's calls: the winning copy becomes the
 * request's current attempt; the copies still waiting are aborted, and those already answering
 * drained within `discardBodyMaxBytes` (to keep their connections).
 */
import type { AttemptTimeoutError, Hedging } from '@jitterbug/core';
import { editAttempt, type HedgeRace, lost } from '@jitterbug/core/adapter';
import { Attempt } from './attempt.ts';
import type { HedgeOwner } from './attempt-owner.ts';
import { Drain, type DrainOwner } from './drain.ts';
import { failedAttempt, provesUnprocessed } from './signals.ts';
import type { Controller, HeaderRecord } from './types.ts';
import { isUndiciRetryController, SENT_AGAIN } from './undici-retry.ts';

/**
 * `out`: sent, no head yet; `draining`: its answer is not wanted and is read and dropped; `over`:
 * nothing more is wanted of it; `won`: the request's current attempt (events go the usual way).
 */
type Phase = 'out' | 'draining' | 'over' | 'won';

// A module-level callback: no closure per hedged attempt.
const onHedgeDue = (attempt: HedgedAttempt): void => attempt.hedgeDue();

/**
 * Sends the request's attempt by `hedging`'s race: as hedged copies when the race has a hedge delay,
 * else once, as an ordinary attempt whose answer the race times (a percentile delay learns from the
 * attempts that were not hedged too, or it would never have the latencies it needs to start).
 */
export const sendHedged = (request: HedgeOwner, hedging: Hedging): boolean => {
  const race = hedging.startRace(request.run);
  race.launch();
  const hedgeMs = race.nextDelay();
  if (hedgeMs === undefined) return request.sendAttempt(new TimedAttempt(request, race));
  const hedged = new HedgedAttempt(request, race);
  request.hedge = hedged;
  return hedged.start(hedgeMs);
};

/** An attempt sent once while `hedge` is on: its race times its answer. */
class TimedAttempt extends Attempt {
  declare private race: HedgeRace | undefined;

  constructor(request: HedgeOwner, race: HedgeRace) {
    super(request);
    this.race = race;
  }

  override onResponseStart(
    controller: Controller,
    statusCode: number,
    headers: HeaderRecord,
    statusMessage?: string,
  ): void {
    const race = this.race;
    if (race && statusCode >= 200 && this.request.current === this) {
      this.race = undefined;
      race.answer(1, { status: statusCode }, false);
    }
    super.onResponseStart(controller, statusCode, headers, statusMessage);
  }
}

/** The handler of one copy. */
class HedgeCopy extends Attempt implements DrainOwner {
  declare private readonly attempt: HedgedAttempt;
  /** Its number in the race, from 1. */
  declare readonly copy: number;
  declare phase: Phase;
  /** Its answer's body, while it is dropped. */
  declare private drain: Drain | undefined;

  constructor(attempt: HedgedAttempt, request: HedgeOwner, copy: number) {
    super(request);
    this.attempt = attempt;
    this.copy = copy;
    this.phase = 'out';
    this.drain = undefined;
    // Its own `attemptTimeoutMs`, which goes on bounding the attempt (and its drain) when it wins.
    this.time(request.run.options.attemptTimeoutMs);
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
      this.drop(error);
      this.attempt.failed(this, error);
    }
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
    if (this.phase === 'won') super.onResponseStart(controller, statusCode, headers, statusMessage);
    else if (this.phase === 'out' && statusCode >= 200)
      this.attempt.answered(this, controller, statusCode, headers, statusMessage);
  }

  override onResponseData(controller: Controller, chunk: Buffer): void {
    if (this.phase === 'won') super.onResponseData(controller, chunk);
    else if (this.phase === 'draining') this.drain?.data(chunk);
  }

  override onResponseEnd(controller: Controller, trailers: HeaderRecord): void {
    if (this.phase === 'won') super.onResponseEnd(controller, trailers);
    else if (this.phase === 'draining') this.drain?.end();
  }

  override onResponseError(controller: Controller | null, error: Error): void {
    if (error === SENT_AGAIN) return;
    if (this.phase === 'won') {
      super.onResponseError(controller, error);
      return;
    }
    const wasOut = this.phase === 'out';
    this.phase = 'over';
    this.untime();
    if (wasOut) this.attempt.failed(this, error);
  }

  // The caller sent one request as far as it knows: the first copy's progress is what it sees.
  override onRequestSent(): void {
    if (this.phase === 'won' || this.copy === 1) this.request.caller.onRequestSent?.();
  }

  override onBodySent(chunk: Buffer): void {
    if (this.phase === 'won' || this.copy === 1) this.request.caller.onBodySent?.(chunk);
  }

  /** Starts dropping this copy's answer: read within the limit, then its connection is closed. */
  discard(headers: HeaderRecord): void {
    this.phase = 'draining';
    const run = this.request.run;
    this.drain = new Drain(this, run.options.discardBodyMaxBytes, 'dropped the answer of a hedged copy');
    this.drain.start(run.method, headers);
  }

  /** Its answer is gone: drained in full (its connection goes back to the pool), or closed past the limit. */
  drained(closeWith: Error | undefined): void {
    this.drain = undefined;
    if (closeWith) {
      this.drop(closeWith);
    } else {
      this.phase = 'over';
      this.untime();
    }
  }
}

/** The copies of one attempt, until one of them wins. */
export class HedgedAttempt {
  declare private readonly request: HedgeOwner;
  declare private readonly race: HedgeRace;
  declare private readonly copies: HedgeCopy[];
  declare private timer: ReturnType<typeof setTimeout> | undefined;

  /** `race`: the attempt's race, its first copy launched. */
  constructor(request: HedgeOwner, race: HedgeRace) {
    this.request = request;
    this.race = race;
    this.copies = [];
    this.timer = undefined;
  }

  /** Dispatches the first copy; returns what undici's dispatch did. */
  start(hedgeMs: number): boolean {
    return this.send(hedgeMs);
  }

  /** Dispatches the copy the race just launched; the next is due after `hedgeMs` with no answer. */
  private send(hedgeMs: number | undefined): boolean {
    const copy = new HedgeCopy(this, this.request, this.race.sent);
    this.copies.push(copy);
    if (hedgeMs !== undefined) this.timer = setTimeout(onHedgeDue, hedgeMs, this);
    return this.request.dispatch(copy);
  }

  /**
   * The hedge delay passed with no answer: another copy, if the race sends one, with what
   * `beforeRetry` sets for it (a rejection fails the request, as for any attempt).
   */
  hedgeDue(): void {
    this.timer = undefined;
    const race = this.race;
    if (!race.due(this.request.outer.aborted)) return;
    race.launch();
    const editing = editAttempt(this.request.run, this.request, 'hedge');
    if (!editing) {
      this.send(race.nextDelay());
      return;
    }
    editing.then(
      () => {
        if (!race.over) this.send(race.nextDelay());
      },
      (hookError: unknown) => this.abandon(hookError as Error),
    );
  }

  /**
   * A `beforeRetry` for a copy failed, or the request is refused (`the request's `refuse``): every
   * copy goes, and the request fails with its error.
   */
  abandon(error: Error): void {
    if (this.race.over) return;
    this.race.over = true;
    this.close();
    for (const copy of this.copies) if (copy.phase !== 'over') copy.drop(error);
    this.request.hedge = undefined;
    this.request.responseFailed(error, false);
  }

  /** A copy started: the caller gets its `onRequestStart` with the first one. */
  started(controller: Controller, context: unknown): void {
    if (this.race.over) controller.abort(lost());
    else this.request.startCaller(context, controller);
  }

  /** A copy's head arrived: the request's response if it wins, else drained (a retried status). */
  answered(
    copy: HedgeCopy,
    controller: Controller,
    statusCode: number,
    headers: HeaderRecord,
    statusMessage?: string,
  ): void {
    if (this.race.answer(copy.copy, { status: statusCode }, this.request.outer.aborted)) {
      this.won(copy);
      this.request.responseStart(controller, statusCode, headers, statusMessage);
    } else {
      // Its timer still bounds the drain.
      copy.discard(headers);
    }
  }

  /** A copy failed before its head: the attempt fails with it if it wins the race, else it is dropped. */
  failed(copy: HedgeCopy, error: Error): void {
    const request = this.request;
    const race = this.race;
    const unprocessed = provesUnprocessed(copy.controller !== null, request.sending, error);
    const result = failedAttempt(error, unprocessed);
    if (!race.answer(copy.copy, result, request.outer.aborted, unprocessed)) return;
    this.won(copy);
    // Unprocessed only if every copy was: none is left out that the server may have taken on.
    request.responseError(error, race.out === 0 && !race.processed);
  }

  /**
   * The caller aborted: every copy goes. The attempt counts if any of them had started (not when the
   * caller aborts from its onRequestStart, called as the first copy starts: nothing was written).
   */
  cancel(reason: Error): void {
    this.close();
    let started = false;
    for (const copy of this.copies) {
      if (copy.controller) started = true;
      if (copy.phase !== 'over') copy.drop(reason);
    }
    const request = this.request;
    if (request.outer.starting) started = false;
    queueMicrotask(() => (started ? request.decideOnError(reason) : request.abortRun(reason)));
  }

  /** Nothing more is sent: a copy won (the race is over), or the caller gave up. */
  private close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** `copy` answers the attempt: the others still out are aborted; those answering drain on. */
  private won(copy: HedgeCopy): void {
    this.close();
    for (const other of this.copies) if (other !== copy && other.phase === 'out') other.drop(lost());
    copy.phase = 'won';
    // The current attempt from now on, with its timer (which still bounds a retried answer's drain).
    this.request.hedge = undefined;
    this.request.current = copy;
  }
}
