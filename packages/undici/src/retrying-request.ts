/**
 * One request under retries: dispatches attempts, streams the accepted response straight to the
 * caller, swallows and discards a response the policy retries, waits, and dispatches again with the
 * same options. The caller sees one request: one `onRequestStart`, at most one final
 * `onResponseStart`, then data and one end or error.
 */
import type { Duplex } from 'node:stream';
import { AttemptTimeoutError, type Decision, type RetryRun, setRetryInfo } from '@jitterbug/core';
import type { BodyReader } from './body.ts';
import { withInfoHeaders } from './info-headers.ts';
import { responseHeaderGetter } from './request-info.ts';
import type { Controller, DispatchOpts, HeaderRecord, NewHandler, NextDispatch } from './types.ts';

type State =
  | 'preparing' // reading a stream body before the first attempt
  | 'attempt' // an attempt is in flight, no response yet
  | 'discard' // draining a response that will be retried
  | 'wait' // backing off
  | 'delivered' // the caller has the response
  | 'done';

/** Why a discarded response's connection was closed. */
const discardReason = (bytes: number): Error =>
  new Error(`jitterbug: discarded a response to retry after ${bytes} body bytes`);

/** The controller the caller holds: one for the whole request, whichever attempt is current. */
class CallerController implements Controller {
  rawHeaders: Controller['rawHeaders'] = null;
  rawTrailers: Controller['rawTrailers'] = null;
  readonly #request: RetryingRequest;
  #aborted = false;
  #paused = false;
  #reason: unknown = null;

  constructor(request: RetryingRequest) {
    this.#request = request;
  }

  get aborted(): boolean {
    return this.#aborted;
  }
  get paused(): boolean {
    return this.#paused;
  }
  get reason(): unknown {
    return this.#reason;
  }

  pause(): void {
    this.#paused = true;
    this.#request.inner?.pause();
  }

  resume(): void {
    this.#paused = false;
    this.#request.inner?.resume();
  }

  abort(reason: Error): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#request.abortByCaller(reason);
  }
}

/** The handler of one attempt; events of an attempt that is no longer current are ignored. */
class AttemptHandler implements NewHandler {
  readonly #request: RetryingRequest;
  #abandoned: Error | undefined;

  constructor(request: RetryingRequest) {
    this.#request = request;
  }

  /** This attempt is over for us; if undici only starts it now, it is aborted at once. */
  abandon(reason: Error): void {
    this.#abandoned = reason;
  }

