/**
 * A request while jitterbug runs it, and one attempt of it in flight: what the attempt loop and
 * the stream-mode attempts share, and the sending of an attempt or of one hedged copy of it.
 */
import { AttemptTimeoutError, type HeaderGetter } from '@jitterbug/core';
import { type AttemptTimer, asLayer, attemptTimer, marking, type RetryRun } from '@jitterbug/core/adapter';
import type { AxiosAdapter, AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import { withAbortReason } from './abort.ts';
import { AdapterResponse, type Attempt, failed } from './attempt.ts';
import { AxiosError, AxiosHeaders, isCancel } from './axios-values.ts';
import { type AttemptFieldValue, overrideAttemptFields, restoreFields } from './config-fields.ts';
import { errorResult, isStatusRejection, statusResult } from './outcome.ts';

/** One request's state (the request's transport holds it). */
export interface RequestContext {
  readonly config: InternalAxiosRequestConfig;
  /** The real adapter. */
  readonly adapter: AxiosAdapter;
  readonly run: RetryRun;
  /** The request's headers, as the core reads them. */
  readonly headers: HeaderGetter;
  /** The body to send on every attempt (a buffered stream's bytes, or `config.data`). */
  readonly data: unknown;
  /**
   * How jitterbug reads this request's bodies in stream mode; `undefined` when it never does (the
   * default, or an adapter whose stream it cannot read, or a `data:` URL).
   */
  readonly streamMode: StreamMode | undefined;
}

/** Stream mode for one kind of adapter (see `discardedBodyCap`). */
export interface StreamMode {
  /** What an attempt read in stream mode sets on the config for its duration. */
  readonly fields: readonly AttemptFieldValue[];
  /** The attempt for a response the adapter resolved with in stream mode. */
  attempt(ctx: RequestContext, sent: InFlight, response: AxiosResponse): Attempt | Promise<Attempt>;
}

/** One attempt in flight: the stream mode its body is read in (if any), its timer, the caller's signal. */
export interface InFlight {
  readonly streamMode: StreamMode | undefined;
  readonly timer: AttemptTimer | undefined;
  readonly callerSignal: InternalAxiosRequestConfig['signal'];
}

/**
 * An error as the caller gets it. The attempt timer's cancel becomes an `AxiosError` (so
 * `isAxiosError` holds) with code `ERR_JITTERBUG_ATTEMPT_TIMEOUT` and the core's
 * `AttemptTimeoutError` as `cause`.
 */
export const caughtError = (ctx: RequestContext, sent: InFlight, error: unknown): unknown =>
  sent.timer?.fired() && isCancel(error)
    ? AxiosError.from(
        new AttemptTimeoutError(ctx.run.options.attemptTimeoutMs!),
        undefined,
        ctx.config,
        (error as { request?: unknown }).request,
      )
    : withAbortReason(error, sent.callerSignal);

/** The attempt failed with `error` (already as the caller gets it). */
export const errorAttempt = (sent: InFlight, error: unknown): Attempt =>
  failed(errorResult(error, !sent.timer?.fired()), error);

/** The adapter rejected: a status `validateStatus` refused, or a failure. */
const rejectedAttempt = (ctx: RequestContext, sent: InFlight, caught: unknown): Attempt => {
  sent.timer?.stop();
  const error = caughtError(ctx, sent, caught);
  if (isStatusRejection(error))
    return failed(statusResult(error.response, ctx.run.options.discardBodyMaxBytes), error, error.response);
  return errorAttempt(sent, error);
};

/** The adapter resolved: its response as it is, or (stream mode) with its body still to read. */
const respondedAttempt = (
  ctx: RequestContext,
  sent: InFlight,
  response: AxiosResponse,
): Attempt | Promise<Attempt> => {
  if (sent.streamMode) return sent.streamMode.attempt(ctx, sent, response);
  sent.timer?.stop();
  return new AdapterResponse(response, ctx.run.options.discardBodyMaxBytes);
};

/** A copy's response or error carries the caller's config, not the copy's (as a single attempt's does). */
const ownedByCaller = (
  value: unknown,
  copy: InternalAxiosRequestConfig,
  config: InternalAxiosRequestConfig,
): void => {
  const carrier = value as { config?: unknown; response?: { config?: unknown } } | null | undefined;
  if (carrier?.config === copy) carrier.config = config;
  if (carrier?.response?.config === copy) carrier.response.config = config;
};

/**
 * Sends one copy of the request's attempt through the real adapter and translates what it settled
 * with; never rejects. A single attempt borrows the caller's config, its fields set for the attempt
 * and put back (see `config-fields.ts`). `cancel`: the copy is one of several (hedged, never in
 * stream mode), which the racer ends when another wins; it is sent with a config of its own (its
 * signal, its body and the headers an adapter may set), and the caller's is left as it is.
 */
export const sendCopy = async (
  ctx: RequestContext,
  streamMode: StreamMode | undefined,
  cancel?: AbortSignal,
): Promise<Attempt> => {
  const { config } = ctx;
  const timeoutMs = ctx.run.options.attemptTimeoutMs;
  // The caller's signal: while a single attempt runs, config.signal is the attempt timer's.
  const callerSignal = config.signal;
  // A hedged copy always gets a signal of its own: the caller's (which may be axios' generic one,
  // not an AbortSignal) through the timer, joined with the racer's cancel.
  const timer = timeoutMs === undefined && !cancel ? undefined : attemptTimer(timeoutMs, callerSignal);
  const sent: InFlight = { streamMode, timer, callerSignal };
  const copy: InternalAxiosRequestConfig | undefined = cancel && {
    ...config,
    headers: new AxiosHeaders(config.headers),
    data: ctx.data,
    signal: AbortSignal.any([timer!.signal, cancel]),
  };
  const saved = copy ? [] : overrideAttemptFields(config, ctx.data, timer?.signal, streamMode?.fields);
  try {
    const attemptConfig = copy ?? config;
    // Through a dispatcher composed with retryInterceptor (axios' fetch adapter over Node's fetch),
    // this layer alone retries (see the core's layer.ts).
    const response = await (marking()
      ? asLayer(() => ctx.adapter(attemptConfig))
      : ctx.adapter(attemptConfig));
    restoreFields(config, saved);
    if (copy) ownedByCaller(response, copy, config);
    return respondedAttempt(ctx, sent, response);
  } catch (caught) {
    // Putting the fields back twice (if reading the response threw) leaves them as they were.
    restoreFields(config, saved);
    if (copy) ownedByCaller(caught, copy, config);
    return rejectedAttempt(ctx, sent, caught);
  }
};
