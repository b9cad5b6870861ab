/**
 * The handlers of attempts: each routes undici's events for its attempt to the request, only while
 * it is the request's current attempt (a detached, timed-out or losing attempt is no one's).
 */
import type { Duplex } from 'node:stream';
import type { RetryingRequest } from './retrying-request.ts';
import type { Controller, HeaderRecord, NewHandler } from './types.ts';

/**
 * The handler of one attempt: its events reach the request only while it is the current attempt.
 * The first attempt's handler is the {@link RetryingRequest} itself (one object and one call fewer on
 * every request's success path, which runs with cold caches in a real client and pays for every
 * object and call it touches: `bench/profiling.md`); each retry gets an {@link AttemptHandler}.
 */
export abstract class AttemptEvents implements NewHandler {
  /** The request these events are for. */
  declare protected request: RetryingRequest;
  /** Set when this attempt is over for us; if undici only starts it now, it is aborted at once. */
  declare protected abandonedBy: Error | undefined;

  abandon(reason: Error): void {
    this.abandonedBy = reason;
  }

  onRequestStart(controller: Controller, context: unknown): void {
    if (this.abandonedBy) controller.abort(this.abandonedBy);
    else if (this.request.current === this) this.request.requestStart(controller, context);
  }
  onResponseStarted(): void {
    // The answer for the rest of a resumed body is not a response of the caller's.
    if (this.request.current === this && !this.request.resumable?.resuming)
      this.request.caller.onResponseStarted?.();
  }
  onResponseStart(
    controller: Controller,
    statusCode: number,
    headers: HeaderRecord,
    statusMessage?: string,
  ): void {
    if (this.request.current === this)
      this.request.responseStart(controller, statusCode, headers, statusMessage);
  }
  onResponseData(controller: Controller, chunk: Buffer): void {
    if (this.request.current === this) this.request.responseData(controller, chunk);
  }
  onResponseEnd(controller: Controller, trailers: HeaderRecord): void {
    if (this.request.current === this) this.request.responseEnd(controller, trailers);
  }
  onResponseError(_controller: Controller | null, error: Error): void {
    if (this.request.current === this) this.request.responseError(error);
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

/** The handler of a retry attempt. */
export class AttemptHandler extends AttemptEvents {
  constructor(request: RetryingRequest) {
    super();
    this.request = request;
    this.abandonedBy = undefined;
  }
}
