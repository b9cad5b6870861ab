/**
 * The attempt loop of one request: it sends through the real adapter, translates, waits and hands
 * over; every decision is the run's. A hook of the caller's that throws or rejects fails the
 * request with its error; the caller's cancel ends a wait or a cooldown hold at once.
 */
import type { Decision } from '@jitterbug/core';
import {
  type AttemptResult,
  attemptMayRetry,
  awaitTurn,
  type RetryRun,
  setRetryInfo,
} from '@jitterbug/core/adapter';
import type { AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import { bufferRequestStream } from '#platform';
import { callerCancellation, type Linked, throwIfCancelled } from './abort.ts';
import type { Attempt } from './attempt.ts';
import { AxiosError } from './axios-values.ts';
import { type RequestContext, sendCopy } from './in-flight.ts';
import type { PreparedBody } from './request-body.ts';

/**
 * Ends the run as aborted (a run already finished, by a cooldown hold, stays as it is), after an
 * `onFinish` that returns a promise; its rejection is dropped: the caller's reason wins.
 */
const finishAborted = async (run: RetryRun, reason: unknown): Promise<void> => {
  const pending = run.abort(reason);
  if (pending) await pending.catch(() => undefined);
};

/**
 * Attaches the run's summary to an error the caller gets and to its config. A response gets it
 * through its config only (`getRetryInfo` reads a response through its `config`): one stamp on the
 * success path instead of two.
 */
const attachInfo = (run: RetryRun, target: unknown): void => {
  if (!run.summary) return;
  setRetryInfo(target, run.summary);
  const config = (target as { config?: unknown } | null)?.config;
  if (config) setRetryInfo(config, run.summary);
};

const attachResponseInfo = (
  run: RetryRun,
  response: AxiosResponse,
  config: InternalAxiosRequestConfig,
): void => {
  if (!run.summary) return;
  setRetryInfo(config, run.summary);
  // A custom adapter may answer without the request's config (axios adds none): then the response
  // gets the summary itself.
  if (response.config !== config) setRetryInfo(response, run.summary);
};

const waitBeforeRetry = async (ctx: RequestContext, delayMs: number): Promise<void> => {
  const cancellation = callerCancellation(ctx.config);
  try {
    await ctx.run.wait(delayMs, cancellation?.signal);
  } finally {
    cancellation?.dispose();
  }
};

/** Sends until the run stops; resolves or rejects with what the caller gets, carrying the summary. */
export const runRequest = async (ctx: RequestContext): Promise<AxiosResponse> => {
  const { run, config } = ctx;
  for (;;) {
    // The caller's cancel as a signal for a cooldown hold: made only if the attempt is held.
    let linked: Linked | undefined;
    const holdSource =
      config.signal || config.cancelToken
        ? {
            holdSignal: () => {
              linked ??= callerCancellation(config)!;
              return linked.signal;
            },
          }
        : undefined;
    try {
      throwIfCancelled(config);
      // Immediately before each send. Nearly always nothing to wait for; a promise while the origin
      // is in a cooldown, which resolves when `beforeAttempt` may be asked again, or rejects with
      // the caller's cancel or the run's `CooldownError` (the run then finished).
      const turn = awaitTurn(run, holdSource);
      if (turn) await turn;
    } catch (reason) {
      await finishAborted(run, reason);
      attachInfo(run, reason);
      throw reason;
    } finally {
      linked?.dispose();
    }
    // Only an attempt that could be retried is read in stream mode; any other is axios' own, untouched.
    const streamMode =
      ctx.streamMode && attemptMayRetry(run, ctx.requestHeaders) ? ctx.streamMode : undefined;
    // Hedged copies (the `hedge` option), not in stream mode: such an attempt is sent once. The
    // core's racer sends an attempt that is not hedged once too, timed for a percentile delay.
    const hedging = streamMode ? undefined : run.options.hedge;
    const attempt = hedging
      ? await hedging.race<Attempt>(run, hedging.delayFor(run, 1), {
          send: async (_copy, cancel) => {
            const answer = await sendCopy(ctx, undefined, cancel);
            // Not in stream mode, so the attempt's result is known at once.
            return { answer, result: answer.result() as AttemptResult };
          },
          drop: (answer) => answer.discard(),
          // Whether the caller cancelled the request (its signal or its token).
          cancelled: () => !!config.signal?.aborted || config.cancelToken?.reason !== undefined,
        })
      : await sendCopy(ctx, streamMode);
    let decision: Decision;
    try {
      const { status } = attempt;
      let pending: Decision | Promise<Decision> | undefined =
        status === undefined ? undefined : run.settle(status);
      if (pending === undefined) {
        const result = attempt.result();
        pending = run.next(result instanceof Promise ? await result : result);
      }
      decision = pending instanceof Promise ? await pending : pending;
    } catch (hookError) {
      // A hook of the caller's threw or rejected: the request fails with its error (the run ended
      // as hook-failed), which carries the summary.
      attempt.discard();
      attachInfo(run, hookError);
      throw hookError;
    }
    if (!decision.retry) {
      try {
        const finished = attempt.finish();
        const response = finished instanceof Promise ? await finished : finished;
        attachResponseInfo(run, response, config);
        return response;
      } catch (error) {
        attachInfo(run, error);
        throw error;
      }
    }
    attempt.discard();
    try {
      await waitBeforeRetry(ctx, decision.delayMs);
    } catch (reason) {
      attachInfo(run, reason);
      throw reason;
    }
  }
};

/** Buffers a stream request body that fits `bufferStreamBytes`, so that it can be sent again. */
export const prepareStreamBody = async (ctx: RequestContext): Promise<AxiosResponse> => {
  const { config, run } = ctx;
  let prepared: PreparedBody;
  const cancellation = callerCancellation(config);
  try {
    prepared = await bufferRequestStream(
      ctx.data as AsyncIterable<unknown>,
      run.options.bufferStreamBytes,
      cancellation?.signal,
    );
  } catch (cause) {
    if (cancellation?.signal.aborted) {
      // The caller's cancellation, as axios rejects with it; nothing was sent.
      await finishAborted(run, cause);
      attachInfo(run, cause);
      throw cause;
    }
    // What axios rejects with when a body stream fails during the upload. The run ends on it (a
    // hook that rejects fails the request with its own error instead).
    const error = AxiosError.from(cause as Error, undefined, config);
    const pending = run.next({ error });
    if (pending instanceof Promise) await pending;
    attachInfo(run, error);
    throw error;
  } finally {
    cancellation?.dispose();
  }
  if (prepared.replayable) run.body = 'replayable';
  return runRequest({ ...ctx, data: prepared.data });
};
