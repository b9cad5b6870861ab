/**
 * Sending one copy of an attempt: the call's input and init for it, with its signal (the caller's,
 * joined with the attempt's own timer and, for a hedged copy, with the racer's cancel), and the
 * answer — a response, or the failure with the code the core should read.
 */
import type { RetryRun } from '@jitterbug/core/adapter';
import { attemptMayRetry, transparentRetryLeft } from '@jitterbug/core/adapter';
import { type AttemptSignal, attemptSignal } from './attempt-signal.ts';
import type { Call, FetchFunction, FetchInput } from './call.ts';
import { networkCode } from './network-code.ts';

/** An attempt that failed without a response, shaped as the core's report of it. */
export class Failed {
  declare readonly error: unknown;
  /** The code the core should read, when the error carries none of its own. */
  declare readonly code?: string;
  constructor(error: unknown, code: string | undefined) {
    this.error = error;
    if (code) this.code = code;
  }
}

/**
 * The arguments of one copy of `run`'s attempt, and its timer (stop it once the copy has an answer).
 * `cancel`: the copy is one of several (hedged), which the racer ends when another wins, or a
 * request for the rest of a body (`extra`: its `Range`, `If-Range`); the request then stays sendable
 * for the next one.
 */
export const copyArguments = (
  call: Call,
  run: RetryRun,
  cancel?: AbortSignal,
  extra?: Readonly<Record<string, string>>,
): [input: FetchInput, init: RequestInit | undefined, timer: AttemptSignal | undefined] => {
  const timer = attemptSignal(run.options.attemptTimeoutMs, call.signal);
  let signal = timer?.signal;
  if (cancel) {
    const own = signal ?? call.signal;
    signal = own ? AbortSignal.any([own, cancel]) : cancel;
  }
  const more = cancel !== undefined || attemptMayRetry(run, call.headers);
  const [input, init] = call.attempt(signal, more, extra, !more && transparentRetryLeft(run));
  return [input, init, timer];
};

/** Sends one copy of `run`'s attempt (see {@link copyArguments}); never rejects. */
export const sendCopy = async (
  send: FetchFunction,
  call: Call,
  run: RetryRun,
  cancel?: AbortSignal,
  extra?: Readonly<Record<string, string>>,
): Promise<Response | Failed> => {
  const [input, init, timer] = copyArguments(call, run, cancel, extra);
  try {
    return await send(input, init);
  } catch (error) {
    return new Failed(error, networkCode(error, call));
  } finally {
    timer?.stop();
  }
};
