/**
 * One request under retries: the steps of the core's attempt loop (`runAttempts`, in
 * `@jitterbug/core/adapter`), in its order and with its names, as a state machine of undici's
 * callbacks, which cannot await:
 *
 * 1. check the caller: an attempt the caller gave up on before it was sent is not counted;
 * 2. take the attempt's turn (`beforeAttempt`): a feature may hold it; then what it carries
 *    (`editAttempt`: the attempt headers, a generated idempotency key, `beforeRetry`'s changes);
 * 3. send (`outgoing-request.ts`): one dispatch (`attempt.ts`), or hedged copies
 *    (`hedged-attempt.ts`);
 * 4. let the run decide, on the response's head (`responseStart`) or the failure (`decideOnError`);
 * 5. hand over (`decided`): the body streams straight to the caller (`caller-side.ts`); or
 * 6. discard (`drain.ts`) and wait, then step 1 again.
 *
 * The caller sees one request: one `onRequestStart`, at most one final `onResponseStart`, then data
 * and one end or error. A delivered body that breaks is the resume handler's (`resume-handler.ts`).
 */
import type { AsyncResource } from 'node:async_hooks';
import type { Duplex } from 'node:stream';
import type { AttemptTimeoutError } from '@jitterbug/core';
import {
  type AttemptKind,
  beforeAttempt,
  type Decision,
  decideOn,
  editAttempt,
  finishRun,
  type RetryRun,
  type StopDecision,
  settleOn,
  waitBetween,
} from '@jitterbug/core/adapter';
import { Attempt } from './attempt.ts';
import type { AttemptOwner, HedgeOwner } from './attempt-owner.ts';
import type { BodyReader } from './body.ts';
import { callerScope, decideInScope, inScope } from './caller-scope.ts';
import { CallerSide, type CallerSideOwner, type RequestSettings } from './caller-side.ts';
import { Drain, type DrainOwner } from './drain.ts';
import { type HedgedAttempt, sendHedged } from './hedged-attempt.ts';
import { HeldBody, type HeldFor } from './held-body.ts';
import { OutgoingRequest } from './outgoing-request.ts';
import { ProblemBody, readsProblem } from './problem-body.ts';
import { responseHeaderGetter } from './request-info.ts';
import { failedAttempt, provesUnprocessed } from './signals.ts';
import type { BodySink, Controller, DispatchOpts, HeaderRecord, NewHandler } from './types.ts';
import type { Downstream } from './undici-retry.ts';

type State =
  | 'preparing' // reading a stream body before the first attempt
  | 'attempt' // step 3: an attempt is in flight, no response yet
  | 'deciding' // step 4: a hook of the caller's is deciding a response (its body is held)
  | 'discard' // step 6: draining a response that will be retried
  | 'wait' // step 6 (or 2): backing off, or held by a feature
  | 'delivered' // step 5: the caller has the response
  | 'done';

/**
 * What a request for the rest of a body checks of its answers (`rest-request.ts`): a request is one
 * by having it, not by a class of its own.
 */
export interface RestAnswers {
  /** Reports a response's head to the run, checked first (a 2xx that does not continue the body fails). */
  report(run: RetryRun, status: number, headers: HeaderRecord): Decision | Promise<Decision>;
  /** Why the last answer cannot continue the body (the request fails with it once it is drained). */
  refusal(): Error | undefined;
}

/**
 * The state machine of one request; each attempt is an {@link Attempt} whose events reach it while
 * that attempt is its current one. Its fields, and its base's, are assigned in the constructor in
 * one order, not `#private` with initialisers: with a real client's cold caches those cost about
 * 0.6 µs more per request (`bench/NOTES.md`). `tagHeaders`: `false` for a legacy caller, handed raw
 * headers instead of the headers object a summary goes on; `scope`: the caller's context, when
 * captured already; `rest`: set for a request for the rest of a body.
 */
