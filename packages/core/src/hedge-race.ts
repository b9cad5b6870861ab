/**
 * The race of one attempt's hedged copies, for the adapters that send whole attempts (the fetch
 * engine, so `withRetry` and ky, and axios): a copy goes out each time the run's hedge delay passes
 * with no answer and the hedge budget has a token; the first copy whose answer settles the attempt
 * (`Hedging.settles`: anything but a retried failure) wins, or the last copy left; the others are
 * cancelled and their answers dropped. A copy's retried failure (a 503, a reset) is dropped while
 * another copy is still out. The adapter sends a copy and says what came back; it is reached through
 * the `Hedging` that `createHedging` returns, so that a program that never hedges does not carry it.
 */
import type { Hedging, HedgingRun } from './hedge.ts';
import type { AttemptResult } from './policy.ts';

/** How an adapter sends the copies of one attempt. */
export interface HedgedCopies<A> {
  /**
   * Sends copy `copy` (1-based), which `cancel` ends when another copy wins; no `cancel` when it is
   * the attempt's only copy (no hedge delay): an ordinary attempt. Never rejects: a failure comes
   * back as an answer, with its `result` (`{ error, code? }`).
   */
  send(
    copy: number,
    cancel: AbortSignal | undefined,
  ): Promise<{ readonly answer: A; readonly result: AttemptResult }>;
  /** Releases the answer of a copy that lost, or a retried failure dropped while another copy is out. */
  drop(answer: A): void;
  /** Whether the caller gave up: its failure then ends the race, and no further copy is sent. */
  cancelled(): boolean;
}

/** Why a losing copy is cancelled. */
const lost = (): Error => new Error('jitterbug: another copy of this hedged request answered first');

/**
 * Sends hedged copies of the run's attempt; resolves with the winning copy's answer. Without a first
 * delay the attempt is sent once, and still timed: a percentile delay learns from the attempts that
 * were not hedged too, or it would never have the latencies it needs to start.
 */
export const raceCopies = <A>(
  hedging: Hedging,
  run: HedgingRun,
  firstDelayMs: number | undefined,
  copies: HedgedCopies<A>,
): Promise<A> =>
  new Promise((resolve) => {
    const cancels: (AbortController | undefined)[] = [];
    let pending = 0;
    let done = false;
    let hedgeTimer: ReturnType<typeof setTimeout> | undefined;
    // The window learns the request's time to its first answer, not the winning copy's own: a request
    // its hedge saved was still slow, and a window of winners' times never sees the slow mode, so its
    // percentile sits low and hedges more than it says (7 % of requests for 'p95' in `jitterbug-sim
    // tail --window`, against 5 % fed whole requests).
    const startedAt = performance.now();

    const settle = (copy: number, answer: A, result: AttemptResult): void => {
      pending--;
      const failed = !('status' in result);
      if (done || !(pending === 0 || (failed && copies.cancelled()) || hedging.settles(run, result))) {
        copies.drop(answer);
        return;
      }
      done = true;
      clearTimeout(hedgeTimer);
      cancels.forEach((cancel, i) => {
        if (i + 1 !== copy) cancel?.abort(lost());
      });
      hedging.answered(run, copy, failed ? undefined : performance.now() - startedAt);
      resolve(answer);
    };

    const launch = (copy: number, delayMs: number | undefined): void => {
      // The only copy there will be (no hedge delay) is an ordinary attempt: nothing cancels it.
      const cancel = copy === 1 && delayMs === undefined ? undefined : new AbortController();
      cancels.push(cancel);
      pending++;
      void copies.send(copy, cancel?.signal).then(({ answer, result }) => settle(copy, answer, result));
      if (delayMs === undefined) return;
      hedgeTimer = setTimeout(() => {
        hedgeTimer = undefined;
        if (!done && !copies.cancelled() && hedging.start(run, copy + 1))
          launch(copy + 1, hedging.delayFor(run, copy + 1));
      }, delayMs);
    };

    launch(1, firstDelayMs);
  });
