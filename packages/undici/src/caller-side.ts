/**
 * What the caller sees of a request, and the controller it holds: one `onRequestStart`, interim
 * answers as they come, at most one final response, its body — never longer than the response
 * declared (undici #4970: a `206` for 2 bytes that carries 70), nor ended short of it (undici 7 over
 * HTTP/2 takes an `RST_STREAM` `CANCEL` for the end) — then one end or one error carrying the run's
 * summary. One for the whole request, whichever attempt is current; the caller's pause, resume and
 * abort reach the request through it.
 */
import type { Duplex } from 'node:stream';
import type { RetryInfo } from '@jitterbug/core';
import { type RetryRun, setRetryInfo } from '@jitterbug/core/adapter';
import { declaredBodyBytes, ResponseLengthError } from './body-length.ts';
import { withInfoHeaders } from './info-headers.ts';
import { type StatusErrorClass, statusError } from './status-error.ts';
import type { BodySink, Controller, HeaderRecord, NewHandler } from './types.ts';

/** The adapter's settings for what the caller sees. */
export interface RequestSettings {
  /** The summary as headers of the response handed over. */
  readonly infoHeaders: boolean;
  /** Fail with this error class after a final retryable status instead of handing it over. */
  readonly statusError: StatusErrorClass | undefined;
}

/** Settings that add nothing to the response: for what follows one handed over already (a resume's rests). */
export const NO_SETTINGS: RequestSettings = { infoHeaders: false, statusError: undefined };

/** The request (or the resume handler above requests) behind what the caller sees. */
export interface CallerSideOwner {
  /** The controller of what is in flight now, if anything is: the caller's pause and resume go there. */
  readonly inner: Controller | null;
  /** The caller aborted, with this reason. */
  abortByCaller(reason: Error): void;
  /** The response handed over ended whole: the end goes to the caller next. */
  responseEnded(): void;
  /** The response failed with `error`; `open`: its attempt must still be aborted (its body ran long). */
  responseFailed(error: Error, open: boolean): void;
}

/** The controller the caller holds, and, once the response is handed over, where its body goes. */
export class CallerSide implements Controller, BodySink {
  declare rawHeaders: Controller['rawHeaders'];
  declare rawTrailers: Controller['rawTrailers'];
  /** Inside the caller's `onRequestStart`: an abort from there finds nothing written yet. */
  declare starting: boolean;
  /** The body length the response declared (-1: none), and the body bytes handed over. */
  declare declared: number;
  declare bytes: number;
  declare private readonly owner: CallerSideOwner;
  declare private readonly caller: NewHandler;
  declare private readonly settings: RequestSettings;
  /** `false` for a legacy caller, handed raw headers: a summary on the headers object would be lost. */
  declare private readonly tagHeaders: boolean;
  declare private started: boolean;
  declare private isAborted: boolean;
  declare private isPaused: boolean;
  declare private abortReason: unknown;

  constructor(owner: CallerSideOwner, caller: NewHandler, settings: RequestSettings, tagHeaders: boolean) {
    this.rawHeaders = null;
    this.rawTrailers = null;
    this.starting = false;
    this.declared = -1;
    this.bytes = 0;
    this.owner = owner;
    this.caller = caller;
    this.settings = settings;
    this.tagHeaders = tagHeaders;
    this.started = false;
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
    this.owner.inner?.pause();
  }

  resume(): void {
    this.isPaused = false;
    this.owner.inner?.resume();
  }

  abort(reason: Error): void {
    if (this.isAborted) return;
    this.isAborted = true;
    // undici's request() aborts without a reason when its body is destroyed (the body has the
    // caller's reason already): the request must still know it was aborted.
    const why = reason ?? new DOMException('This operation was aborted', 'AbortError');
    this.abortReason = why;
    this.owner.abortByCaller(why);
  }

