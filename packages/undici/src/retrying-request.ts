/**
 * One request under retries: dispatches attempts, streams the accepted response straight to the
 * caller, swallows and discards a response the policy retries, waits, and dispatches again with the
 * same options. The caller sees one request: one `onRequestStart`, at most one final
 * `onResponseStart`, then data and one end or error.
 */
import { AsyncResource } from 'node:async_hooks';
import type { Duplex } from 'node:stream';
import { AttemptTimeoutError } from '@jitterbug/core';
import type { Decision } from '@jitterbug/core/adapter';
import { type AttemptResult, type RetryRun, resumeDecision, setRetryInfo } from '@jitterbug/core/adapter';
import { AttemptEvents, AttemptHandler } from './attempt-events.ts';
import type { BodyReader } from './body.ts';
import { HedgedAttempt } from './hedged-attempt.ts';
import { withInfoHeaders } from './info-headers.ts';
import { responseHeaderGetter } from './request-info.ts';
import { type BodyResume, bodyResume } from './resumable-body.ts';
import { ResponseLengthError, refusedUnprocessed, streamErrorCode, untrustedCertificate } from './signals.ts';
import { type StatusErrorClass, statusError } from './status-error.ts';
import type { Controller, DispatchOpts, HeaderRecord, NewHandler, NextDispatch } from './types.ts';

type State =
  | 'preparing' // reading a stream body before the first attempt
  | 'attempt' // an attempt is in flight, no response yet
  | 'deciding' // a response arrived and a hook of the caller's is deciding it (the body is held)
  | 'discard' // draining a response that will be retried
  | 'wait' // backing off
  | 'delivered' // the caller has the response (and, after a resume, the rest of it)
  | 'done';

/** The end of a body that arrived while a hook was deciding its response. */
const END = Symbol('end');
type HeldEvent = Buffer | typeof END | { readonly error: Error };

/** Why a discarded response's connection was closed. */
const discardReason = (bytes: number): Error =>
  new Error(`jitterbug: discarded a response to retry after ${bytes} body bytes`);

/** The controller the caller holds: one for the whole request, whichever attempt is current. */
class CallerController implements Controller {
  declare rawHeaders: Controller['rawHeaders'];
  declare rawTrailers: Controller['rawTrailers'];
  declare private readonly request: RetryingRequest;
  declare private isAborted: boolean;
  declare private isPaused: boolean;
  declare private abortReason: unknown;

  constructor(request: RetryingRequest) {
    this.rawHeaders = null;
    this.rawTrailers = null;
    this.request = request;
    this.isAborted = false;
    this.isPaused = false;
    this.abortReason = null;
  }

  get aborted(): boolean {
    return this.isAborted;
  }
  get paused(): boolean {
    return this.isPaused;
  }
  get reason(): unknown {
    return this.abortReason;
  }

  pause(): void {
    this.isPaused = true;
    this.request.inner?.pause();
  }

  resume(): void {
    this.isPaused = false;
    this.request.inner?.resume();
  }

  abort(reason: Error): void {
    if (this.isAborted) return;
    this.isAborted = true;
    // undici's request() aborts without a reason when its body is destroyed (the body has the
    // caller's reason already): the request must still know it was aborted.
    const why = reason ?? new DOMException('This operation was aborted', 'AbortError');
    this.abortReason = why;
    this.request.abortByCaller(why);
  }
}

// A module-level callback: no closure per request on the path where no timeout fires.
const onAttemptTimeout = (request: RetryingRequest): void => request.attemptTimedOut();

/** Adapter settings a request needs. */
export interface RequestSettings {
  readonly infoHeaders: boolean;
  /** Fail with this error class after a final retryable status instead of delivering it. */
  readonly statusError: StatusErrorClass | undefined;
}

/**
 * The state machine of one request, and the handler of its first attempt. Internal: the caller
 * only ever sees its {@link CallerController}.
 */
