/**
 * One attempt sent as hedged copies (the core's `hedge` option): each time the run's hedge delay
 * passes with no response head, another copy is dispatched (when the run's hedge budget allows),
 * up to the policy's copies. The first copy whose head carries a status that settles the attempt
 * (`Hedging.settles`) wins and becomes the request's current attempt; the copies still waiting are
 * aborted, and those already answering are drained within `discardBodyMaxBytes` (to keep their
 * connections). A copy's retried failure (a 503, a reset) is dropped while another copy is out.
 */
import { AttemptTimeoutError, type Hedging } from '@jitterbug/core';
import type { RetryRun } from '@jitterbug/core/adapter';
import { AttemptEvents } from './attempt-events.ts';
import type { RetryingRequest } from './retrying-request.ts';
import type { Controller, DispatchOpts, HeaderRecord } from './types.ts';

/** Why a copy is aborted when another one answered. */
const lost = (): Error => new Error('jitterbug: another copy of this hedged request answered first');

/** Why a drained copy's connection was closed. */
const tooLong = (bytes: number): Error =>
  new Error(`jitterbug: dropped the answer of a hedged copy after ${bytes} body bytes`);

/**
 * `out`: sent, no head yet; `draining`: its answer is not wanted and is read and dropped; `over`:
 * nothing more is wanted of it; `won`: the request's current attempt (events go the usual way).
 */
type Phase = 'out' | 'draining' | 'over' | 'won';

// Module-level callbacks: no closure per copy.
const onHedgeDue = (group: HedgedAttempt): void => group.hedgeDue();
const onCopyTimeout = (copy: HedgeCopy): void => copy.timedOut();

/** The handler of one copy. */
class HedgeCopy extends AttemptEvents {
  declare readonly group: HedgedAttempt;
  /** 1-based. */
  declare readonly copy: number;
  /** When it was dispatched (`performance.now()`), for its time to headers. */
  declare readonly sentAt: number;
  declare controller: Controller | null;
  declare phase: Phase;
  declare private drained: number;
  declare timer: ReturnType<typeof setTimeout> | undefined;

  constructor(group: HedgedAttempt, request: RetryingRequest, copy: number) {
    super();
    this.request = request;
    this.abandonedBy = undefined;
    this.group = group;
    this.copy = copy;
    this.sentAt = performance.now();
    this.controller = null;
    this.phase = 'out';
    this.drained = 0;
    this.timer = undefined;
  }

  /** Nothing more is wanted of this copy: abort it (at once, or as soon as undici starts it). */
  drop(reason: Error): void {
    this.phase = 'over';
    this.stopTimer();
    this.abandon(reason);
    if (this.controller && !this.controller.aborted) this.controller.abort(reason);
  }

  stopTimer(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  /** `attemptTimeoutMs` ran out before this copy's head: a failure of this copy. */
  timedOut(): void {
    this.timer = undefined;
    if (this.phase !== 'out' && this.phase !== 'draining') return;
    const error = new AttemptTimeoutError(this.group.run.options.attemptTimeoutMs ?? 0);
    const wasOut = this.phase === 'out';
    this.drop(error);
    if (wasOut) this.group.failed(this, error);
  }

  override onRequestStart(controller: Controller, context: unknown): void {
    this.controller = controller;
    if (this.abandonedBy) controller.abort(this.abandonedBy);
    else if (this.phase === 'won') this.request.requestStart(controller, context);
    else this.group.started(controller, context);
  }

  override onResponseStart(
    controller: Controller,
    statusCode: number,
    headers: HeaderRecord,
    statusMessage?: string,
  ): void {
    if (this.phase === 'won') super.onResponseStart(controller, statusCode, headers, statusMessage);
    else if (this.phase === 'out' && statusCode >= 200)
      this.group.answered(this, controller, statusCode, headers, statusMessage);
  }

  override onResponseData(controller: Controller, chunk: Buffer): void {
    if (this.phase === 'won') super.onResponseData(controller, chunk);
    else if (this.phase === 'draining') this.drain(chunk.length);
  }

  override onResponseEnd(controller: Controller, trailers: HeaderRecord): void {
    if (this.phase === 'won') super.onResponseEnd(controller, trailers);
    else if (this.phase === 'draining') {
      // Drained in full: its connection goes back to the pool.
      this.phase = 'over';
      this.stopTimer();
    }
  }

  override onResponseError(controller: Controller | null, error: Error): void {
    if (this.phase === 'won') super.onResponseError(controller, error);
    else if (this.phase === 'out') {
      this.phase = 'over';
      this.stopTimer();
      this.group.failed(this, error);
    } else {
      this.phase = 'over';
      this.stopTimer();
    }
  }

  // The caller sent one request as far as it knows: the first copy's progress is what it sees.
  override onRequestSent(): void {
    if (this.phase === 'won' || this.copy === 1) this.request.caller.onRequestSent?.();
  }

  override onBodySent(chunk: Buffer): void {
    if (this.phase === 'won' || this.copy === 1) this.request.caller.onBodySent?.(chunk);
  }

  /** Starts dropping this copy's answer: read within the limit, then its connection is closed. */
  discard(declared: number): void {
    this.phase = 'draining';
    if (declared > this.group.run.options.discardBodyMaxBytes) this.drop(tooLong(0));
  }

  private drain(bytes: number): void {
    this.drained += bytes;
    if (this.drained > this.group.run.options.discardBodyMaxBytes) this.drop(tooLong(this.drained));
  }
}

/** The copies of one attempt, until one of them wins. */
export class HedgedAttempt {
  declare readonly run: RetryRun;
  declare private readonly hedging: Hedging;
  declare private readonly request: RetryingRequest;
  declare private readonly opts: DispatchOpts;
  declare private readonly copies: HedgeCopy[];
  /** Copies with neither a head nor a failure yet. */
  declare private pending: number;
  /** Whether a copy may have been processed: it answered, or failed in a way that proves nothing. */
  declare private processed: boolean;
  declare private open: boolean;
  declare private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(request: RetryingRequest, run: RetryRun, hedging: Hedging, opts: DispatchOpts) {
    this.request = request;
    this.run = run;
    this.hedging = hedging;
    this.opts = opts;
    this.copies = [];
    this.pending = 0;
    this.processed = false;
    this.open = true;
    this.timer = undefined;
  }

