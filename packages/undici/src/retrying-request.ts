/**
 * One request under retries: a callback driver of the core's attempt sequence (`RetryRun`, whose
 * protocol is the core's `steps.ts`; `runAttempts` is the promise driver this one mirrors). The
 * sequence says what to do next and is told what happened; this does each step with undici's
 * callbacks, which cannot await:
 *
 * - `send`: one dispatch (`attempt.ts`), or the copies of a `race` (`hedged-attempt.ts`); a head is
 *   told as `answered`, a failure with its result at once;
 * - `result`: the head in the core's terms (a failure's problem body read first, `problem-body.ts`);
 * - `await`: a hook's promise, the answer's body held meanwhile (`held-body.ts`);
 * - `discard`: drain the answer to keep its connection (`drain.ts`); `wait`, `hold`: sleep;
 * - `deliver`: the body streams straight to the caller (`caller-side.ts`); `fail`: its error.
 *
 * The caller sees one request: one `onRequestStart`, at most one final `onResponseStart`, then data
 * and one end or error. A delivered body that breaks is the resume handler's (`resume-handler.ts`).
 */
import type { AsyncResource } from 'node:async_hooks';
import type { Duplex } from 'node:stream';
import type { AttemptTimeoutError, HeaderGetter } from '@jitterbug/core';
import {
  type AttemptResult,
  type EditableRequest,
  finishRun,
  type RetryRun,
  type Step,
} from '@jitterbug/core/adapter';
import { Attempt, type AttemptOwner } from './attempt.ts';
import type { BodyReader } from './body.ts';
import { callerScope, inScope } from './caller-scope.ts';
import { CallerSide, type CallerSideOwner, type RequestSettings } from './caller-side.ts';
import { Drain, type DrainOwner } from './drain.ts';
import { HedgedAttempt } from './hedged-attempt.ts';
import { HeldBody, type HeldFor } from './held-body.ts';
import { ProblemBody, readsProblem } from './problem-body.ts';
import { editedOpts, headersObject, responseHeaderGetter } from './request-info.ts';
import { type Failure, failedAttempt, provesUnprocessed } from './signals.ts';
import type { BodySink, Controller, DispatchOpts, Head, HeaderRecord, NewHandler } from './types.ts';
import type { Downstream } from './undici-retry.ts';

/** A head in the core's terms, with its problem type when its body gave one. */
const headResult = (status: number, headers: HeaderGetter, problemType: string | undefined): AttemptResult =>
  problemType === undefined ? { status, headers } : { status, headers, problemType };

type State =
  | 'preparing' // reading a stream body before the first attempt
  | 'attempt' // an attempt (or a race's copies) in flight, no answer yet
  | 'deciding' // the sequence decides on the answer (its body held while a hook's promise is out)
  | 'discard' // draining an answer that will be retried (or that the request fails after)
  | 'wait' // backing off, held by a feature, or the attempt's edits under way
  | 'delivered' // the caller has the response
  | 'done';

/**
 * What a request for the rest of a body checks of each answer's head (`rest-request.ts`): why it
 * cannot continue the body, if it cannot. A request is one by having it, not by a class of its own.
 */
export type RestCheck = (status: number, headers: HeaderRecord) => Error | undefined;

/**
 * The driver of one request's sequence, and the port the sequence reads it through (its edits, the
 * caller's abort); each attempt is an {@link Attempt} whose events reach it while that attempt is
 * its current one. Its fields are assigned in the constructor in one order, not `#private` with
 * initialisers: with a real client's cold caches those cost about 0.6 µs more per request
 * (`bench/NOTES.md`). `tagHeaders`: `false` for a legacy caller, handed raw headers instead of the
 * headers object a summary goes on; `scope`: the caller's context, when captured already; `rest`:
 * set for a request for the rest of a body.
 */
