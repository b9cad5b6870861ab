/**
 * A request while jitterbug runs it, and one attempt of it in flight: what the attempt loop and
 * the stream-mode attempts share.
 */
import type { HeaderGetter } from '@jitterbug/core';
import type { RetryRun } from '@jitterbug/core/adapter';
import type { AxiosResponse } from 'axios';
import { type AxiosAdapter, type InternalAxiosRequestConfig, isCancel } from 'axios';
import { type AttemptTimer, attemptTimeoutError, withAbortReason } from './abort.ts';
import { AdapterResponse, type Attempt, failed } from './attempt.ts';
import { errorResult, isStatusRejection, statusResult } from './outcome.ts';

/** One request's state. */
export interface RequestContext {
  readonly config: InternalAxiosRequestConfig;
  /** The real adapter. */
  readonly adapter: AxiosAdapter;
  readonly run: RetryRun;
  readonly requestHeaders: HeaderGetter;
  /** The body to send on every attempt (a buffered stream's bytes, or `config.data`). */
  readonly data: unknown;
  /**
   * How jitterbug reads this request's bodies in stream mode; `undefined` when it never does (the
   * default, or an adapter whose stream it cannot read, or a `data:` URL).
   */
  readonly streamMode: StreamMode | undefined;
}

/** Stream mode for one kind of adapter (see `capDiscardedBodies`). */
export interface StreamMode {
  /** The attempt for a response the adapter resolved with in stream mode. */
  attempt(ctx: RequestContext, sent: InFlight, response: AxiosResponse): Attempt | Promise<Attempt>;
}

/** One attempt in flight: whether its body is read in stream mode, its timer, the caller's signal. */
export interface InFlight {
  readonly streamMode: boolean;
  readonly timer: AttemptTimer | undefined;
  readonly callerSignal: InternalAxiosRequestConfig['signal'];
}

/** An error as the caller gets it: the attempt timer's cancel becomes the attempt timeout error. */
export const caughtError = (ctx: RequestContext, sent: InFlight, error: unknown): unknown =>
  sent.timer?.fired() && isCancel(error)
    ? attemptTimeoutError(
        ctx.run.options.attemptTimeoutMs!,
        ctx.config,
        (error as { request?: unknown }).request,
      )
    : withAbortReason(error, sent.callerSignal);

/** The attempt failed with `error` (already as the caller gets it). */
export const errorAttempt = (sent: InFlight, error: unknown): Attempt =>
  failed(errorResult(error, !sent.timer?.fired()), error);

/** The adapter rejected: a status `validateStatus` refused, or a failure. */
export const rejectedAttempt = (ctx: RequestContext, sent: InFlight, caught: unknown): Attempt => {
  sent.timer?.dispose();
  const error = caughtError(ctx, sent, caught);
  if (isStatusRejection(error)) return failed(statusResult(error.response), error, error.response);
  return errorAttempt(sent, error);
};

/** The adapter resolved: its response as it is, or (stream mode) with its body still to read. */
export const respondedAttempt = (
  ctx: RequestContext,
  sent: InFlight,
  response: AxiosResponse,
): Attempt | Promise<Attempt> => {
  if (sent.streamMode) return ctx.streamMode!.attempt(ctx, sent, response);
  sent.timer?.dispose();
  return new AdapterResponse(response);
};