  /** Dispatches the first copy (hedges follow after `delayMs`); returns what undici's dispatch did. */
  start(delayMs: number): boolean {
    return this.launch(delayMs);
  }

  private launch(delayMs: number | undefined): boolean {
    const copy = new HedgeCopy(this, this.request, this.copies.length + 1);
    this.copies.push(copy);
    this.pending++;
    if (delayMs !== undefined) this.timer = setTimeout(onHedgeDue, delayMs, this);
    const timeoutMs = this.run.options.attemptTimeoutMs;
    if (timeoutMs !== undefined) copy.timer = setTimeout(onCopyTimeout, timeoutMs, copy);
    return this.request.send(this.opts, copy);
  }

  /** The hedge delay passed with no head: another copy, if the run's hedge budget allows one. */
  hedgeDue(): void {
    this.timer = undefined;
    const next = this.copies.length + 1;
    if (this.open && this.hedging.start(this.run, next)) this.launch(this.hedging.delayFor(this.run, next));
  }

  /** A copy started: the caller gets its `onRequestStart` with the first one. */
  started(controller: Controller, context: unknown): void {
    if (this.open) this.request.copyStarted(controller, context);
    else controller.abort(lost());
  }

  /** A copy's head arrived: it wins if its status settles the attempt or no other copy is out. */
  answered(
    copy: HedgeCopy,
    controller: Controller,
    statusCode: number,
    headers: HeaderRecord,
    statusMessage?: string,
  ): void {
    this.pending--;
    if (this.pending === 0 || this.hedging.settles(this.run, { status: statusCode })) {
      // The request's time to its first answer (from the first copy), not the winner's own: a window
      // of winners' times never sees the slow mode, and its percentile hedges more than it says.
      this.win(copy, performance.now() - this.copies[0]!.sentAt);
      this.request.hedgeWon(copy, controller, copy.sentAt);
      this.request.responseStart(controller, statusCode, headers, statusMessage);
      return;
    }
    // Retried (a 503 with another copy out): dropped, drained to keep its connection (its timer
    // still bounds the drain).
    this.processed = true;
    copy.discard(this.run.method === 'HEAD' ? 0 : Number(headers['content-length']));
  }

  /** A copy failed before its head: the attempt fails with it only if nothing else can answer. */
  failed(copy: HedgeCopy, error: Error): void {
    this.pending--;
    if (!this.open) return;
    if (!this.request.provesUnprocessed(copy.controller !== null, error)) this.processed = true;
    if (this.pending === 0 || this.request.callerAborted() || this.hedging.settles(this.run, { error })) {
      // Unprocessed only if every copy was: none is left out that the server may have taken on.
      const unprocessed = this.pending === 0 && !this.processed;
      this.win(copy, undefined);
      this.request.hedgeWon(copy, copy.controller, copy.sentAt);
      this.request.responseError(error, unprocessed);
    }
  }

  /** The caller aborted: every copy goes. Whether any had started (the attempt then counts). */
  cancel(reason: Error): boolean {
    this.close();
    let started = false;
    for (const copy of this.copies) {
      if (copy.controller) started = true;
      if (copy.phase !== 'over') copy.drop(reason);
    }
    return started;
  }

  private close(): void {
    this.open = false;
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  /** `copy` answers the attempt: the others still out are aborted; those answering drain on. */
  private win(copy: HedgeCopy, latencyMs: number | undefined): void {
    this.close();
    for (const other of this.copies) if (other !== copy && other.phase === 'out') other.drop(lost());
    copy.phase = 'won';
    copy.stopTimer();
    this.hedging.answered(this.run, copy.copy, latencyMs);
  }
}