export class RetryingRequest implements AttemptOwner, CallerSideOwner, DrainOwner, HeldFor, EditableRequest {
  /** The caller's handler, in the current API (the resume handler, when `resume` is on). */
  declare readonly caller: NewHandler;
  declare readonly run: RetryRun;
  /** What the caller sees, and the controller it holds. */
  declare readonly outer: CallerSide;
  /** The options every attempt is dispatched with, once known (after a stream body was read ahead). */
  declare opts: DispatchOpts | undefined;
  /** Inside undici's dispatch call: a failure reported now is the request's, not a connection's. */
  declare sending: boolean;
  /** Where attempts are dispatched (the next dispatch, told to pass on when undici's retry is there). */
  declare readonly downstream: Downstream;
  /** The current attempt (`undefined` between attempts, and while copies race). */
  declare current: Attempt | undefined;
  /** Where the current answer's body goes: the caller, a drain, or a hold while a hook decides. */
  declare sink: BodySink | undefined;
  /** The copies of the attempt in flight, while they race and none has won. */
  declare private hedge: HedgedAttempt | undefined;
  declare private readonly scope: AsyncResource | undefined;
  declare private state: State;
  declare private readonly rest: RestCheck | undefined;
  declare private callerAbort: Error | undefined;
  /** Ends the read-ahead of the body, a hold or the backoff wait, whichever is in progress. */
  declare private pendingAbort: AbortController | undefined;
  /** The answer the sequence decides on: a response's head, or how the attempt failed. */
  declare private answer: Head | Failure | undefined;
  /**
   * Why the answer is refused (a rest's check of it, or the final status's error): the request fails
   * with it once the answer is drained (else the wait follows).
   */
  declare private refused: Error | undefined;
  /** A race's events not yet told (one at a time), and whether one is being told. */
  declare private queue: (() => Step)[] | undefined;
  declare private busy: boolean;
  /** Where the attempts go once `beforeRetry` sent them elsewhere (else the run's URL). */
  declare private url: string | undefined;

  constructor(
    downstream: Downstream,
    caller: NewHandler,
    run: RetryRun,
    settings: RequestSettings,
    tagHeaders: boolean,
    scope?: AsyncResource,
    rest?: RestCheck,
  ) {
    this.caller = caller;
    this.run = run;
    this.outer = new CallerSide(this, caller, settings, tagHeaders);
    this.opts = undefined;
    this.sending = false;
    this.downstream = downstream;
    this.current = undefined;
    this.sink = undefined;
    this.hedge = undefined;
    this.scope = scope ?? callerScope(run, caller);
    this.state = 'preparing';
    this.rest = rest;
    this.callerAbort = undefined;
    this.pendingAbort = undefined;
    this.answer = undefined;
    this.refused = undefined;
    this.queue = undefined;
    this.busy = false;
    this.url = undefined;
  }

  // --- The port: what the sequence reads of the request --------------------------------------

  /** The caller's abort, once they aborted. */
  cancellation(): unknown {
    return this.callerAbort;
  }

