/**
 * The race of one attempt's hedged copies: a copy goes out each time the run's hedge delay passes
 * with no answer and the hedge budget has a token; the first copy whose answer settles the attempt
 * (`HedgeRules.settles`: anything but a retried failure) wins, or the last copy left; the others are
 * cancelled and their answers dropped. A copy's retried failure (a 503, a reset) is dropped while
 * another copy is still out.
 *
 * The rules are {@link HedgeRace}, a small state the attempt sequence keeps for a hedged attempt
 * (hedging wraps the send, {@link HedgedSend}: the sequence asks for copies, and every driver sends
 * them the same way, undici's callbacks too, `hedged-attempt.ts`). For a promise driver,
 * {@link sendCopies} sends the copies the sequence asks for. Reached through the `Hedging` that
 * `createHedging` returns, so that a program that never hedges does not carry it.
 */
import type { EditableRequest, EditedRun } from '../attempt-edits.ts';
import { isThenable } from '../maybe-promise.ts';
import type { AttemptResult, Copies, DrivenSequence, Raced, RacedSend, RaceHost, Step } from '../steps.ts';
import type { RunView } from '../types.ts';

/**
 * What hedging asks of a run: public members only (a structural type, so that a `Hedging` from
 * another copy of the package type-checks against this copy's runs).
 */
export type HedgingRun = Pick<RunView, 'options' | 'method' | 'headers' | 'body' | 'attempts'>;

/** What a race asks of its hedging: the rules of the `Hedging` that `createHedging` made. */
export interface HedgeRules {
  /**
   * When another copy of `run`'s attempt may be sent, in ms after the last one was: `undefined` when
   * none will be (the request may not be sent twice, `copies` — those of this attempt sent so far —
   * are all allowed, or a percentile delay has too few latencies).
   */
  delayFor(run: HedgingRun, copies: number): number | undefined;
  /**
   * Takes a token for copy `copy` of `run`'s attempt, about to be sent (send it at once: subscribers
   * to `jitterbug:attempt:start` are told synchronously). `false`: the hedge budget is empty, send none.
   */
  start(run: HedgingRun, copy: number): boolean;
  /** Whether a copy's result settles a hedged attempt: anything but a failure that is retried. */
  settles(run: HedgingRun, result: AttemptResult): boolean;
  /**
   * Records which copy (1-based) answered `run`'s attempt, and the request's time to its first
   * answer (for the percentile), when known.
   */
  answered(run: HedgingRun, copy: number, latencyMs: number | undefined): void;
}

/** One attempt's race: what has been sent, and whether a copy has won. */
export class HedgeRace {
  declare private readonly hedging: HedgeRules;
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

  constructor(hedging: HedgeRules, run: HedgingRun) {
    this.hedging = hedging;
    this.run = run;
    this.sent = 0;
    this.out = 0;
    this.over = false;
    this.processed = false;
    this.startedAt = 0;
  }

