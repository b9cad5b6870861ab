/**
 * One attempt sent as hedged copies (the run's `hedge` option) through the core's racer
 * (`Hedging.race`), each copy through the real adapter with a config of its own (its own signal,
 * headers and body); a losing copy is cancelled (its signal aborted, a stream body destroyed). Not in
 * stream mode (`capDiscardedBodies`): the loop sends those attempts once, so every attempt here is
 * one whose result is known at once.
 */
import type { Hedging } from '@jitterbug/core';
import type { AttemptResult } from '@jitterbug/core/adapter';
import { AxiosHeaders, type InternalAxiosRequestConfig } from 'axios';
import { listen, startAttemptTimer } from './abort.ts';
import type { Attempt } from './attempt.ts';
import { type InFlight, type RequestContext, rejectedAttempt, respondedAttempt } from './in-flight.ts';

/** A copy's response or error carries the caller's config, not the copy's (as the loop's attempts do). */
const own = (value: unknown, copy: InternalAxiosRequestConfig, config: InternalAxiosRequestConfig): void => {
  const carrier = value as { config?: unknown; response?: { config?: unknown } } | null | undefined;
  if (carrier?.config === copy) carrier.config = config;
  if (carrier?.response?.config === copy) carrier.response.config = config;
};

/** Sends hedged copies of one attempt; resolves with the winning copy's attempt (or the last failure). */
export const sendHedged = (ctx: RequestContext, hedging: Hedging, firstDelayMs: number): Promise<Attempt> => {
  const { run, config } = ctx;
  const callerSignal = config.signal;
  const timeoutMs = run.options.attemptTimeoutMs;
  return hedging.race<Attempt>(run, firstDelayMs, {
    send(_copy, cancel) {
      // The caller's signal may be axios' generic one (not an AbortSignal): it reaches the copy
      // through a controller of the copy's own.
      const callerCancel = new AbortController();
      const unlisten = callerSignal ? listen(callerSignal, () => callerCancel.abort()) : undefined;
      const timer = timeoutMs === undefined ? undefined : startAttemptTimer(timeoutMs, undefined);
      const sent: InFlight = { streamMode: false, timer, callerSignal };
      // Its own config: the fields the loop overrides per attempt (data, signal) and the headers an
      // adapter may set are the copy's; the caller's config is left as it is.
      const copyConfig: InternalAxiosRequestConfig = {
        ...config,
        headers: new AxiosHeaders(config.headers),
        data: ctx.data,
        signal: AbortSignal.any(
          timer ? [timer.signal, cancel, callerCancel.signal] : [cancel, callerCancel.signal],
        ),
      };
      // Not in stream mode, so an attempt's result is known at once.
      const answer = (attempt: Attempt) => {
        unlisten?.();
        return { answer: attempt, result: attempt.result() as AttemptResult };
      };
      return (async () => ctx.adapter(copyConfig))().then(
        (response) => {
          own(response, copyConfig, config);
          return answer(respondedAttempt(ctx, sent, response) as Attempt);
        },
        (caught: unknown) => {
          own(caught, copyConfig, config);
          return answer(rejectedAttempt(ctx, sent, caught));
        },
      );
    },
    drop: (attempt) => attempt.discard(),
    // Whether the caller cancelled the request (its signal or its token).
    cancelled: () =>
      !!callerSignal?.aborted ||
      (config.cancelToken as { reason?: unknown } | undefined)?.reason !== undefined,
  });
};