export class RetryingRequest
  extends OutgoingRequest
  implements AttemptOwner, HedgeOwner, CallerSideOwner, DrainOwner, HeldFor
{
  /** The caller's handler, in the current API (the resume handler, when `resume` is on). */
  declare readonly caller: NewHandler;
  declare readonly run: RetryRun;
  /** What the caller sees, and the controller it holds. */
  declare readonly outer: CallerSide;
  /** Where the current answer's body goes: the caller, a drain, or a hold while a hook decides. */
  declare sink: BodySink | undefined;
  /** The copies of the attempt in flight, while it is hedged and none has won. */
  declare hedge: HedgedAttempt | undefined;
  declare private readonly scope: AsyncResource | undefined;
  declare private state: State;
  /** What a request for the rest of a body checks of its answers. */
  declare private readonly rest: RestAnswers | undefined;
  declare private callerAbort: Error | undefined;
  /** Ends the read-ahead of the body, a hold or the backoff wait, whichever is in progress. */
  declare private pendingAbort: AbortController | undefined;
  /** What follows a discarded answer: the wait before the next attempt, or the error the request fails with. */
  declare private next: number | Error;

  constructor(
    downstream: Downstream,
    caller: NewHandler,
    run: RetryRun,
    settings: RequestSettings,
    tagHeaders: boolean,
    scope?: AsyncResource,
    rest?: RestAnswers,
  ) {
    super();
    this.caller = caller;
    this.run = run;
    this.outer = new CallerSide(this, caller, settings, tagHeaders);
    this.current = undefined;
    this.sink = undefined;
    this.hedge = undefined;
    this.opts = undefined;
    this.sending = false;
    this.downstream = downstream;
    this.scope = scope ?? callerScope(run);
    this.state = 'preparing';
    this.rest = rest;
    this.callerAbort = undefined;
    this.pendingAbort = undefined;
    this.next = 0;
    this.url = undefined;
  }

  /** Starts with these options (every attempt sends them); after `waitFirstMs` when a retry was decided already. */
  start(opts: DispatchOpts, waitFirstMs?: number): boolean {
    this.opts = opts;
    if (waitFirstMs === undefined) return this.attempt();
    this.wait(waitFirstMs);
    return true;
  }

  /**
   * Reads the body ahead (`read`), then starts. The caller gets its controller first: undici hands a
   * caller's abort only to that controller, and a stalled source must not hold the caller.
   */
  prepare(read: BodyReader): boolean {
    this.pendingAbort = new AbortController();
    this.startCaller(undefined);
    read(this.pendingAbort.signal).then(
      (ready) => this.start(ready),
      // Nothing was sent: the run ends with this error (the core's rule), or with the caller's abort.
      (error: unknown) =>
        this.callerAbort ? this.abortRun(this.callerAbort) : this.decideOnError(error as Error),
    );
    return true;
  }

  private attempt(): boolean {
    // 1. An attempt the caller gave up on before it was sent is not counted.
    if (this.callerAbort) {
      this.abortRun(this.callerAbort);
      return true;
    }
    // 2. The attempt's turn: a feature may hold it (the pacer), and is asked again after.
    const held = beforeAttempt(this.run, this);
    if (held) {
      this.state = 'wait';
      this.startCaller(undefined);
      this.after(held);
      return true;
    }
    // What this attempt carries (the attempt headers, a generated key, beforeRetry's changes).
    const editing = this.run.edits() ? editAttempt(this.run, this, this.kind()) : undefined;
    if (editing) {
      this.state = 'wait';
      this.startCaller(undefined);
      editing.then(
        () => (this.state === 'wait' ? inScope(this.scope, () => this.send()) : undefined),
        (hookError: unknown) => this.fail(hookError as Error),
      );
      return true;
    }
    return this.send();
  }

  /** 3. Send the attempt (hedged copies, when hedging is on), unless the caller gave up. */
  private send(): boolean {
    if (this.callerAbort) {
      this.abortRun(this.callerAbort);
      return true;
    }
    this.state = 'attempt';
    const hedging = this.run.options.feature.hedge;
    if (hedging) return sendHedged(this, hedging);
    return this.sendAttempt(new Attempt(this));
  }

  /** What the attempt about to be sent is (a request for the rest is a resume). */
  private kind(): AttemptKind {
    return this.rest ? 'resume' : this.run.attempts > 0 ? 'retry' : 'first';
  }

  /** The signal a feature's hold listens to (asked for by the run only when an attempt is held). */
  signal(): AbortSignal {
    this.pendingAbort = new AbortController();
    return this.pendingAbort.signal;
  }

  /** After a hold or a wait (which the caller's abort ends: `pendingAbort`), the next attempt. */
  private after(waited: Promise<void>): void {
    waited.then(
      () => (this.state === 'wait' ? inScope(this.scope, () => this.attempt()) : undefined),
      (reason: unknown) => this.fail(reason as Error),
    );
  }

  /** The caller's `onRequestStart`, once: as an attempt (or a hedged copy) starts, with undici's `context`. */
  startCaller(context: unknown, controller?: Controller): void {
    if (controller && this.callerAbort) controller.abort(this.callerAbort);
    else this.outer.start(context);
  }

  /** The current attempt ran past `attemptTimeoutMs`. */
  attemptTimedOut(error: AttemptTimeoutError): void {
    if (this.state === 'attempt') {
      // Not started yet (still connecting, or queued): undici aborts it as it starts it, unwritten.
      const unprocessed = this.inner === null;
      this.release(error);
      this.decideOnError(error, unprocessed);
    } else if (this.state === 'discard') {
      this.release(error);
      this.waitNext();
    }
  }

  /** The current attempt and its body are over: aborted with `reason` (its connection closed), or done. */
  private release(reason?: Error): void {
    const attempt = this.current;
    this.current = undefined;
    this.sink = undefined;
    if (reason) attempt?.abandon(reason);
    else attempt?.untime();
  }

  requestUpgrade(controller: Controller, statusCode: number, headers: HeaderRecord, socket: Duplex): void {
    this.current?.untime();
    this.state = 'done';
    this.outer.upgrade(controller, statusCode, headers, socket);
  }

  /** 4. A final response's head: the run decides; a hook's promise holds the body until it settles. */
  responseStart(
    controller: Controller,
    statusCode: number,
    headers: HeaderRecord,
    statusMessage?: string,
  ): void {
    const run = this.run;
    const maxBytes = run.options.discardBodyMaxBytes;
    // A failure's problem body is read first: its type decides too (`problem-body.ts`).
    if (run.options.retry && readsProblem(statusCode, headers, maxBytes)) {
      this.current?.untime();
      this.state = 'deciding';
      this.sink = new ProblemBody(this, controller, maxBytes, (problemType) =>
        this.decideHead(controller, statusCode, headers, statusMessage, problemType),
      );
      return;
    }
    this.decideHead(controller, statusCode, headers, statusMessage, undefined);
  }

  /** 4. The run decides on a response's head (and its problem type, when its body was read for it). */
  private decideHead(
    controller: Controller,
    statusCode: number,
    headers: HeaderRecord,
    statusMessage: string | undefined,
    problemType: string | undefined,
  ): void {
    const run = this.run;
    let pending: Decision | Promise<Decision>;
    try {
      // A first answer that settles the request by itself (a success) with no onFinish to tell is
      // decided where undici delivers it: the success path switches no context.
      const settled =
        run.attempts === 0 && run.options.onFinish === undefined ? settleOn(run, statusCode) : undefined;
      pending = settled ?? inScope(this.scope, () => this.report(statusCode, headers, problemType));
    } catch (hookError) {
      this.responseFailed(hookError as Error, true);
      return;
    }
    if (!(pending instanceof Promise)) {
      this.decided(pending, controller, statusCode, headers, statusMessage);
      return;
    }
    // The attempt is over as far as its timeout goes: its headers came.
    this.current?.untime();
    this.state = 'deciding';
    this.sink = HeldBody.until(
      this,
      controller,
      pending,
      (decision) => this.decided(decision, controller, statusCode, headers, statusMessage),
      (hookError) => this.responseFailed(hookError, true),
    );
  }

  /** Reports a response's head to the run (a request for the rest of a body checks it first). */
  private report(status: number, headers: HeaderRecord, problemType?: string): Decision | Promise<Decision> {
    const run = this.run;
    if (this.rest) return this.rest.report(run, status, headers);
    const getter = responseHeaderGetter(headers);
    return (
      settleOn(run, status) ??
      decideOn(
        run,
        problemType === undefined ? { status, headers: getter } : { status, headers: getter, problemType },
      )
    );
  }

  /** The error the request fails with instead of handing a final answer over, once it is drained. */
  private refusal(decision: StopDecision, status: number, headers: HeaderRecord): Error | undefined {
    if (this.rest) return this.rest.refusal();
    return this.outer.refusal(decision.gaveUp, status, headers, this.run.attempts);
  }

  /** 5 or 6: hands the response over, or drains it (to keep its connection) before what comes next. */
  private decided(
    decision: Decision,
    controller: Controller,
    statusCode: number,
    headers: HeaderRecord,
    statusMessage?: string,
  ): void {
    const next = decision.retry ? decision.delayMs : this.refusal(decision, statusCode, headers);
    if (next === undefined) {
      this.current?.untime();
      this.state = 'delivered';
      this.sink = this.outer;
      this.outer.respond(controller, statusCode, headers, statusMessage, this.run);
      return;
    }
    this.next = next;
    this.state = 'discard';
    const drain = new Drain(this, this.run.options.discardBodyMaxBytes, 'discarded a response to retry');
    this.sink = drain;
    drain.start(this.run.method, headers);
  }

  /** 6. The discarded response is gone: drained in full (or failed), or stopped past the limit. */
  drained(closeWith: Error | undefined): void {
    this.release(closeWith);
    this.waitNext();
  }

  responseEnded(): void {
    this.sink = undefined;
    this.state = 'done';
  }

  /** The response failed with `error` (a hook's, too); `open`: its attempt is aborted, closing its connection. */
  responseFailed(error: Error, open: boolean): void {
    this.release(open ? error : undefined);
    this.fail(error);
  }

  /** The current attempt failed; `unprocessed`: whether that proves the server never had it (a hedge says). */
  responseError(error: Error, unprocessed?: boolean): void {
    const sink = this.sink;
    if (sink) {
      sink.error(error);
      return;
    }
    if (this.state === 'attempt') unprocessed ??= provesUnprocessed(this.inner !== null, this.sending, error);
    this.release();
    this.decideOnError(error, unprocessed === true);
  }

  /** 4. An attempt failed before any response reached the caller: the run decides, in the caller's context. */
  decideOnError(error: Error, unprocessed = false): void {
    const aborted = this.callerAbort !== undefined;
    decideInScope(
      this.scope,
      () => decideOn(this.run, aborted ? { error, aborted } : failedAttempt(error, unprocessed)),
      (decision) => {
        if (this.state === 'done') return;
        if (decision.retry) this.wait(decision.delayMs);
        else this.fail(error);
      },
      (hookError) => this.fail(hookError),
    );
  }

  /** 6. What follows a discarded answer: the wait before the next attempt, or the request's failure. */
  private waitNext(): void {
    const next = this.next;
    if (typeof next === 'number') this.wait(next);
    else this.fail(next);
  }

  /** 6. The wait before the next attempt; the caller's abort ends it. */
  private wait(delayMs: number): void {
    this.state = 'wait';
    // The caller aborts through the controller it got at onRequestStart: give it one before waiting
    // (a first attempt refused before connecting never started the caller).
    this.startCaller(undefined);
    if (this.callerAbort) {
      this.abortRun(this.callerAbort);
      return;
    }
    this.pendingAbort = new AbortController();
    this.after(waitBetween(this.run, delayMs, this.pendingAbort.signal));
  }

  /** The caller aborted (its signal, fetch's termination, a destroyed body, …). */
  abortByCaller(reason: Error): void {
    const state = this.state;
    if (this.callerAbort || state === 'done') return;
    this.callerAbort = reason;
    if (state === 'preparing' || state === 'wait') {
      this.pendingAbort?.abort(reason);
    } else if (state === 'discard' || state === 'deciding') {
      this.release(reason);
      Promise.resolve(finishRun(this.run, 'aborted', undefined, reason, false)).catch(() => undefined);
      queueMicrotask(() => this.fail(reason));
    } else if (this.hedge) {
      this.hedge.cancel(reason);
      this.hedge = undefined;
    } else if (this.inner && !(state === 'attempt' && this.outer.starting)) {
      // undici reports the abort back through the attempt's onResponseError, as without jitterbug.
      this.inner.abort(reason);
    } else {
      // Still connecting, or the caller aborted from its own onRequestStart (a signal aborted before
      // the request): this attempt wrote nothing and is not counted. Detached, it is aborted as soon
      // as undici starts it, and undici's report of that is ignored.
      this.release(reason);
      queueMicrotask(() => this.abortRun(reason));
    }
  }

  /**
   * What is below cannot send the request as composed (undici's RetryAgent, `undici-retry.ts`): it
   * fails with `error`, its attempt aborted before anything was written.
   */
  refuse(error: TypeError): void {
    Promise.resolve(finishRun(this.run, 'error-not-retryable', undefined, error, false)).catch(
      () => undefined,
    );
    const hedge = this.hedge;
    if (hedge) hedge.abandon(error);
    else this.responseFailed(error, true);
  }

  /** The caller aborted while no attempt was in flight: the run ends as aborted with its reason. */
  abortRun(reason: Error): void {
    // The caller's reason is what it gets, even when its onFinish rejects.
    Promise.resolve(finishRun(this.run, 'aborted', undefined, reason, false)).catch(() => undefined);
    this.fail(reason);
  }

  private fail(error: Error): void {
    if (this.state === 'done') return;
    this.state = 'done';
    this.current?.untime();
    this.sink = undefined;
    this.outer.fail(error, this.run.summary);
  }
}