export class RetryingRequest extends AttemptEvents {
  /** The caller's handler, in the current API. */
  declare readonly caller: NewHandler;
  /** The current attempt's handler: this request for the first attempt (`undefined` between attempts). */
  declare current: AttemptEvents | undefined;
  /** The current attempt's controller, once undici started it. */
  declare inner: Controller | null;
  declare private readonly dispatch: NextDispatch;
  declare private readonly run: RetryRun;
  declare private readonly settings: RequestSettings;
  declare private readonly outer: CallerController;
  /** Whether the final headers object reaches the caller, so that a summary on it can be read. */
  declare private readonly tagHeaders: boolean;
  declare private opts: DispatchOpts | undefined;
  declare private state: State;
  declare private callerStarted: boolean;
  /** Inside the caller's `onRequestStart` for the current attempt: undici has written nothing yet. */
  declare private starting: boolean;
  /** Whether the first attempt was dispatched (with this request as its handler). */
  declare private dispatched: boolean;
  /** Inside undici's dispatch call: a failure reported now is the request's, not a connection's. */
  declare private sending: boolean;
  declare private callerAbort: Error | undefined;
  /** Ends the read-ahead of the body or the backoff wait, whichever is in progress. */
  declare private pendingAbort: AbortController | undefined;
  declare private timer: ReturnType<typeof setTimeout> | undefined;
  declare private delayMs: number;
  declare private discarded: number;
  /** The error the request fails with once the response being drained is gone (a final status made an error). */
  declare private failAfterDrain: Error | undefined;
  /** What arrived of the response while a hook was deciding it, replayed once it has. */
  declare private held: HeldEvent[] | undefined;
  declare private heldTrailers: HeaderRecord | undefined;
  /** The body length the delivered response declared (`content-length`); -1 when it declared none. */
  declare private declaredBytes: number;
  /** Body bytes handed to the caller. */
  declare private bodyBytes: number;
  /** The delivered response, when `resume` is on and its body could be resumed. */
  declare resumable: BodyResume | undefined;
  /** The copies of the attempt in flight, while it is hedged and none has won. */
  declare private hedge: HedgedAttempt | undefined;
  /** When the attempt in flight was sent, when `hedge` is on (its time to headers feeds a percentile). */
  declare private sentAt: number;
  /**
   * The caller's async context (AsyncLocalStorage stores, OpenTelemetry's active span), captured at
   * dispatch. undici runs a response's events in the context of its connection, i.e. of whichever
   * request opened it: every retry, hedged copy, wait and decision after an attempt failed runs in
   * this one instead (see {@link inCaller}). An `AsyncResource` rather than
   * `AsyncLocalStorage.snapshot()`: about 25 ns per request against 2 µs (Node 22 and 24), and the
   * capture cannot wait until a retry is needed, as by then the caller's context is gone.
   * `undefined` when the request cannot be retried at all.
   */
  declare private readonly scope: AsyncResource | undefined;

  /**
   * Fields are TypeScript-private and assigned here in one order, not `#private` with initialisers:
   * this runs for every request, with cold caches in a real client, where `#private` fields cost
   * about 0.6 µs more per request (`bench/profiling.md`).
   *
   * @param tagHeaders - `false` for a legacy caller, which is handed raw headers instead of the
   *   headers object, so a summary attached to that object could never be read.
   */
  constructor(
    dispatch: NextDispatch,
    caller: NewHandler,
    run: RetryRun,
    settings: RequestSettings,
    tagHeaders: boolean,
  ) {
    super();
    this.request = this;
    this.abandonedBy = undefined;
    this.caller = caller;
    this.current = undefined;
    this.inner = null;
    this.dispatch = dispatch;
    this.run = run;
    this.settings = settings;
    this.outer = new CallerController(this);
    this.tagHeaders = tagHeaders;
    this.opts = undefined;
    this.state = 'preparing';
    this.callerStarted = false;
    this.starting = false;
    this.dispatched = false;
    this.sending = false;
    this.callerAbort = undefined;
    this.pendingAbort = undefined;
    this.timer = undefined;
    this.delayMs = 0;
    this.discarded = 0;
    this.held = undefined;
    this.heldTrailers = undefined;
    this.failAfterDrain = undefined;
    this.declaredBytes = -1;
    this.bodyBytes = 0;
    this.resumable = undefined;
    this.hedge = undefined;
    this.sentAt = 0;
    this.scope = run.options.retry ? new AsyncResource('JitterbugRequest') : undefined;
  }