  /** A copy is being sent (at `nowMs`, by the driver's clock: `performance.now()` by default): its number. */
  launch(nowMs?: number): number {
    // The window learns the request's time to its first answer, not the winning copy's own: a request
    // its hedge saved was still slow, and a window of winners' times never sees the slow mode, so its
    // percentile sits low and hedges more than it says (7 % of requests for 'p95' in `jitterbug-sim
    // tail --window`, against 5 % fed whole requests).
    if (this.sent === 0) this.startedAt = nowMs ?? performance.now();
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
   * Copy `copy` answered with `result` (at `nowMs`, by the clock `launch` was given): `true` when it
   * wins the attempt (its answer is the attempt's), `false` when it is dropped. `unprocessed`: the
   * failure proves the server never had this copy.
   */
  answer(
    copy: number,
    result: AttemptResult,
    callerGaveUp: boolean,
    unprocessed = false,
    nowMs?: number,
  ): boolean {
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
    this.hedging.answered(this.run, copy, failed ? undefined : (nowMs ?? performance.now()) - this.startedAt);
    return true;
  }
}

/**
 * The send of one hedged attempt, as steps of the attempt sequence: hedging wraps the send, and the
 * sequence hands this the events of the attempt's copies until one wins (`RaceHost.raceWon`). The
 * rules are the attempt's {@link HedgeRace}; this says which copy each step is about.
 */
export class HedgedSend implements RacedSend {
  declare private readonly race: HedgeRace;
  declare private readonly host: RaceHost;
  declare copy: number;
  declare hedgeMs: number | undefined;
  declare pending: PromiseLike<unknown> | undefined;
  /** The winning copy's result, once the others are to be ended (`won`). */
  declare private winner: AttemptResult | undefined;

  constructor(hedging: HedgeRules, host: RaceHost) {
    this.race = new HedgeRace(hedging, host);
    this.host = host;
    this.copy = 1;
    this.hedgeMs = undefined;
    this.pending = undefined;
    this.winner = undefined;
  }

  start(): Step {
    this.race.launch(this.host.clock());
    this.hedgeMs = this.race.nextDelay();
    // No hedge delay: one copy, sent as an ordinary attempt and still timed (a percentile delay learns
    // from the attempts that were not hedged too, or it would never have the latencies to start).
    return this.hedgeMs === undefined ? 'send' : 'race';
  }

  answered(copy: number, _status: number | undefined): Step {
    this.copy = copy;
    // A copy that lost, or one answering after the attempt was decided, is not wanted; any other
    // answer's result decides whether it wins.
    return this.race.over ? 'drop' : 'result';
  }

  done(result: AttemptResult): Step {
    const race = this.race;
    const host = this.host;
    const failed = !('status' in result);
    const unprocessed = failed && result.unprocessed === true;
    // Dropped: a retried failure, while another copy is out.
    if (!race.answer(this.copy, result, host.cancelled() !== undefined, unprocessed, host.clock())) {
      return 'drop';
    }
    // Unprocessed only if every copy was: none is left out that the server may have taken on.
    const won =
      unprocessed && !(race.out === 0 && !race.processed) ? { ...result, unprocessed: false } : result;
    if (this.hedgeMs === undefined && race.sent === 1) return host.raceWon(won);
    this.winner = won;
    return 'won';
  }

  failed(error: unknown): Step {
    this.race.over = true;
    return this.host.raceFailed(error);
  }

  due(): Step {
    const race = this.race;
    const host = this.host;
    if (race.over || !race.due(host.cancelled() !== undefined)) return 'idle';
    race.launch(host.clock());
    this.copy = race.sent;
    this.hedgeMs = race.nextDelay();
    this.pending = undefined;
    let editing: unknown;
    try {
      editing = host.raceEdits();
    } catch (error) {
      return this.failed(error);
    }
    if (isThenable(editing)) this.pending = editing;
    return 'send';
  }

  proceed(): Step {
    const won = this.winner;
    if (won === undefined) return 'idle';
    this.winner = undefined;
    return this.host.raceWon(won);
  }

  end(): void {
    this.race.over = true;
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
 * A hook that throws or rejects fails the copy's send, and so the race, with its error.
 */
export const editedCopies = <A>(
  run: EditedRun,
  copies: HedgedCopies<A>,
  request: EditableRequest,
): HedgedCopies<A> => {
  const { edits } = run.options;
  if (!edits || (!run.options.beforeRetry && !run.options.feature.attemptHeaders)) return copies;
  let sent = 0;
  return {
    send: async (cancel) => {
      if (sent++ > 0) {
        const editing = edits.apply(run, request, 'hedge');
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
export const raceCopies = <A>(hedging: HedgeRules, run: HedgingRun, copies: HedgedCopies<A>): Promise<A> =>
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

/**
 * Sends the copies of `run`'s hedged attempt as the sequence says (`race`, `due`, `send`, `answered`,
 * `won`), for a promise driver: each copy after the first once its edits are made
 * (`pending`), each with a cancel of its own; once one wins, or the request fails, the others are
 * cancelled and their answers dropped. Resolves with the step after the race.
 */
export const sendCopies = <A>(run: DrivenSequence, copies: Copies<A>): Promise<Raced<A>> =>
  new Promise((resolve) => {
    const answers: (A | undefined)[] = [];
    const cancels: AbortController[] = [];
    const queue: (() => Step)[] = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    let over = false;
    let busy = true;

    const end = (winner: number, reason: unknown, raced: Raced<A>): void => {
      over = true;
      clearTimeout(timer);
      cancels.forEach((cancel, i) => {
        if (i + 1 !== winner) cancel.abort(reason);
      });
      resolve(raced);
    };
    // Runs the steps of one event; a throw of the sequence's fails the request.
    const run1 = (event: () => Step): void => {
      try {
        go(event());
      } catch (error) {
        end(0, error, { step: 'fail', answer: undefined, thrown: { error } });
      }
    };
    // One event at a time (steps.ts): one that comes while a step is being done waits its turn.
    const tell = (event: () => Step): void => {
      if (over) return;
      if (busy) {
        queue.push(event);
        return;
      }
      busy = true;
      run1(event);
    };
    const go = (first: Step): void => {
      let step = first;
      for (;;) {
        if (step === 'send' || step === 'race') {
          launch(run.copy, run.pending, run.hedgeMs);
          step = 'idle';
        } else if (step === 'idle') {
          const event = queue.shift();
          if (event === undefined) {
            busy = false;
            return;
          }
          step = event();
        } else if (step === 'result') {
          const result = copies.result(answers[run.copy]!);
          if (!(result instanceof Promise)) {
            step = run.done(result);
            continue;
          }
          result.then(
            (value) => run1(() => run.done(value)),
            (error: unknown) => run1(() => run.failed(error)),
          );
          return;
        } else if (step === 'drop') {
          void copies.discard(answers[run.copy]!, run.maxBytes);
          step = run.proceed();
        } else if (step === 'won') {
          const copy = run.copy;
          over = true;
          end(copy, lost(), { step: run.proceed(), answer: answers[copy] });
          return;
        } else {
          // The request fails (a copy's `beforeRetry` failed), or the run ended another way.
          end(0, run.error ?? lost(), { step, answer: answers[run.copy] });
          return;
        }
      }
    };
    const launch = (copy: number, pending: PromiseLike<unknown> | undefined, hedgeMs: number | undefined) => {
      const cancel = new AbortController();
      cancels[copy - 1] = cancel;
      const send = (): void => {
        if (over) return;
        void copies.send(cancel.signal).then((answer) => {
          if (over) {
            void copies.discard(answer, run.options.discardBodyMaxBytes);
            return;
          }
          answers[copy] = answer;
          tell(() => run.answered(copy, copies.status(answer)));
        });
      };
      if (pending === undefined) send();
      else pending.then(send, (error: unknown) => tell(() => run.failed(error)));
      if (hedgeMs !== undefined) {
        timer = setTimeout(() => {
          timer = undefined;
          tell(() => run.due());
        }, hedgeMs);
      }
    };

    run1(() => 'race');
  });
