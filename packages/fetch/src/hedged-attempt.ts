/**
 * One attempt sent as hedged copies through the core's racer (`run.raceCopies`): each copy is a fetch
 * of its own, with its own attempt timer, ended by the caller's signal or by another copy winning.
 * A losing answer is drained within `discardBodyMaxBytes` and cancelled, so its connection can be kept.
 */
import type { RetryRun } from '@jitterbug/core/adapter';
import { attemptSignal } from './attempt-signal.ts';
import type { Call, FetchFunction } from './call.ts';
import { discardBody } from './discard.ts';

/** An attempt that failed without a response, with the code the core should read (if any). */
export class Failed {
  declare readonly error: unknown;
  declare readonly code: string | undefined;
  constructor(error: unknown, code: string | undefined) {
    this.error = error;
    this.code = code;
  }
}

/** Sends hedged copies of the attempt; resolves with the winning answer (or the last failure). */
export const sendHedged = (
  send: FetchFunction,
  call: Call,
  run: RetryRun,
  timeoutMs: number | undefined,
  firstDelayMs: number,
  codeOf: (error: unknown) => string | undefined,
): Promise<Response | Failed> =>
  run.raceCopies<Response | Failed>(firstDelayMs, {
    send(_copy, cancel) {
      const timer = attemptSignal(timeoutMs, call.signal);
      const signal = AbortSignal.any([timer?.signal ?? call.signal ?? cancel, cancel]);
      const [input, init] = call.attempt(signal, true);
      // A fetch that throws instead of rejecting fails this copy (a later copy is sent from a timer,
      // where a throw would be uncaught).
      return new Promise<Response>((resolve) => resolve(send(input, init))).then(
        (response) => {
          timer?.stop();
          return { answer: response, result: { status: response.status } };
        },
        (error: unknown) => {
          timer?.stop();
          const code = codeOf(error);
          return { answer: new Failed(error, code), result: code ? { error, code } : { error } };
        },
      );
    },
    drop: (answer) => {
      if (!(answer instanceof Failed)) void discardBody(answer, run.options.discardBodyMaxBytes);
    },
    cancelled: () => call.signal?.aborted === true,
  });