  /** `f()` in the caller's async context (see {@link scope}). */
  private inCaller<T>(f: () => T): T {
    const scope = this.scope;
    return scope ? scope.runInAsyncScope(f) : f();
  }

  /** Starts the first attempt with these options (used again, unchanged, by every retry). */
  start(opts: DispatchOpts): boolean {
    this.opts = opts;
    if (this.callerAbort) {
      this.abortRun(this.callerAbort);
      return true;
    }
    return this.attempt();
  }

  /** The caller aborted while no attempt was in flight: the run ends as aborted with its reason. */
  private abortRun(reason: Error): void {
    // The caller's reason is what it gets, even when its onFinish rejects.
    Promise.resolve(this.run.abort(reason)).catch(() => undefined);
    this.fail(reason);
  }

  /**
   * Reads the body ahead (`read`), then starts the first attempt. The caller gets its controller
   * first: undici hands a caller's abort (its signal, fetch's termination) only to that controller,
   * and a slow or stalled source must not hold the caller until it ends.
   */
  prepare(read: BodyReader): boolean {
    const reading = new AbortController();
    this.pendingAbort = reading;
    this.startCaller(undefined);
    read(reading.signal).then(
      (ready) => {
        this.pendingAbort = undefined;
        this.start(ready);
      },
      (error: unknown) => {
        this.pendingAbort = undefined;
        if (this.callerAbort) this.abortRun(this.callerAbort);
        // Nothing was sent and the run still sees a stream body: the core ends it with this error.
        else this.decideOnError(error as Error);
      },
    );
    return true;
  }

  private attempt(): boolean {
    const held = this.run.beforeAttempt(this);
    if (held) return this.hold(held);
    this.inner = null;
    this.state = 'attempt';
    const resumable = this.resumable;
    const opts = resumable?.resuming ? resumable.restOpts() : this.opts!;
    // Hedging is opt-in: only then is anything timed or any copy made.
    const hedging = this.run.options.hedge;
    if (hedging) {
      const hedgeMs = hedging.delayFor(this.run, 1);
      if (hedgeMs !== undefined) {
        this.current = undefined;
        this.sentAt = 0;
        this.hedge = new HedgedAttempt(this, this.run, hedging, opts);
        return this.hedge.start(hedgeMs);
      }
      this.sentAt = performance.now();
    }
    const handler = this.dispatched ? new AttemptHandler(this) : this;
    this.dispatched = true;
    this.current = handler;
    const timeoutMs = this.run.options.attemptTimeoutMs;
    if (timeoutMs !== undefined) this.timer = setTimeout(onAttemptTimeout, timeoutMs, this);
    return this.send(opts, handler);
  }

  /** Dispatches one attempt (or hedged copy); a dispatch that throws fails it like any error. */
  send(opts: DispatchOpts, handler: AttemptEvents): boolean {
    this.sending = true;
    try {
      return this.dispatch(opts, handler);
    } catch (error) {
      handler.onResponseError(null, error as Error);
      return true;
    } finally {
      this.sending = false;
    }
  }

  /**
   * Whether an attempt's (or a hedged copy's) failure proves that the server never processed it
   * (see `signals.ts`): it failed before undici started it (`started`: its `onRequestStart`),
   * and not from inside the dispatch call, or the server refused it. An untrusted certificate is
   * not sent again: nothing was written, but it would fail the same way.
   */
  provesUnprocessed(started: boolean, error: Error): boolean {
    return (!started && !this.sending && !untrustedCertificate(error)) || refusedUnprocessed(error);
  }

  /** A hedged copy started: the caller gets its controller with the first one, as for any attempt. */
  copyStarted(controller: Controller, context: unknown): void {
    if (this.callerAbort) {
      controller.abort(this.callerAbort);
      return;
    }
    this.starting = true;
    try {
      this.startCaller(context);
    } finally {
      this.starting = false;
    }
  }

