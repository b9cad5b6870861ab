/**
 * The fetch attempt loop: one for every client that speaks `fetch` (`withRetry`, and ky through its
 * `fetch` option). It only sends, waits and translates; every decision is the run's.
 */
import type { Decision, Hedging } from '@jitterbug/core';
import { awaitTurn, bufferWebStream, maySendAgain, type RetryRun } from '@jitterbug/core/adapter';
import type { Call, FetchFunction } from './call.ts';
import { discardBody } from './discard.ts';
import { networkCode } from './network-code.ts';
import { copyArguments, Failed, sendCopy } from './send-copy.ts';
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
    read = await bufferWebStream(stream, max, call.signal ?? undefined);
  } catch (error) {
    // Nothing was sent. The caller's abort ends the run as aborted; a failing source as an error.
    if (call.signal?.aborted) await Promise.resolve(run.abort(error)).catch(() => undefined);
    else await run.next({ error });
    throw error;
  }
  if (read instanceof Uint8Array) {
    call.useBytes(read);
    run.body = 'replayable';
  } else {
    call.useStream(read);
  }
};

/**
 * Sends the attempt when the policy hedges: the core's racer sends it as hedged copies when the run
 * allows it (a losing answer is drained within `discardBodyMaxBytes` and cancelled), else once.
 */
const sendHedgeable = (
  send: FetchFunction,
  call: Call,
  run: RetryRun,
  hedging: Hedging,
): Promise<Response | Failed> =>
  hedging.race<Response | Failed>(run, hedging.delayFor(run, 1), {
    send: async (_copy, cancel) => {
      const answer = await sendCopy(send, call, run, cancel);
      return { answer, result: answer instanceof Failed ? answer : { status: answer.status } };
    },
    drop: (answer) => {
      if (!(answer instanceof Failed)) void discardBody(answer, run.options.discardBodyMaxBytes);
    },
    cancelled: () => call.signal?.aborted === true,
  });

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
  try {
    if (call.body === 'stream') await prepareBody(call, run);
    for (;;) {
      // An attempt the caller gave up on before it was sent is not counted.
      if (signal?.aborted) {
        await Promise.resolve(run.abort(signal.reason)).catch(() => undefined);
        throw signal.reason;
      }
      // An origin in a cooldown holds the attempt (in order, released with jitter) or refuses it.
      const turn = awaitTurn(run, signal ?? undefined);
      if (turn) await turn;
      const hedging = run.options.hedge;
      let sent: Response | Failed;
      if (hedging) sent = await sendHedgeable(send, call, run, hedging);
      else {
        // Awaited here rather than through sendCopy: one async function less on every request's path.
        const [input, init, timer] = copyArguments(call, run);
        try {
          sent = await send(input, init);
        } catch (error) {
          sent = new Failed(error, networkCode(error, call));
        } finally {
          timer?.stop();
        }
      }
      if (sent instanceof Failed) {
        const { error } = sent;
        const aborted = signal?.aborted === true;
        const code = aborted ? undefined : sent.code;
        const pending = run.next(code ? { error, code } : { error, aborted });
        const decision = pending instanceof Promise ? await pending : pending;
        if (!decision.retry) throw settings.finalError?.(error, call) ?? error;
        await run.wait(decision.delayMs, signal ?? undefined);
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
        const resume = run.options.resume;
        return resume
          ? resume.response(response, run, {
              signal: call.signal ?? undefined,
              send: (headers, signal) => sendCopy(send, call, run, signal, headers),
              discard: discardBody,
              codeOf: (error) => networkCode(error, call),
            })
          : response;
      }
      await discardBody(response, run.options.discardBodyMaxBytes);
      await run.wait(decision.delayMs, signal ?? undefined);
    }
  } catch (error) {
    // Whatever ends the call ends the run with it: a hook's error has finished it already; a request
    // fetch refuses before any attempt (an invalid header) is the caller's error, not retried. The
    // caller's error carries the summary.
    if (!run.summary) {
      await Promise.resolve(run.finish('error-not-retryable', undefined, error, false)).catch(
        () => undefined,
      );
    }
    throw tagged(error, run);
  }
};
