/**
 * What an attempt (`attempt.ts`) and the copies of a hedged one (`hedged-attempt.ts`) need of the
 * request they are sent for: interfaces, so that neither imports the request's class
 * (`retrying-request.ts`), which sends them.
 */
import type { Duplex } from 'node:stream';
import type { AttemptTimeoutError } from '@jitterbug/core';
import type { RetryRun, Step } from '@jitterbug/core/adapter';
import type { CallerSide } from './caller-side.ts';
import type { BodySink, Controller, HeaderRecord, NewHandler } from './types.ts';
import type { Downstream } from './undici-retry.ts';

/** An attempt as its request holds it: undici's handler for one dispatch, with its timer. */
export interface SentAttempt extends NewHandler {
  /** undici's controller for this attempt, once undici started it. */
  readonly controller: Controller | null;
  /** Starts its `attemptTimeoutMs` timer (none without one). */
  time(timeoutMs: number | undefined): void;
  /** Stops its timer. */
  untime(): void;
  /** Over for us: aborted now, or as soon as undici starts it. */
  abandon(reason: Error): void;
  /** The attempt failed (a dispatch that threw fails it so). */
  onResponseError(controller: Controller | null, error: Error): void;
}

/** What an attempt's events reach, while it is its request's current attempt. */
export interface AttemptOwner {
  /** The request's run. */
  readonly run: RetryRun;
  /** The current attempt (`undefined` between attempts): only its events are the request's. */
  readonly current: SentAttempt | undefined;
  /** The caller's handler. */
  readonly caller: NewHandler;
  /** What the caller sees. */
  readonly outer: CallerSide;
  /** Where the current answer's body goes. */
  readonly sink: BodySink | undefined;
  /** Where attempts are dispatched. */
  readonly downstream: Downstream;
  /** Dispatches `attempt` (again). */
  dispatch(attempt: SentAttempt): boolean;
  /** The caller's `onRequestStart`, once. */
  startCaller(context: unknown, controller?: Controller): void;
  /** The current attempt ran past `attemptTimeoutMs`. */
  attemptTimedOut(error: AttemptTimeoutError): void;
  /** What is below cannot send the request as composed: it fails with `error`. */
  refuse(error: TypeError): void;
  /** A final response's head. */
  responseStart(
    controller: Controller,
    statusCode: number,
    headers: HeaderRecord,
    statusMessage?: string,
  ): void;
  /** The current attempt failed. */
  responseError(error: Error): void;
  /** The attempt was upgraded (the caller takes the socket). */
  requestUpgrade(controller: Controller, statusCode: number, headers: HeaderRecord, socket: Duplex): void;
}

/** What the copies of a hedged attempt need of their request, besides an attempt's. */
export interface HedgeOwner extends AttemptOwner {
  /** Inside undici's dispatch call. */
  readonly sending: boolean;
  /** Its attempts ask for the rest of a body that broke (no problem body is read then). */
  readonly resuming: boolean;
  /** Tells the request's sequence a copy's event (`event` tells it), one at a time. */
  raceEvent(event: () => Step): void;
}