  /** Whether the caller aborted the request. */
  callerAborted(): boolean {
    return this.callerAbort !== undefined;
  }

  /**
   * A hedged copy won: it is the current attempt from now on, with what is left of its
   * `attemptTimeoutMs` (which still bounds a retried answer's drain).
   */
  hedgeWon(copy: AttemptEvents, controller: Controller | null, sentAt: number): void {
    this.hedge = undefined;
    this.current = copy;
    this.inner = controller;
    const timeoutMs = this.run.options.attemptTimeoutMs;
    if (timeoutMs !== undefined) {
      const left = Math.max(0, timeoutMs - (performance.now() - sentAt));
      this.timer = setTimeout(onAttemptTimeout, left, this);
    }
  }

  /** The signal a feature's hold listens to (asked for by the run only when an attempt is held). */
  signal(): AbortSignal {
    const controller = new AbortController();
    this.pendingAbort = controller;
    return controller.signal;
  }

  /** The origin is in a cooldown: the attempt waits (the caller can abort it), then goes. */
  private hold(held: Promise<void>): boolean {
    this.state = 'wait';
    this.startCaller(undefined);
    held.then(
      () => {
        this.pendingAbort = undefined;
        if (this.state === 'wait') this.inCaller(() => this.attempt());
      },
      (reason: unknown) => {
        this.pendingAbort = undefined;
        this.fail(reason as Error);
      },
    );
    return true;
  }

  /** The current attempt ran past `attemptTimeoutMs`. */
  attemptTimedOut(): void {
    this.timer = undefined;
    const error = new AttemptTimeoutError(this.run.options.attemptTimeoutMs ?? 0);
    if (this.state === 'attempt') {
      // Not started yet (still connecting, or queued): undici will be told to abort it as it starts
      // it, before it writes anything.
      const unprocessed = this.inner === null;
      this.detach(error);
      this.decideOnError(error, unprocessed);
    } else if (this.state === 'discard') {
      this.detach(error);
      this.wait();
    }
  }

