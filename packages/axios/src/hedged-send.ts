/**
 * One attempt sent as hedged copies (the run's `hedge` option): a copy goes out each time the run's
 * hedge delay passes with no answer and `run.startHedge` agrees, each through the real adapter with
 * a config of its own (its own signal, headers and body); the first copy whose answer settles the
 * attempt (`run.settlesHedge`) wins, or the last one left; the others are cancelled (their signal
 * aborted, a stream body destroyed). A copy's retried failure (a 503, a reset) is dropped while
 * another copy is still out. Not in stream mode (`capDiscardedBodies`): the loop sends those
 * attempts once, so every attempt here is one whose result is known at once.
 */
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
export const sendHedged = (ctx: RequestContext, firstDelayMs: number): Promise<Attempt> =>
  new Promise((resolve) => {
    const { run, config } = ctx;
    const callerSignal = config.signal;
    const timeoutMs = run.options.attemptTimeoutMs;
    // Whether the caller cancelled the request (its signal or its token).
    const cancelled = (): boolean =>
      !!callerSignal?.aborted ||
      (config.cancelToken as { reason?: unknown } | undefined)?.reason !== undefined;
    const cancels: AbortController[] = [];
    let pending = 0;
    let done = false;
    let hedgeTimer: ReturnType<typeof setTimeout> | undefined;
    // The window learns the request's time to its first answer, from the first copy's start (as the
    // fetch engine), not the winning copy's own.
    const startedAt = performance.now();

    const launch = (copy: number, delayMs: number | undefined): void => {
      const cancel = new AbortController();
      cancels.push(cancel);
      const unlisten = callerSignal ? listen(callerSignal, () => cancel.abort()) : undefined;
      // This copy's own attempt timer; the caller's cancel reaches the copy through `cancel`.
      const timer = timeoutMs === undefined ? undefined : startAttemptTimer(timeoutMs, undefined);
      const sent: InFlight = { streamMode: false, timer, callerSignal };
      // Its own config: the fields the loop overrides per attempt (data, signal) and the headers an
      // adapter may set are the copy's; the caller's config is left as it is.
      const copyConfig: InternalAxiosRequestConfig = {
        ...config,
        headers: new AxiosHeaders(config.headers),
        data: ctx.data,
        signal: timer ? AbortSignal.any([timer.signal, cancel.signal]) : cancel.signal,
      };
      const settle = (attempt: Attempt): void => {
        pending--;
        unlisten?.();
        if (
          !done &&
          (pending === 0 ||
            (attempt.status === undefined && cancelled()) ||
            run.settlesHedge(attempt.result() as AttemptResult))
        ) {
          done = true;
          clearTimeout(hedgeTimer);
          cancels.forEach((other, i) => {
            if (i + 1 !== copy) other.abort();
          });
          run.hedgeAnswered(copy, attempt.status === undefined ? undefined : performance.now() - startedAt);
          resolve(attempt);
        } else {
          // A loser, or a retried failure while another copy is out.
          attempt.discard();
        }
      };
      pending++;
      (async () => ctx.adapter(copyConfig))().then(
        (response) => {
          own(response, copyConfig, config);
          settle(respondedAttempt(ctx, sent, response) as Attempt);
        },
        (caught: unknown) => {
          own(caught, copyConfig, config);
          settle(rejectedAttempt(ctx, sent, caught));
        },
      );
      if (delayMs === undefined) return;
      hedgeTimer = setTimeout(() => {
        if (!done && !cancelled() && run.startHedge(copy + 1)) launch(copy + 1, run.hedgeDelay(copy + 1));
      }, delayMs);
    };

    launch(1, firstDelayMs);
  });