  /** The caller's `onRequestStart`, once (`context`: undici's, when an attempt starts). */
  start(context: unknown): void {
    if (this.started) return;
    this.started = true;
    this.starting = true;
    try {
      this.caller.onRequestStart?.(this, context);
    } finally {
      this.starting = false;
    }
  }

  /** An interim answer (100 Continue, 103 Early Hints): the caller's as is. */
  interim(controller: Controller, statusCode: number, headers: HeaderRecord, statusMessage?: string): void {
    this.rawHeaders = controller.rawHeaders;
    try {
      this.caller.onResponseStart?.(this, statusCode, headers, statusMessage);
    } catch (error) {
      this.threw(error);
    }
  }

  /** An upgrade the request did not ask for (asked-for ones never get here): the caller's, as is. */
  upgrade(controller: Controller, statusCode: number, headers: HeaderRecord, socket: Duplex): void {
    this.rawHeaders = controller.rawHeaders;
    this.caller.onRequestUpgrade?.(this, statusCode, headers, socket);
  }

  /**
   * The error the caller gets instead of a final response, once it is drained: as undici's
   * RetryAgent, after a status whose retries are used up, when `throwOnRetryableStatus` is on.
   */
  refusal(run: RetryRun, status: number, headers: HeaderRecord): Error | undefined {
    const Class = this.settings.statusError;
    const decision = run.decision;
    return Class && decision?.retry === false && decision.gaveUp
      ? statusError(Class, status, headers, run.attempts)
      : undefined;
  }

  /** Hands the final response of `run` over, with the run's summary on it (as the options say). */
  respond(
    controller: Controller,
    statusCode: number,
    headers: HeaderRecord,
    statusMessage: string | undefined,
    run: RetryRun,
  ): void {
    const summary = run.summary;
    let raw = controller.rawHeaders;
    if (summary && this.settings.infoHeaders) ({ headers, raw } = withInfoHeaders(headers, raw, summary));
    if (summary && this.tagHeaders) setRetryInfo(headers, summary);
    this.rawHeaders = raw;
    this.declared = declaredBodyBytes(run.method, statusCode, headers);
    try {
      this.caller.onResponseStart?.(this, statusCode, headers, statusMessage);
    } catch (error) {
      this.threw(error);
    }
  }

  /** A chunk of the body: handed over, unless it would take the body past its declared length. */
  data(chunk: Buffer): void {
    const bytes = this.bytes + chunk.length;
    if (bytes > this.declared && this.declared !== -1) {
      this.owner.responseFailed(new ResponseLengthError(bytes, this.declared), true);
      return;
    }
    this.bytes = bytes;
    try {
      this.caller.onResponseData?.(this, chunk);
    } catch (error) {
      this.threw(error);
    }
  }

  /** The body's end: the caller's, unless it comes short of the declared length. */
  end(controller: Controller, trailers: HeaderRecord): void {
    if (this.bytes < this.declared) {
      this.owner.responseFailed(new ResponseLengthError(this.bytes, this.declared), false);
      return;
    }
    this.owner.responseEnded();
    this.rawTrailers = controller.rawTrailers;
    try {
      this.caller.onResponseEnd?.(this, trailers);
    } catch (error) {
      // As undici does: a handler that throws at the end gets that error (undici's RetryHandler
      // throws there to retry a status). Left to undici, it would reach an attempt that is over.
      this.caller.onResponseError?.(this, error as Error);
    }
  }

  error(error: Error): void {
    this.owner.responseFailed(error, false);
  }

  /**
   * A callback of the caller's threw: the request ends with that error, its attempt aborted, as
   * undici ends it. Thrown on, it would be lost where the response is handed over later than undici
   * delivered it (after a hook's promise): the caller would never hear of it.
   */
  private threw(error: unknown): void {
    this.owner.responseFailed(error as Error, true);
  }

  /** The request fails with `error`, which carries the run's summary. */
  fail(error: Error, summary: RetryInfo | undefined): void {
    if (summary) setRetryInfo(error, summary);
    this.caller.onResponseError?.(this, error);
  }
}