  private clearTimer(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  /** Ends the current attempt for us; aborts it (closing its connection) when it is still open. */
  private detach(reason: Error): void {
    this.clearTimer();
    const attempt = this.current;
    const inner = this.inner;
    this.current = undefined;
    this.inner = null;
    attempt?.abandon(reason);
    if (inner && !inner.aborted) inner.abort(reason);
  }

  private startCaller(context: unknown): void {
    if (this.callerStarted) return;
    this.callerStarted = true;
    this.caller.onRequestStart?.(this.outer, context);
  }

  requestStart(controller: Controller, context: unknown): void {
    this.inner = controller;
    if (this.callerAbort) {
      controller.abort(this.callerAbort);
      return;
    }
    this.starting = true;
    try {
      this.startCaller(context);
    } finally {
      this.starting = false;
    }
  }

  /** An upgrade the request did not ask for (asked-for ones never get here): the caller's, as is. */
  requestUpgrade(controller: Controller, statusCode: number, headers: HeaderRecord, socket: Duplex): void {
    this.clearTimer();
    this.state = 'done';
    this.outer.rawHeaders = controller.rawHeaders;
    this.caller.onRequestUpgrade?.(this.outer, statusCode, headers, socket);
  }

  responseStart(
    controller: Controller,
    statusCode: number,
    headers: HeaderRecord,
    statusMessage?: string,
  ): void {
    const resumable = this.resumable;
    if (statusCode < 200) {
      // Interim answers (100 Continue, 103 Early Hints) are not outcomes: the caller sees them as is
      // (not those to a request for the rest of a body it is reading).
      if (resumable?.resuming) return;
      this.outer.rawHeaders = controller.rawHeaders;
      this.caller.onResponseStart?.(this.outer, statusCode, headers, statusMessage);
      return;
    }
    // A percentile hedge delay learns from the attempts that were not hedged too.
    if (this.sentAt) {
      this.run.options.hedge?.answered(this.run, 1, performance.now() - this.sentAt);
      this.sentAt = 0;
    }
    const run = this.run;
    let pending: Decision | Promise<Decision>;
    try {
      // A first answer that settles the request by itself (a success) with no onFinish to tell is
      // decided where undici delivers it: the success path switches no context. Anything else (a
      // hook to ask, an answer after a retry) is decided in the caller's context.
      const settled =
        run.attempts === 0 && run.options.onFinish === undefined && !resumable?.resuming
          ? run.settle(statusCode)
          : undefined;
      pending =
        settled ??
        this.inCaller(() =>
          resumable?.resuming
            ? resumable.report(run, statusCode, headers)
            : (run.settle(statusCode) ??
              run.next({ status: statusCode, headers: responseHeaderGetter(headers) })),
        );
    } catch (error) {
      this.detach(error as Error);
      this.fail(error as Error);
      return;
    }
    if (!(pending instanceof Promise)) {
      this.decided(pending, controller, statusCode, headers, statusMessage);
      return;
    }
    // A hook answered with a promise: the body waits (what still arrives is held) until it settles.
    // The attempt is over as far as its timeout goes: its headers came.
    this.clearTimer();
    this.state = 'deciding';
    this.held = [];
    controller.pause();
    pending.then(
      (decision) => {
        if (this.state !== 'deciding') return;
        const held = this.held ?? [];
        this.held = undefined;
        this.decided(decision, controller, statusCode, headers, statusMessage);
        for (const event of held) {
          if (!this.takesEvents()) break;
          if (event === END) this.responseEnd(controller, this.heldTrailers ?? {});
          else if (Buffer.isBuffer(event)) this.responseData(controller, event);
          else this.responseError(event.error);
        }
        if (!this.outer.paused) controller.resume();
      },
      (hookError: unknown) => {
        if (this.state !== 'deciding') return;
        this.held = undefined;
        this.detach(hookError as Error);
        this.fail(hookError as Error);
      },
    );
  }

  /** Whether the current response's events still go somewhere: to the caller, or to the drain. */
  private takesEvents(): boolean {
    return this.state === 'delivered' || this.state === 'discard';
  }

  /** Acts on the decision for a response: deliver it, or drain it and wait. */
  private decided(
    decision: Decision,
    controller: Controller,
    statusCode: number,
    headers: HeaderRecord,
    statusMessage?: string,
  ): void {
    if (!decision.retry) {
      const resumable = this.resumable;
      const StatusError = this.settings.statusError;
      if (resumable?.resuming) {
        if (!resumable.refused) {
          this.continueBody(controller, resumable);
          return;
        }
        // Not the rest of the body: drained (or its connection closed), then the body ends.
        this.failAfterDrain = resumable.refused;
      } else if (!StatusError || !decision.gaveUp) {
        this.deliver(controller, statusCode, headers, statusMessage);
        return;
      } else {
        // As undici's RetryAgent: the retries on a status are used up, so the request fails; the
        // response is drained (or its connection closed) first, like one that is retried.
        this.failAfterDrain = statusError(StatusError, statusCode, headers, this.run.attempts);
      }
    }
    this.delayMs = decision.retry ? decision.delayMs : 0;
    this.discarded = 0;
    this.state = 'discard';
    // A HEAD answer declares the length of a body it does not have.
    const declared = this.run.method === 'HEAD' ? 0 : Number(headers['content-length']);
    if (declared > this.run.options.discardBodyMaxBytes) {
      this.detach(discardReason(0));
      this.wait();
    }
  }

  private deliver(
    controller: Controller,
    statusCode: number,
    headers: HeaderRecord,
    statusMessage?: string,
  ): void {
    this.clearTimer();
    this.state = 'delivered';
    const summary = this.run.summary;
    let raw = controller.rawHeaders;
    if (summary && this.settings.infoHeaders) ({ headers, raw } = withInfoHeaders(headers, raw, summary));
    if (summary && this.tagHeaders) setRetryInfo(headers, summary);
    this.outer.rawHeaders = raw;
    // What a body that ends must have come to (a HEAD, 204 or 304 answer declares a body it has not).
    const length = headers['content-length'];
    if (
      typeof length === 'string' &&
      statusCode !== 204 &&
      statusCode !== 304 &&
      this.run.method !== 'HEAD'
    ) {
      const declared = Number(length);
      if (Number.isSafeInteger(declared) && declared >= 0) this.declaredBytes = declared;
    }
    // Opt-in: only then does a response pay for a record of its body's progress.
    if (this.run.options.resume) this.resumable = bodyResume(this.run, statusCode, headers, this.opts!);
    this.caller.onResponseStart?.(this.outer, statusCode, headers, statusMessage);
  }

  /** The answer for the rest of the body continues it: its data goes on to the caller. */
  private continueBody(controller: Controller, resumable: BodyResume): void {
    this.clearTimer();
    this.state = 'delivered';
    resumable.resuming = false;
    const summary = this.run.summary;
    if (summary && this.tagHeaders) setRetryInfo(resumable.headers, summary);
    // The caller paused the body before it broke: this answer waits as the first one did.
    if (this.outer.paused) controller.pause();
  }

  /** The delivered body broke: the run decides whether to ask for the rest. */
  private resumeBody(error: Error, resumable: BodyResume): void {
    this.inCaller(() => this.askResume(error, resumable));
  }

  private askResume(error: Error, resumable: BodyResume): void {
    resumable.resuming = true;
    this.askAbout(error, () => resumeDecision(this.run, error));
  }

  responseData(_controller: Controller, chunk: Buffer): void {
    if (this.state === 'deciding') {
      this.held?.push(chunk);
      return;
    }
    if (this.state === 'delivered') {
      this.bodyBytes += chunk.length;
      const resumable = this.resumable;
      if (resumable) resumable.bytes += chunk.length;
      this.caller.onResponseData?.(this.outer, chunk);
      return;
    }
    if (this.state !== 'discard') return;
    this.discarded += chunk.length;
    if (this.discarded > this.run.options.discardBodyMaxBytes) {
      this.detach(discardReason(this.discarded));
      this.wait();
    }
  }

  responseEnd(controller: Controller, trailers: HeaderRecord): void {
    if (this.state === 'deciding') {
      this.held?.push(END);
      this.heldTrailers = trailers;
      return;
    }
    if (this.state === 'discard') {
      // Drained in full: the connection goes back to the pool.
      this.clearTimer();
      this.current = undefined;
      this.inner = null;
      this.wait();
      return;
    }
    // A body cut short that undici took for whole (undici 7 over HTTP/2 on an RST_STREAM CANCEL):
    // the caller gets an error (or, with `resume`, the rest), never the part as the whole.
    const declared = this.declaredBytes;
    if (declared !== -1 && this.bodyBytes < declared && this.state === 'delivered') {
      this.responseError(new ResponseLengthError(this.bodyBytes, declared));
      return;
    }
    this.state = 'done';
    this.outer.rawTrailers = controller.rawTrailers;
    this.caller.onResponseEnd?.(this.outer, trailers);
  }

  /**
   * The current attempt failed. `unprocessed`: whether that proves the server never processed it
   * (a hedged attempt says; else read here, from whether undici had started the attempt).
   */
  responseError(error: Error, unprocessed?: boolean): void {
    if (this.state === 'deciding') {
      this.held?.push({ error });
      return;
    }
    this.clearTimer();
    const state = this.state;
    if (state === 'attempt') unprocessed ??= this.provesUnprocessed(this.inner !== null, error);
    this.current = undefined;
    this.inner = null;
    if (state === 'discard') this.wait();
    else if (state !== 'delivered') this.decideOnError(error, unprocessed === true);
    else if (this.resumable && !this.callerAbort) this.resumeBody(error, this.resumable);
    else this.fail(error);
  }

  /** An attempt failed before any response reached the caller: retry or hand the error over. */
  private decideOnError(error: Error, unprocessed = false): void {
    this.inCaller(() => this.askOnError(error, unprocessed));
  }

  private askOnError(error: Error, unprocessed: boolean): void {
    const aborted = this.callerAbort !== undefined;
    this.askAbout(error, () => this.run.next(aborted ? { error, aborted } : this.result(error, unprocessed)));
  }

  /** Asks the run about a failure; a hook that throws or rejects fails the request with its error. */
  private askAbout(error: Error, ask: () => Decision | Promise<Decision>): void {
    let pending: Decision | Promise<Decision>;
    try {
      pending = ask();
    } catch (hookError) {
      this.fail(hookError as Error);
      return;
    }
    if (pending instanceof Promise) {
      pending.then(
        (decision) => this.decidedOnError(error, decision),
        (hookError: unknown) => this.fail(hookError as Error),
      );
    } else {
      this.decidedOnError(error, pending);
    }
  }

  /** A failed attempt in the core's terms (see `signals.ts`). */
  private result(error: Error, unprocessed: boolean): AttemptResult {
    const code = streamErrorCode(error);
    if (code === undefined) return unprocessed ? { error, unprocessed } : { error };
    return unprocessed ? { error, code, unprocessed } : { error, code };
  }

  private decidedOnError(error: Error, decision: Decision): void {
    if (this.state === 'done') return;
    if (!decision.retry) {
      this.fail(error);
      return;
    }
    this.delayMs = decision.delayMs;
    this.wait();
  }

  private wait(): void {
    const failure = this.failAfterDrain;
    if (failure) {
      this.failAfterDrain = undefined;
      this.fail(failure);
      return;
    }
    this.state = 'wait';
    // The caller aborts through the controller it got at onRequestStart: give it one before waiting
    // (a first attempt refused before connecting never started the caller).
    this.startCaller(undefined);
    if (this.callerAbort) {
      this.abortRun(this.callerAbort);
      return;
    }
    const waitAbort = new AbortController();
    this.pendingAbort = waitAbort;
    this.run.wait(this.delayMs, waitAbort.signal).then(
      () => {
        this.pendingAbort = undefined;
        if (this.state === 'wait') this.inCaller(() => this.attempt());
      },
      (reason: unknown) => {
        this.pendingAbort = undefined;
        this.fail(reason as Error);
      },
    );
  }

  /** The caller aborted (its signal, fetch's termination, a destroyed body, …). */
  abortByCaller(reason: Error): void {
    if (this.callerAbort || this.state === 'done') return;
    this.callerAbort = reason;
    switch (this.state) {
      case 'attempt':
        if (this.hedge) {
          // Every copy goes; the attempt counts if any of them had started (not when the caller
          // aborts from its onRequestStart, called as the first copy starts: nothing was written).
          const started = this.hedge.cancel(reason) && !this.starting;
          this.hedge = undefined;
          queueMicrotask(() => (started ? this.decideOnError(reason) : this.abortRun(reason)));
        } else if (this.inner && !this.starting) {
          // undici reports the abort back through the attempt's onResponseError, as without jitterbug.
          this.inner.abort(reason);
        } else {
          // Still connecting, or the caller aborted from its own onRequestStart (a signal aborted
          // before the request): this attempt wrote nothing, so it is not counted. Detached, it is
          // aborted as soon as undici starts it, and undici's report of that is ignored.
          this.detach(reason);
          queueMicrotask(() => this.abortRun(reason));
        }
        break;
      case 'delivered':
        if (this.inner) this.inner.abort(reason);
        // The body broke and the run is deciding whether to resume it: nothing is in flight.
        else queueMicrotask(() => this.abortRun(reason));
        break;
      case 'discard':
      case 'deciding':
        this.detach(reason);
        Promise.resolve(this.run.abort(reason)).catch(() => undefined);
        queueMicrotask(() => this.fail(reason));
        break;
      case 'preparing':
      case 'wait':
        this.pendingAbort?.abort(reason);
        break;
      default:
        break;
    }
  }

  private fail(error: Error): void {
    if (this.state === 'done') return;
    this.state = 'done';
    this.clearTimer();
    const summary = this.run.summary;
    if (summary) setRetryInfo(error, summary);
    this.caller.onResponseError?.(this.outer, error);
  }
}
