/**
 * One attempt sent as hedged copies: a copy goes out each time the run's hedge delay passes with no
 * answer, and the first copy whose answer settles the attempt wins; the others are cancelled (an
 * answer already in drained within `discardBodyMaxBytes`, so its connection can be kept). A copy's
 * retried failure (a 503, a reset) is dropped while another copy is still out.
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

/** Why a losing copy is cancelled. */
const lost = (): Error => new Error('jitterbug: another copy of this hedged request answered first');

/** Sends hedged copies of the attempt; resolves with the winning answer (or the last failure). */
export const sendHedged = (
  send: FetchFunction,
  call: Call,
  run: RetryRun,
  timeoutMs: number | undefined,
  firstDelayMs: number,
  codeOf: (error: unknown) => string | undefined,
): Promise<Response | Failed> =>
  new Promise((resolve) => {
    const cancels: AbortController[] = [];
    let pending = 0;
    let done = false;
    let hedgeTimer: ReturnType<typeof setTimeout> | undefined;

    // The window learns the request's time to its first answer, not the winning copy's own: a request
    // its hedge saved was still slow, and a window of winners' times never sees the slow mode, so its
    // percentile sits low and hedges more than it says (7 % of requests for 'p95' in `jitterbug-sim
    // tail --window`, against 5 % fed whole requests).
    const requestStartedAt = performance.now();
    const finish = (answer: Response | Failed, copy: number): void => {
      done = true;
      clearTimeout(hedgeTimer);
      cancels.forEach((cancel, i) => {
        if (i + 1 !== copy) cancel.abort(lost());
      });
      run.hedgeAnswered(copy, answer instanceof Failed ? undefined : performance.now() - requestStartedAt);
      resolve(answer);
    };

    const launch = (copy: number, delayMs: number | undefined): void => {
      const cancel = new AbortController();
      cancels.push(cancel);
      const timer = attemptSignal(timeoutMs, call.signal);
      const signal = AbortSignal.any([timer?.signal ?? call.signal ?? cancel.signal, cancel.signal]);
      const [input, init] = call.attempt(signal, true);
      pending++;
      send(input, init).then(
        (response) => {
          pending--;
          timer?.stop();
          if (done) void discardBody(response, run.options.discardBodyMaxBytes);
          else if (pending === 0 || run.settlesHedge({ status: response.status })) finish(response, copy);
          else void discardBody(response, run.options.discardBodyMaxBytes);
        },
        (error: unknown) => {
          pending--;
          timer?.stop();
          if (done) return;
          const code = codeOf(error);
          if (pending === 0 || call.signal?.aborted || run.settlesHedge(code ? { error, code } : { error })) {
            finish(new Failed(error, code), copy);
          }
        },
      );
      if (delayMs === undefined) return;
      hedgeTimer = setTimeout(() => {
        hedgeTimer = undefined;
        if (!done && run.startHedge(copy + 1)) launch(copy + 1, run.hedgeDelay(copy + 1));
      }, delayMs);
    };

    launch(1, firstDelayMs);
  });
