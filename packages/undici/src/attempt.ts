/**
 * One attempt of a request (one dispatch, or one hedged copy): undici's handler for it, the
 * controller undici gives it, and its `attemptTimeoutMs` timer. Its events reach the request only
 * while it is the request's current attempt (a detached, timed-out or losing attempt is no one's).
 * What it needs of that request is an interface ({@link AttemptOwner}), so that it does not import
 * the request's class (`retrying-request.ts`), which sends it.
 */
import type { Duplex } from 'node:stream';
import type { AttemptTimeoutError } from '@jitterbug/core';
import { asRetryLayer, type RetryRun, type Step, startTimer } from '@jitterbug/core/adapter';
import type { CallerSide } from './caller-side.ts';
import type { BodySink, Controller, Head, HeaderRecord, NewHandler } from './types.ts';
import { type Downstream, isUndiciRetryController, SENT_AGAIN } from './undici-retry.ts';

/** What an attempt's (or a hedged copy's) events reach, while it is its request's current attempt. */
export interface AttemptOwner {
  readonly run: RetryRun;
  /** The current attempt (`undefined` between attempts): only its events are the request's. */
  readonly current: Attempt | undefined;
  readonly caller: NewHandler;
  readonly outer: CallerSide;
  /** Where the current answer's body goes. */
  readonly sink: BodySink | undefined;
  readonly downstream: Downstream;
  /** Inside undici's dispatch call. */
  readonly sending: boolean;
  /** Its attempts ask for the rest of a body that broke (no problem body is read then). */
  readonly resuming: boolean;
  /** Dispatches `attempt` (again). */
  dispatch(attempt: Attempt): boolean;
  /** The caller's `onRequestStart`, once. */
  startCaller(context: unknown, controller?: Controller): void;
  attemptTimedOut(error: AttemptTimeoutError): void;
  /** What is below cannot send the request as composed: it fails with `error`. */
  refuse(error: TypeError): void;
  responseStart(
    controller: Controller,
    statusCode: number,
    headers: HeaderRecord,
    statusMessage?: string,
  ): void;
  /** A final answer's head, as every attempt's and copy's is held: checked, when it answers a rest's request. */
  head(controller: Controller, statusCode: number, headers: HeaderRecord, statusMessage?: string): Head;
  responseError(error: Error): void;
  /** The attempt was upgraded (the caller takes the socket). */
  requestUpgrade(controller: Controller, statusCode: number, headers: HeaderRecord, socket: Duplex): void;
  /** Tells the request's sequence a hedged copy's event (`event` tells it), one at a time. */
  raceEvent(event: () => Step): void;
}

/** The handler of one attempt, composed with the request it is for (its owner). */
export class Attempt implements NewHandler {
  declare protected readonly request: AttemptOwner;
  /** undici's controller for this attempt, once undici started it. */
  declare controller: Controller | null;
  /** Set when this attempt is over for us; if undici only starts it now, it is aborted at once. */
  declare protected abandonedBy: Error | undefined;
  /** Stops its `attemptTimeoutMs` timer, while it runs. */
  declare protected stopTimer: (() => void) | undefined;

  constructor(request: AttemptOwner) {
    this.request = request;
    this.controller = null;
    this.abandonedBy = undefined;
    this.stopTimer = undefined;
  }

  /** Starts its `attemptTimeoutMs` timer (none without one). */
  time(timeoutMs: number | undefined): void {
    if (timeoutMs === undefined) return;
    this.stopTimer = startTimer(timeoutMs, (error) => {
      this.stopTimer = undefined;
      this.timedOut(error);
    });
  }

  /** Stops its timer: it is over, or its answer is handed over. */
  untime(): void {
    const stop = this.stopTimer;
    if (stop !== undefined) {
      this.stopTimer = undefined;
      stop();
    }
  }

  protected timedOut(error: AttemptTimeoutError): void {
    if (this.request.current === this) this.request.attemptTimedOut(error);
  }

  /** Over for us: aborted (closing its connection) now, or as soon as undici starts it. */
  abandon(reason: Error): void {
    this.untime();
    this.abandonedBy = reason;
    const controller = this.controller;
    if (controller && !controller.aborted) controller.abort(reason);
  }

  onRequestStart(controller: Controller, context: unknown): void {
    this.controller = controller;
    if (this.abandonedBy) controller.abort(this.abandonedBy);
    else if (isUndiciRetryController(controller) && this.startedBelowRetry(controller)) return;
    else if (this.request.current === this) this.request.startCaller(context, controller);
  }

  /**
   * undici's retry handler below started this attempt, unwritten (`undici-retry.ts`): it goes on
   * (`false`) when told to pass everything on; else it is sent again so told, or the request is refused.
   */
  protected startedBelowRetry(controller: Controller): boolean {
    const verdict = this.request.downstream.started(this);
    if (verdict === 'go') return false;
    if (verdict === 'again') {
      this.controller = null;
      controller.abort(SENT_AGAIN);
      // Not from inside undici's own callback: the next dispatch may start at once.
      queueMicrotask(() => {
        if (this.abandonedBy === undefined) this.request.dispatch(this);
      });
    } else {
      this.request.refuse(verdict);
    }
    return true;
  }
  onResponseStarted(): void {
    if (this.request.current === this) this.request.caller.onResponseStarted?.();
  }
  onResponseStart(
    controller: Controller,
    statusCode: number,
    headers: HeaderRecord,
    statusMessage?: string,
  ): void {
    const request = this.request;
    if (request.current !== this) return;
    // Interim answers (100 Continue, 103 Early Hints) are not outcomes: the caller sees them as is.
    if (statusCode < 200) request.outer.interim(controller, statusCode, headers, statusMessage);
    else request.responseStart(controller, statusCode, headers, statusMessage);
  }
  // The body goes where the request's decision on the response sent it (`RetryingRequest.sink`).
  onResponseData(_controller: Controller, chunk: Buffer): void {
    if (this.request.current === this) this.request.sink?.data(chunk);
  }
  onResponseEnd(controller: Controller, trailers: HeaderRecord): void {
    if (this.request.current === this) this.request.sink?.end(controller, trailers);
  }
  onResponseError(_controller: Controller | null, error: Error): void {
    if (this.request.current === this && error !== SENT_AGAIN) this.request.responseError(error);
  }
  onRequestUpgrade(controller: Controller, statusCode: number, headers: HeaderRecord, socket: Duplex): void {
    if (this.request.current === this) this.request.requestUpgrade(controller, statusCode, headers, socket);
  }
  onRequestSent(): void {
    if (this.request.current === this) this.request.caller.onRequestSent?.();
  }
  onBodySent(chunk: Buffer): void {
    if (this.request.current === this) this.request.caller.onBodySent?.(chunk);
  }
}

// An attempt's handler is a jitterbug layer's: an interceptor below that gets it passes it through
// (see the core's layer.ts), so that only the outer one retries.
asRetryLayer(Attempt.prototype);