  /** Its attempts ask for the rest of a body that broke. */
  get resuming(): boolean {
    return this.rest !== undefined;
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

  // --- The steps -----------------------------------------------------------------------------

  /** Starts with these options (every attempt sends them); after `waitFirstMs` when a retry was decided already. */
  start(opts: DispatchOpts, waitFirstMs?: number): boolean {
    this.opts = opts;
    let step: Step;
    try {
      step = this.run.start(this, false, waitFirstMs);
    } catch (error) {
      step = this.run.failed(error);
    }
    return this.go(step);
  }

  /**
   * Reads the body ahead (`read`), then starts. The caller gets its controller first: undici hands a
   * caller's abort only to that controller, and a stalled source must not hold the caller.
   */
  prepare(read: BodyReader): boolean {
    const run = this.run;
    const abort = new AbortController();
    this.pendingAbort = abort;
    this.startCaller(undefined);
    const step = this.tell(() => run.start(this, true));
    if (step !== 'prepare') return this.go(step);
    read(abort.signal).then(
      (ready) => {
        this.opts = ready;
        this.resume(() => run.done());
      },
      // Nothing was sent: the run ends with this error (the core's rule), or as the caller's abort.
      (error: unknown) => this.resume(() => run.failed(error)),
    );
    return true;
  }

  /** Tells the sequence an event; what it throws (a feature's error) is the request's failure. */
  private tell(event: () => Step): Step {
    try {
      return event();
    } catch (error) {
      return this.run.failed(error);
    }
  }

  /** Tells an event that came later (a promise settled, a body was read, a copy answered), in the caller's context. */
  private resume(event: () => Step): void {
    if (this.state !== 'done') inScope(this.scope, () => this.go(this.tell(event)));
  }

  /** Does the steps the sequence asks for, up to one that waits for an event; returns what undici's dispatch did. */
  private go(first: Step): boolean {
    const run = this.run;
    let step = first;
    for (;;) {
      try {
        switch (step) {
          case 'race':
          case 'send':
            // An attempt the caller gave up on (during its edits) is not sent, nor counted.
            if (this.callerAbort) step = run.cancel(this.callerAbort);
            else return this.send(step);
            break;
          case 'won': {
            // The winning copy is the request's attempt from now on, its answer the one decided on.
            const winner = this.hedge!.won(run.copy, run.maxBytes);
            this.hedge = undefined;
            this.current = winner;
            this.answer = winner.answer;
            step = run.proceed();
            break;
          }
          case 'result':
            step = this.result();
            if (step === 'idle') return true;
            break;
          case 'await':
            this.await(run.pending!);
            return true;
          case 'hold':
          case 'wait':
            this.wait();
            return true;
          case 'discard':
            if (this.discard(undefined)) return true;
            step = run.done();
            break;
          case 'drop':
            // A copy that lost, or a retried failure while another copy is out; else the request
            // fails with its answer unread: its attempt is aborted, closing its connection.
            if (this.hedge) this.hedge.drop(run.copy, run.maxBytes);
            else if (this.answer !== undefined && !('error' in this.answer)) this.release(run.error as Error);
            this.answer = undefined;
            step = run.proceed();
            break;
          case 'deliver':
            this.deliver();
            return true;
          case 'fail':
            this.fail(run.error as Error);
            return true;
          case 'prepare':
          case 'idle':
            return true;
          default:
            throw new Error(`jitterbug: the attempt sequence asked undici for '${step}'`);
        }
      } catch (error) {
        step = run.failed(error);
      }
    }
  }

  /** `send`: the attempt, or a copy of a racing one; `race`: its first copy. */
  private send(step: Step): boolean {
    this.state = 'attempt';
    this.answer = undefined;
    if (step === 'race') this.hedge = new HedgedAttempt(this);
    const run = this.run;
    if (this.hedge) return this.hedge.launch(run.copy, run.pending, run.hedgeMs);
    const attempt = new Attempt(this);
    this.current = attempt;
    attempt.time(run.options.attemptTimeoutMs);
    return this.dispatch(attempt);
  }

  /** Dispatches one attempt (or hedged copy); a dispatch that throws fails it like any error. */
  dispatch(attempt: Attempt): boolean {
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

  /** The current attempt's controller, once undici started it (the caller's pause and resume go there). */
  get inner(): Controller | null {
    return this.current?.controller ?? null;
  }

  /** Tells a racing copy's event (its answer, the hedge delay), once the one being told is done. */
  raceEvent(event: () => Step): void {
    if (this.state === 'done') return;
    this.queue ??= [];
    this.queue.push(event);
    if (!this.busy) this.flush();
  }

  private flush(): void {
    const queue = this.queue!;
    this.busy = true;
    try {
      for (let event = queue.shift(); event !== undefined; event = queue.shift()) this.resume(event);
    } finally {
      this.busy = false;
    }
  }

  /** `result`: the answer in the core's terms; `idle` while a failure's problem body is read for its type. */
  private result(): Step {
    const run = this.run;
    // A racing copy's answer is told as it came, its problem body read already (`hedged-attempt.ts`).
    const answer = this.hedge ? this.hedge.answerOf(run.copy)! : this.answer!;
    if ('error' in answer) return run.done(answer);
    const { controller, statusCode: status, headers, refused } = answer;
    // A 2xx that does not continue the body is a failed attempt at it (the summary then says so).
    if (refused !== undefined && status < 400) return run.done({ error: refused });
    const getter = responseHeaderGetter(headers);
    // Else a failure's problem body is read first: its type decides too (`problem-body.ts`).
    if (this.hedge || !readsProblem(run.options, this.rest !== undefined, status, headers)) {
      return run.done(headResult(status, getter, answer.problemType));
    }
    this.current?.untime();
    this.sink = new ProblemBody(this, controller, run.options.discardBodyMaxBytes, (problemType) =>
      this.resume(() => run.done(headResult(status, getter, problemType))),
    );
    return 'idle';
  }

  /** `await`: the sequence goes on when `pending` settles; an answer's body is held meanwhile. */
  private await(pending: PromiseLike<unknown>): void {
    const run = this.run;
    const answer = this.answer;
    const settled = (value: unknown): void => this.resume(() => run.done(value));
    const failed = (error: unknown): void => this.resume(() => run.failed(error));
    if (this.state === 'deciding' && answer !== undefined && !('error' in answer)) {
      // The attempt is over as far as its timeout goes: its headers came.
      this.current?.untime();
      this.sink = HeldBody.until(this, answer.controller, pending, settled, failed);
      return;
    }
    if (this.state === 'wait' || this.state === 'preparing') {
      // The attempt's edits (`beforeRetry`): the caller aborts through the controller it holds.
      this.state = 'wait';
      this.startCaller(undefined);
    }
    pending.then(settled, failed);
  }

  /** `wait`, `hold`: the policy's sleep, which the caller's abort ends. */
  private wait(): void {
    const run = this.run;
    this.state = 'wait';
    // The caller aborts through the controller it got at onRequestStart: give it one before waiting
    // (a first attempt refused before connecting never started the caller).
    this.startCaller(undefined);
    const aborted = this.callerAbort;
    if (aborted) {
      this.go(this.tell(() => run.failed(aborted)));
      return;
    }
    const abort = new AbortController();
    this.pendingAbort = abort;
    const { signal } = abort;
    run.options.sleep(run.delayMs, signal).then(
      // An injected sleep may ignore the signal: the abort still ends the wait.
      () => this.resume(() => (signal.aborted ? run.failed(signal.reason) : run.done())),
      (reason: unknown) => this.resume(() => run.failed(reason)),
    );
  }

  /**
   * Drains the answer (to keep its connection), then the wait, or the request's failure with
   * `refused`; `false` when there is no body to drain (the attempt failed).
   */
  private discard(refused: Error | undefined): boolean {
    const answer = this.answer;
    this.answer = undefined;
    if (answer === undefined || 'error' in answer) return false;
    this.state = 'discard';
    this.refused = refused;
    const drain = new Drain(this, this.run.options.discardBodyMaxBytes, 'discarded a response to retry');
    this.sink = drain;
    drain.start(this.run.method, answer.headers);
    return true;
  }

  /** `deliver`: hands the answer over, or drains it and fails with the error that replaces it. */
  private deliver(): void {
    const answer = this.answer;
    if (answer === undefined || 'error' in answer) {
      this.fail((answer?.error ?? this.run.error) as Error);
      return;
    }
    const refusal = this.rest
      ? answer.refused
      : this.outer.refusal(this.run, answer.statusCode, answer.headers);
    if (refusal) this.discard(refusal);
    else this.respond(answer.controller, answer.statusCode, answer.headers, answer.statusMessage);
  }

  private respond(
    controller: Controller,
    statusCode: number,
    headers: HeaderRecord,
    statusMessage: string | undefined,
  ): void {
    this.current?.untime();
    this.state = 'delivered';
    this.answer = undefined;
    this.sink = this.outer;
    this.outer.respond(controller, statusCode, headers, statusMessage, this.run);
  }

  // --- An attempt's events -------------------------------------------------------------------

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
      this.attemptFailed(error, unprocessed);
    } else if (this.state === 'discard') {
      this.drained(error);
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

  /** A final response's head: the sequence decides on it. */
  responseStart(
    controller: Controller,
    statusCode: number,
    headers: HeaderRecord,
    statusMessage?: string,
  ): void {
    const run = this.run;
    // A first answer that settles the request by itself (a success) with no onFinish to tell is
    // handed over where undici delivers it, with nothing held: the success path switches no context.
    // (Never a request for the rest: its run decided on the first answer.)
    let settled: Step | undefined;
    if (run.attempts === 0 && run.options.onFinish === undefined) {
      try {
        settled = run.answered(1, statusCode);
      } catch (error) {
        settled = run.failed(error);
      }
      if (settled === 'deliver' && this.outer.refusal(run, statusCode, headers) === undefined) {
        this.respond(controller, statusCode, headers, statusMessage);
        return;
      }
    }
    this.state = 'deciding';
    const head = this.head(controller, statusCode, headers, statusMessage);
    this.answer = head;
    // A refused 2xx is told as a failure (its result says which), any other answer as its status.
    const told = head.refused !== undefined && statusCode < 400 ? undefined : statusCode;
    inScope(this.scope, () => this.go(settled ?? this.tell(() => run.answered(1, told))));
  }

  /** A final answer's head as the sequence decides on it: a rest's answers, each checked (`RestCheck`). */
  head(controller: Controller, statusCode: number, headers: HeaderRecord, statusMessage?: string): Head {
    return { controller, statusCode, headers, statusMessage, refused: this.rest?.(statusCode, headers) };
  }

  /** The discarded answer is gone: drained in full (or failed), or stopped past the limit; then what follows. */
  drained(closeWith: Error | undefined): void {
    this.release(closeWith);
    const refused = this.refused;
    if (refused === undefined) this.resume(() => this.run.done());
    else this.fail(refused);
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

  /** The current attempt failed (before its head: the run decides; after it: its body's sink is told). */
  responseError(error: Error): void {
    const sink = this.sink;
    if (sink) {
      sink.error(error);
      return;
    }
    const unprocessed =
      this.state === 'attempt' && provesUnprocessed(this.inner !== null, this.sending, error);
    this.release();
    this.attemptFailed(error, unprocessed);
  }

  /** An attempt failed before any response reached the caller: its result, told at once, in the caller's context. */
  private attemptFailed(error: Error, unprocessed: boolean): void {
    const failure = failedAttempt(error, unprocessed, this.callerAbort !== undefined);
    this.state = 'deciding';
    this.answer = failure;
    inScope(this.scope, () => this.go(this.tell(() => this.run.done(failure))));
  }

  /** The caller aborted (its signal, fetch's termination, a destroyed body, …). */
  abortByCaller(reason: Error): void {
    const state = this.state;
    if (this.callerAbort || state === 'done') return;
    this.callerAbort = reason;
    if (state === 'preparing' || state === 'wait') {
      this.pendingAbort?.abort(reason);
    } else if (state === 'discard' || state === 'deciding') {
      // The sequence hears nothing more of this answer (nor of a hook's promise out for it).
      this.release(reason);
      this.answer = undefined;
      const step = this.tell(() => this.run.cancel(reason));
      queueMicrotask(() => this.go(step));
    } else if (this.hedge) {
      // Each copy that started reports its abort as its answer, and the first decides: told once
      // this is done (the caller may abort from its own callbacks).
      this.busy = true;
      const started = this.hedge.cancel(reason, this.outer.starting);
      this.busy = false;
      queueMicrotask(() => (started ? this.flush() : this.go(this.tell(() => this.run.cancel(reason)))));
    } else if (this.inner && !(state === 'attempt' && this.outer.starting)) {
      // undici reports the abort back through the attempt's onResponseError, as without jitterbug.
      this.inner.abort(reason);
    } else {
      // Still connecting, or the caller aborted from its own onRequestStart (a signal aborted before
      // the request): this attempt wrote nothing and is not counted. Detached, it is aborted as soon
      // as undici starts it, and undici's report of that is ignored.
      this.release(reason);
      queueMicrotask(() => this.go(this.tell(() => this.run.cancel(reason))));
    }
  }

  /**
   * What is below cannot send the request as composed (undici's RetryAgent, `undici-retry.ts`): it
   * fails with `error`, its attempt aborted before anything was written.
   */
  refuse(error: TypeError): void {
    // Nothing was written: the run ends as the error's, uncounted (its onFinish not waited for).
    Promise.resolve(finishRun(this.run, 'error-not-retryable', undefined, error, false)).catch(
      () => undefined,
    );
    if (!this.hedge) this.release(error);
    this.go(this.tell(() => this.run.cancel(error)));
  }

  private fail(error: Error): void {
    if (this.state === 'done') return;
    this.state = 'done';
    this.hedge?.end(error);
    this.hedge = undefined;
    this.current?.untime();
    this.sink = undefined;
    this.answer = undefined;
    this.outer.fail(error, this.run.summary);
  }
}
