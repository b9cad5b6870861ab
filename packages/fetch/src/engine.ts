/**
 * The fetch attempt loop: one for every client that speaks `fetch` (`withRetry`, and ky through its
 * `fetch` option). It only sends, waits and translates; every decision is the run's.
 */
import type { Decision } from '@jitterbug/core';
import { attemptMayRetry, maySendAgain, type RetryRun, transparentRetryLeft } from '@jitterbug/core/adapter';
import { attemptSignal } from './attempt-signal.ts';
import { awaitTurn } from './await-turn.ts';
import type { Call, FetchFunction } from './call.ts';
import { discardBody } from './discard.ts';
import { Failed, sendHedged } from './hedged-attempt.ts';
import { networkCode } from './network-code.ts';
import { readUpTo } from './read-body.ts';
import { resumable } from './resumable-body.ts';
import { tagged } from './tagged.ts';

/** How a client on the engine differs from plain fetch. */
export interface EngineSettings {
  /** The error the caller gets for one the last attempt ended with (ky: its own `TimeoutError`). */
  readonly finalError?: ((error: unknown, call: Call) => unknown) | undefined;
}

/**
 * Reads a stream body into memory when it fits `bufferStreamBytes` and a retry is possible at all;
 * past the limit the part read and the unread rest are sent once, in order.
 */
const prepareBody = async (call: Call, run: RetryRun): Promise<void> => {
  const stream = call.streamBody();
  const max = run.options.bufferStreamBytes;
  if (!stream || max <= 0 || !maySendAgain(run.options, run.method, call.headers)) return;
  let read: Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array>;
  try {
    read = await readUpTo(stream, max, call.signal);
  } catch (error) {
    // Nothing was sent. The caller's abort ends the run as aborted; a failing source as an error.
    if (call.signal?.aborted) await Promise.resolve(run.abort(error)).catch(() => undefined);
    else await run.next({ error });
    throw tagged(error, run);
  }
  if (read instanceof Uint8Array) {
    call.useBytes(read);
    run.body = 'replayable';
  } else {
    call.useStream(read);
  }
};

/** Sends one attempt (not hedged); a failure comes back as `Failed`, a response as it is. */
const sendOnce = async (
  send: FetchFunction,
  call: Call,
  run: RetryRun,
  timeoutMs: number | undefined,
): Promise<Response | Failed> => {
  const timer = attemptSignal(timeoutMs, call.signal);
  const more = attemptMayRetry(run, call.headers);
  const [input, init] = call.attempt(timer?.signal, more, undefined, !more && transparentRetryLeft(run));
  // A percentile hedge delay learns from the attempts that were not hedged too.
  const startedAt = run.options.hedge ? performance.now() : 0;
  try {
    const response = await send(input, init);
    if (startedAt) run.hedgeAnswered(1, performance.now() - startedAt);
    return response;
  } catch (error) {
    return new Failed(error, networkCode(error, call));
  } finally {
    timer?.stop();
  }
};

/** Waits before the next attempt; the caller's abort ends the call with its reason. */
const backOff = async (run: RetryRun, call: Call, delayMs: number): Promise<void> => {
  try {
    await run.wait(delayMs, call.signal ?? undefined);
  } catch (reason) {
    throw tagged(reason, run);
  }
};

/**
 * Sends `call` until the run stops, and resolves with the final response or rejects with the final
 * error, each carrying the run's summary (`getRetryInfo`). A retried response is discarded (its
 * body drained within `discardBodyMaxBytes`, then cancelled); the waits are the run's, ended at once
 * by the caller's signal.
 */
export const execute = async (
  send: FetchFunction,
  call: Call,
  run: RetryRun,
  settings: EngineSettings = {},
): Promise<Response> => {
  const { signal } = call;
  if (call.body === 'stream') await prepareBody(call, run);
  for (;;) {
    // An attempt the caller gave up on before it was sent is not counted.
    if (signal?.aborted) {
      await Promise.resolve(run.abort(signal.reason)).catch(() => undefined);
      throw tagged(signal.reason, run);
    }
    // An origin in a cooldown holds the attempt (in order, released with jitter) or refuses it.
    const turn = awaitTurn(run, signal ?? undefined);
    if (turn) await turn;
    const timeoutMs = run.options.attemptTimeoutMs;
    const hedgeMs = run.hedgeDelay(1);
    const sent =
      hedgeMs === undefined
        ? await sendOnce(send, call, run, timeoutMs)
        : await sendHedged(send, call, run, timeoutMs, hedgeMs, (error) => networkCode(error, call));
    if (sent instanceof Failed) {
      const { error } = sent;
      const aborted = signal?.aborted === true;
      const code = aborted ? undefined : sent.code;
      const pending = run.next(code ? { error, code } : { error, aborted });
      const decision = pending instanceof Promise ? await pending : pending;
      if (!decision.retry) throw tagged(settings.finalError?.(error, call) ?? error, run);
      await backOff(run, call, decision.delayMs);
      continue;
    }
    const response = sent;
    let decision: Decision;
    try {
      const status = response.status;
      const pending =
        run.settle(status) ?? run.next({ status, headers: (name) => response.headers.get(name), response });
      decision = pending instanceof Promise ? await pending : pending;
    } catch (hookError) {
      // A hook of the caller's failed: the request fails with its error, and the response is dropped.
      void discardBody(response, 0);
      throw hookError;
    }
    if (!decision.retry) {
      tagged(response, run);
      // Opt-in: a body that may break gets a stream of its own, which asks for the rest if it does.
      return run.options.resume ? resumable(response, { send, call, run, timeoutMs }) : response;
    }
    await discardBody(response, run.options.discardBodyMaxBytes);
    await backOff(run, call, decision.delayMs);
  }
};
