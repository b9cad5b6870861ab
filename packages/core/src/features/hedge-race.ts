/**
 * The race of one attempt's hedged copies: a copy goes out each time the run's hedge delay passes
 * with no answer and the hedge budget has a token; the first copy whose answer settles the attempt
 * (`Hedging.settles`: anything but a retried failure) wins, or the last copy left; the others are
 * cancelled and their answers dropped. A copy's retried failure (a 503, a reset) is dropped while
 * another copy is still out.
 *
 * The rules are {@link HedgeRace}, a small state both drivers keep: the promise racer below (the
 * attempt loop's, for the fetch engine and axios) and undici's callbacks (`hedged-attempt.ts`).
 * Reached through the `Hedging` that `createHedging` returns, so that a program that never hedges
 * does not carry it.
 */
import { type EditableRequest, editAttempt } from '../attempt-edits.ts';
import type { AttemptResult, RetryRun } from '../run.ts';
import type { Hedging, HedgingRun } from './hedging.ts';

/** One attempt's race: what has been sent, and whether a copy has won. */
export class HedgeRace {
  declare private readonly hedging: Hedging;
  declare private readonly run: HedgingRun;
  /** Copies sent, numbered from 1. */
  declare sent: number;
  /** Copies sent that have not answered. */
  declare out: number;
  /** A copy won, or the caller gave up: nothing more is sent and every other answer is dropped. */
  declare over: boolean;
  /** Whether the server may have taken on a copy (one answered, or failed without proof that it did not). */
  declare processed: boolean;
  declare private startedAt: number;

  constructor(hedging: Hedging, run: HedgingRun) {
    this.hedging = hedging;
    this.run = run;
    this.sent = 0;
    this.out = 0;
    this.over = false;
    this.processed = false;
    this.startedAt = 0;
  }

  /** A copy is being sent: its number. */
  launch(): number {
    // The window learns the request's time to its first answer, not the winning copy's own: a request
    // its hedge saved was still slow, and a window of winners' times never sees the slow mode, so its
    // percentile sits low and hedges more than it says (7 % of requests for 'p95' in `jitterbug-sim
    // tail --window`, against 5 % fed whole requests).
    if (this.sent === 0) this.startedAt = performance.now();
    this.out++;
    return ++this.sent;
  }

  /** How long after the copy just sent another may follow; `undefined`: none will. */
  nextDelay(): number | undefined {
    return this.hedging.delayFor(this.run, this.sent);
  }

  /** The hedge delay passed with no answer: whether another copy goes (it took a hedge token). */
  due(callerGaveUp: boolean): boolean {
    return !this.over && !callerGaveUp && this.hedging.start(this.run, this.sent + 1);
  }

  /**
   * Copy `copy` answered with `result`: `true` when it wins the attempt (its answer is the attempt's),
   * `false` when it is dropped. `unprocessed`: the failure proves the server never had this copy.
   */
  answer(copy: number, result: AttemptResult, callerGaveUp: boolean, unprocessed = false): boolean {
    this.out--;
    const failed = !('status' in result);
    if (!unprocessed) this.processed = true;
    if (
      this.over ||
      !(this.out === 0 || (failed && callerGaveUp) || this.hedging.settles(this.run, result))
    ) {
      return false;
    }
    this.over = true;
    this.hedging.answered(this.run, copy, failed ? undefined : performance.now() - this.startedAt);
    return true;
  }
}

/** How the promise racer sends the copies of one attempt (the loop's transport does). */
export interface HedgedCopies<A> {
  /**
   * Sends a copy, which `cancel` ends when another copy wins; no `cancel` when it is the attempt's
   * only copy (no hedge delay): an ordinary attempt. A failure comes back as an answer; a rejection
   * (a `beforeRetry` of the caller's that failed) ends the race with it.
   */
  send(cancel?: AbortSignal): Promise<A>;
  /** How an answer ended, in the core's terms. */
  result(answer: A): AttemptResult | Promise<AttemptResult>;
  /** Releases the answer of a copy that lost, or a retried failure dropped while another copy is out. */
  discard(answer: A, maxBytes: number): void | Promise<void>;
  /** The caller's cancellation, once they cancelled: their failure then ends the race. */
  cancellation(): unknown;
}

/**
 * The copies of `run`'s hedged attempt, each after the first sent with what `beforeRetry` and the
 * attempt headers set for it, through `request` (the adapter's); `copies` when nothing is to be set.
 */
export const editedCopies = <A>(
  run: RetryRun,
  copies: HedgedCopies<A>,
  request: EditableRequest,
): HedgedCopies<A> => {
  if (!run.options.beforeRetry && !run.options.attemptHeaders) return copies;
  let sent = 0;
  return {
    send: async (cancel) => {
      if (sent++ > 0) {
        const editing = editAttempt(run, request, 'hedge');
        if (editing) await editing;
      }
      return copies.send(cancel);
    },
    result: (answer) => copies.result(answer),
    discard: (answer, maxBytes) => copies.discard(answer, maxBytes),
    cancellation: () => copies.cancellation(),
  };
};

/** Why a losing copy is cancelled. */
export const lost = (): Error => new Error('jitterbug: another copy of this hedged request answered first');

/**
 * Sends `run`'s attempt as hedged copies and resolves with the winning copy's answer. Without a hedge
 * delay the attempt is sent once, and still timed: a percentile delay learns from the attempts that
 * were not hedged too, or it would never have the latencies it needs to start.
 */
export const raceCopies = <A>(hedging: Hedging, run: HedgingRun, copies: HedgedCopies<A>): Promise<A> =>
  new Promise((resolve, reject) => {
    const race = new HedgeRace(hedging, run);
    const cancels: (AbortController | undefined)[] = [];
    let hedgeTimer: ReturnType<typeof setTimeout> | undefined;

    const gaveUp = (): boolean => copies.cancellation() !== undefined;
    const end = (winner: number, reason: unknown): void => {
      clearTimeout(hedgeTimer);
      cancels.forEach((cancel, i) => {
        if (i + 1 !== winner) cancel?.abort(reason);
      });
    };
    const settle = async (copy: number, answer: A): Promise<void> => {
      const result = await copies.result(answer);
      if (!race.answer(copy, result, gaveUp())) {
        void copies.discard(answer, run.options.discardBodyMaxBytes);
        return;
      }
      end(copy, lost());
      resolve(answer);
    };
    const fail = (error: unknown): void => {
      if (race.over) return;
      race.over = true;
      end(0, error);
      reject(error);
    };

    const launch = (): void => {
      const copy = race.launch();
      const delayMs = race.nextDelay();
      // The only copy there will be (no hedge delay) is an ordinary attempt: nothing cancels it.
      const cancel = copy === 1 && delayMs === undefined ? undefined : new AbortController();
      cancels.push(cancel);
      copies.send(cancel?.signal).then((answer) => settle(copy, answer), fail);
      if (delayMs === undefined) return;
      hedgeTimer = setTimeout(() => {
        hedgeTimer = undefined;
        if (race.due(gaveUp())) launch();
      }, delayMs);
    };

    launch();
  });