  onRequestStart(controller: Controller, context: unknown): void {
    if (this.#abandoned) controller.abort(this.#abandoned);
    else if (this.#request.current === this) this.#request.requestStart(controller, context);
  }
  onResponseStarted(): void {
    if (this.#request.current === this) this.#request.caller.onResponseStarted?.();
  }
  onResponseStart(
    controller: Controller,
    statusCode: number,
    headers: HeaderRecord,
    statusMessage?: string,
  ): void {
    if (this.#request.current === this)
      this.#request.responseStart(controller, statusCode, headers, statusMessage);
  }
  onResponseData(controller: Controller, chunk: Buffer): void {
    if (this.#request.current === this) this.#request.responseData(controller, chunk);
  }
  onResponseEnd(controller: Controller, trailers: HeaderRecord): void {
    if (this.#request.current === this) this.#request.responseEnd(controller, trailers);
  }
  onResponseError(_controller: Controller | null, error: Error): void {
    if (this.#request.current === this) this.#request.responseError(error);
  }
  onRequestUpgrade(controller: Controller, statusCode: number, headers: HeaderRecord, socket: Duplex): void {
    if (this.#request.current === this) this.#request.requestUpgrade(controller, statusCode, headers, socket);
  }
  onRequestSent(): void {
    if (this.#request.current === this) this.#request.caller.onRequestSent?.();
  }
  onBodySent(chunk: Buffer): void {
    if (this.#request.current === this) this.#request.caller.onBodySent?.(chunk);
  }
}

// A module-level callback: no closure per request on the path where no timeout fires.
const onAttemptTimeout = (request: RetryingRequest): void => request.attemptTimedOut();

/** Adapter settings a request needs. */
export interface RequestSettings {
  readonly infoHeaders: boolean;
}

/** The state machine of one request. Internal: the caller only ever sees its {@link CallerController}. */
export class RetryingRequest {
  /** The caller's handler, in the current API. */
  readonly caller: NewHandler;
  /** The current attempt's handler (`undefined` between attempts). */
  current: AttemptHandler | undefined;
  /** The current attempt's controller, once undici started it. */
  inner: Controller | null = null;
  readonly #dispatch: NextDispatch;
  readonly #run: RetryRun;
  readonly #settings: RequestSettings;
  readonly #outer: CallerController;
  #opts: DispatchOpts | undefined;
  #state: State = 'preparing';
  #callerStarted = false;
  /** Inside the caller's `onRequestStart` for the current attempt: undici has written nothing yet. */
  #starting = false;
  #callerAbort: Error | undefined;
  /** Ends the read-ahead of the body or the backoff wait, whichever is in progress. */
  #pendingAbort: AbortController | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #delayMs = 0;
  #discarded = 0;

  constructor(dispatch: NextDispatch, caller: NewHandler, run: RetryRun, settings: RequestSettings) {
    this.#dispatch = dispatch;
    this.caller = caller;
    this.#run = run;
    this.#settings = settings;
    this.#outer = new CallerController(this);
  }

  /** Starts the first attempt with these options (used again, unchanged, by every retry). */
  start(opts: DispatchOpts): boolean {
    this.#opts = opts;
    if (this.#callerAbort) {
      this.#abortRun(this.#callerAbort);
      return true;
    }
    return this.#attempt();
  }

  /** The caller aborted while no attempt was in flight: the run ends as aborted with its reason. */
  #abortRun(reason: Error): void {
    this.#run.abort(reason);
    this.#fail(reason);
  }

  /**
   * Reads the body ahead (`read`), then starts the first attempt. The caller gets its controller
   * first: undici hands a caller's abort (its signal, fetch's termination) only to that controller,
   * and a slow or stalled source must not hold the caller until it ends.
   */
  prepare(read: BodyReader): boolean {
    const reading = new AbortController();
    this.#pendingAbort = reading;
    this.#startCaller(undefined);
    read(reading.signal).then(
      (ready) => {
        this.#pendingAbort = undefined;
        this.start(ready);
      },
      (error: unknown) => {
        this.#pendingAbort = undefined;
        if (this.#callerAbort) this.#abortRun(this.#callerAbort);
        // Nothing was sent and the run still sees a stream body: the core ends it with this error.
        else this.#decideOnError(error as Error);
      },
    );
    return true;
  }

  #attempt(): boolean {
    const handler = new AttemptHandler(this);
    this.current = handler;
    this.inner = null;
    this.#state = 'attempt';
    const timeoutMs = this.#run.options.attemptTimeoutMs;
    if (timeoutMs !== undefined) this.#timer = setTimeout(onAttemptTimeout, timeoutMs, this);
    try {
      return this.#dispatch(this.#opts!, handler);
    } catch (error) {
      handler.onResponseError(null, error as Error);
      return true;
    }
  }

  /** The current attempt ran past `attemptTimeoutMs`. */
  attemptTimedOut(): void {
    this.#timer = undefined;
    const error = new AttemptTimeoutError(this.#run.options.attemptTimeoutMs ?? 0);
    if (this.#state === 'attempt') {
      this.#detach(error);
      this.#decideOnError(error);
    } else if (this.#state === 'discard') {
      this.#detach(error);
      this.#wait();
    }
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
  }

  /** Ends the current attempt for us; aborts it (closing its connection) when it is still open. */
  #detach(reason: Error): void {
    this.#clearTimer();
    const attempt = this.current;
    const inner = this.inner;
    this.current = undefined;
    this.inner = null;
    attempt?.abandon(reason);
    if (inner && !inner.aborted) inner.abort(reason);
  }

  #startCaller(context: unknown): void {
    if (this.#callerStarted) return;
    this.#callerStarted = true;
    this.caller.onRequestStart?.(this.#outer, context);
  }

  requestStart(controller: Controller, context: unknown): void {
    this.inner = controller;
    if (this.#callerAbort) {
      controller.abort(this.#callerAbort);
      return;
    }
    this.#starting = true;
    try {
      this.#startCaller(context);
    } finally {
      this.#starting = false;
    }
  }

  /** An upgrade the request did not ask for (asked-for ones never get here): the caller's, as is. */
  requestUpgrade(controller: Controller, statusCode: number, headers: HeaderRecord, socket: Duplex): void {
    this.#clearTimer();
    this.#state = 'done';
    this.#outer.rawHeaders = controller.rawHeaders;
    this.caller.onRequestUpgrade?.(this.#outer, statusCode, headers, socket);
  }

  responseStart(
    controller: Controller,
    statusCode: number,
    headers: HeaderRecord,
    statusMessage?: string,
  ): void {
    if (statusCode < 200) {
      // Interim answers (100 Continue, 103 Early Hints) are not outcomes: the caller sees them as is.
      this.#outer.rawHeaders = controller.rawHeaders;
      this.caller.onResponseStart?.(this.#outer, statusCode, headers, statusMessage);
      return;
    }
    let decision: Decision;
    try {
      decision = this.#run.next({ status: statusCode, headers: responseHeaderGetter(headers) });
    } catch (error) {
      this.#detach(error as Error);
      this.#fail(error as Error);
      return;
    }
    if (!decision.retry) {
      this.#deliver(controller, statusCode, headers, statusMessage);
      return;
    }
    this.#delayMs = decision.delayMs;
    this.#discarded = 0;
    this.#state = 'discard';
    // A HEAD answer declares the length of a body it does not have.
    const declared = this.#run.method === 'HEAD' ? 0 : Number(headers['content-length']);
    if (declared > this.#run.options.discardBodyMaxBytes) {
      this.#detach(discardReason(0));
      this.#wait();
    }
  }

  #deliver(controller: Controller, statusCode: number, headers: HeaderRecord, statusMessage?: string): void {
    this.#clearTimer();
    this.#state = 'delivered';
    const summary = this.#run.summary;
    let raw = controller.rawHeaders;
    if (summary && this.#settings.infoHeaders) ({ headers, raw } = withInfoHeaders(headers, raw, summary));
    if (summary) setRetryInfo(headers, summary);
    this.#outer.rawHeaders = raw;
    this.caller.onResponseStart?.(this.#outer, statusCode, headers, statusMessage);
  }

  responseData(_controller: Controller, chunk: Buffer): void {
    if (this.#state === 'delivered') {
      this.caller.onResponseData?.(this.#outer, chunk);
      return;
    }
    if (this.#state !== 'discard') return;
    this.#discarded += chunk.length;
    if (this.#discarded > this.#run.options.discardBodyMaxBytes) {
      this.#detach(discardReason(this.#discarded));
      this.#wait();
    }
  }

  responseEnd(controller: Controller, trailers: HeaderRecord): void {
    if (this.#state === 'discard') {
      // Drained in full: the connection goes back to the pool.
      this.#clearTimer();
      this.current = undefined;
      this.inner = null;
      this.#wait();
      return;
    }
    this.#state = 'done';
    this.#outer.rawTrailers = controller.rawTrailers;
    this.caller.onResponseEnd?.(this.#outer, trailers);
  }

  responseError(error: Error): void {
    this.#clearTimer();
    const state = this.#state;
    this.current = undefined;
    this.inner = null;
    if (state === 'discard') this.#wait();
    else if (state === 'delivered') this.#fail(error);
    else this.#decideOnError(error);
  }

  /** An attempt failed before any response reached the caller: retry or hand the error over. */
  #decideOnError(error: Error): void {
    const aborted = this.#callerAbort !== undefined;
    let decision: Decision;
    try {
      decision = this.#run.next(aborted ? { error, aborted } : { error });
    } catch (hookError) {
      this.#fail(hookError as Error);
      return;
    }
    if (!decision.retry) {
      this.#fail(error);
      return;
    }
    this.#delayMs = decision.delayMs;
    this.#wait();
  }

  #wait(): void {
    this.#state = 'wait';
    // The caller aborts through the controller it got at onRequestStart: give it one before waiting
    // (a first attempt refused before connecting never started the caller).
    this.#startCaller(undefined);
    if (this.#callerAbort) {
      this.#abortRun(this.#callerAbort);
      return;
    }
    const waitAbort = new AbortController();
    this.#pendingAbort = waitAbort;
    this.#run.wait(this.#delayMs, waitAbort.signal).then(
      () => {
        this.#pendingAbort = undefined;
        if (this.#state === 'wait') this.#attempt();
      },
      (reason: unknown) => {
        this.#pendingAbort = undefined;
        this.#fail(reason as Error);
      },
    );
  }

  /** The caller aborted (its signal, fetch's termination, a destroyed body, …). */
  abortByCaller(reason: Error): void {
    if (this.#callerAbort || this.#state === 'done') return;
    this.#callerAbort = reason;
    switch (this.#state) {
      case 'attempt':
        if (this.inner && !this.#starting) {
          // undici reports the abort back through the attempt's onResponseError, as without jitterbug.
          this.inner.abort(reason);
        } else {
          // Still connecting, or the caller aborted from its own onRequestStart (a signal aborted
          // before the request): this attempt wrote nothing, so it is not counted. Detached, it is
          // aborted as soon as undici starts it, and undici's report of that is ignored.
          this.#detach(reason);
          queueMicrotask(() => this.#abortRun(reason));
        }
        break;
      case 'delivered':
        this.inner?.abort(reason);
        break;
      case 'discard':
        this.#detach(reason);
        this.#run.abort(reason);
        queueMicrotask(() => this.#fail(reason));
        break;
      case 'preparing':
      case 'wait':
        this.#pendingAbort?.abort(reason);
        break;
      default:
        break;
    }
  }

  #fail(error: Error): void {
    if (this.#state === 'done') return;
    this.#state = 'done';
    this.#clearTimer();
    const summary = this.#run.summary;
    if (summary) setRetryInfo(error, summary);
    this.caller.onResponseError?.(this.#outer, error);
  }
}
