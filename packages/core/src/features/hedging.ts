/**
 * Hedged requests (Dean and Barroso, "The Tail at Scale"; gRPC's hedging policy): when an attempt
 * has had no answer after a delay, another copy is sent, and the first final answer wins. Only for
 * requests that may be sent twice (a retried method or an idempotency key, a replayable body), with
 * a budget of their own so that a slow server under load is not hit harder.
 */
import { channels, observed } from '#diagnostics';
import type { EditableRequest, EditedRun } from '../attempt-edits.ts';
import { methodAllowsRetry, retryableResult } from '../decide.ts';
import { fail, fieldsOf, given, numberIn } from '../option-error.ts';
import type { RunView } from '../types.ts';
import { createRetryBudget, type RetryBudget } from './budget.ts';
import { branded, isFeature, perRun, type RunFeature } from './feature.ts';
import {
  editedCopies,
  type HedgedCopies,
  HedgedSend,
  HedgeRace,
  type HedgeRules,
  type HedgingRun,
  raceCopies,
  sendCopies,
} from './hedge-race.ts';

export type { HedgingRun } from './hedge-race.ts';

import { createLatencyWindow, type LatencyWindow } from './latency-window.ts';

/** The `hedge` option. */
export interface HedgeOptions {
  /**
   * When to send another copy: a fixed delay in ms, or a percentile of the recent attempts' time to
   * their response headers, as `'p95'` (no hedging until 20 latencies have been seen).
   */
  readonly delayMs: number | `p${number}`;
  /** Copies of an attempt in flight at most, counting the first. Default 2. */
  readonly maxCopies?: number;
  /**
   * Extra requests hedges may add, as a share of requests: a token bucket like the retry budget
   * (one token per hedge, this much per request, at most ten tokens held). Default 0.05.
   */
  readonly ratio?: number;
}

/**
 * Hedging made by {@link createHedging}: its settings and the state the requests that use it share
 * (their latencies, for a percentile, and the hedge budget). Give one to a policy or a route rule as
 * `hedge`; give the same one to several to share that state.
 */
export interface Hedging extends RunFeature, HedgeRules {
  /** Copies of an attempt in flight at most, counting the first. */
  readonly maxCopies: number;
  /** The delay before the next copy, now; `undefined` while a percentile has too few latencies. */
  delay(): number | undefined;
  /**
   * Requests' times to their first response headers (from the first copy, so a request its hedge
   * saved still counts as slow), for the percentile.
   */
  readonly latencies: LatencyWindow;
  /** The hedges' own budget: one token per copy sent. */
  readonly budget: RetryBudget;
  /**
   * Sends `run`'s attempt as hedged copies (once, and timed for the percentile, when
   * {@link Hedging.delayFor} gives no delay) and resolves with the winning copy's answer. With
   * `request` (the adapter's request), each copy after the first is sent with what `beforeRetry` and
   * the attempt headers set for it. For a hand-written loop: the attempt sequence races the copies of
   * its own attempts (`wrapSend`, `sendCopies`).
   */
  race<A>(run: HedgingRun, copies: HedgedCopies<A>, request?: EditableRequest): Promise<A>;
  /** The rules of one attempt's race, for a loop of its own (the attempt sequence keeps its own, `wrapSend`). */
  startRace(run: HedgingRun): HedgeRace;
}

const PERCENTILE = /^p(\d+(?:\.\d+)?)$/;
/**
 * Tokens the hedge budget may hold. With one, a hedge was refused whenever the previous one came
 * less than 1/ratio requests before it: about 1 − e^(−h/ratio) of them (37 % for 2.3 % hedges at a
 * 5 % ratio, as the simulator's `tail` measured), and p99.9 did not move. Ten let a cluster of slow
 * answers be hedged and still stopped the collapse at high load (`jitterbug-sim tail --hedge-burst`).
 */
const HEDGE_BURST = 10;
/** Latencies a percentile needs before it is trusted. */
const MIN_SAMPLES = 20;

/**
 * Hedged requests, for a policy's or a route rule's `hedge` option:
 *
 * ```ts
 * createRetryPolicy({ hedge: createHedging({ delayMs: 'p95' }) });
 * ```
 *
 * A factory rather than an options object so that a program that never hedges does not carry this
 * code (nor the latency window): bundlers leave out what is not imported.
 *
 * @throws TypeError naming the option when an option is invalid.
 */
export const createHedging = (options: HedgeOptions): Hedging => {
  const name = 'hedge';
  const h = fieldsOf(options, name, ['delayMs', 'maxCopies', 'ratio']);
  const delay = h.delayMs;
  const percentile = typeof delay === 'string' ? PERCENTILE.exec(delay) : null;
  const p = percentile ? Number(percentile[1]) : undefined;
  const valid =
    p === undefined ? typeof delay === 'number' && delay >= 0 && Number.isFinite(delay) : p > 0 && p < 100;
  if (!valid) fail(`${name}.delayMs`, 'a number of ms >= 0 or a percentile such as "p95"', delay);
  const maxCopies = numberIn(given(h.maxCopies, 2), `${name}.maxCopies`, 2, 10, true);
  const ratio = numberIn(given(h.ratio, 0.05), `${name}.ratio`, 0, 1);
  const latencies = createLatencyWindow(1000);
  const budget = createRetryBudget({ ratio, burst: HEDGE_BURST }, `${name}.ratio`);
  // Hedged copies sent by each request, and the copy that answered its last hedged attempt.
  const hedged = perRun<{ copies: number; winner: number }>();
  const hedging: Hedging = {
    maxCopies,
    delay: p === undefined ? () => delay as number : () => latencies.percentile(p, MIN_SAMPLES),
    latencies,
    budget,
    delayFor(run, copies) {
      const o = run.options;
      if (copies >= hedging.maxCopies || run.body === 'stream' || !o.retry) return undefined;
      return methodAllowsRetry(run.method, run.headers, o) ? hedging.delay() : undefined;
    },
    start(run, copy) {
      if (!budget.tryWithdraw()) return false;
      const counts = hedged.get(run as RunView) ?? { copies: 0, winner: 1 };
      counts.copies++;
      hedged.set(run as RunView, counts);
      if (observed && channels.attemptStart.hasSubscribers) {
        channels.attemptStart.publish({ run, attempt: run.attempts + 1, copy });
      }
      return true;
    },
    // A keyed request's 409 is its other copy still being processed: it does not settle the race.
    settles: (run, result) =>
      !retryableResult(
        'status' in result
          ? { status: result.status, responseHeaders: result.headers, requestHeaders: run.headers }
          : result,
        run.options,
      ),
    answered(run, copy, latencyMs) {
      const counts = hedged.get(run as RunView);
      if (counts) counts.winner = copy;
      if (latencyMs !== undefined) latencies.record(latencyMs);
    },
    race: (run, copies, request) =>
      raceCopies(hedging, run, request ? editedCopies(run as unknown as EditedRun, copies, request) : copies),
    // With `this`: an object made from this one (`Object.create`, as a simulation varies the budget)
    // races with its own methods.
    startRace(run) {
      return new HedgeRace(this, run);
    },
    wrapSend(run) {
      return new HedgedSend(this, run);
    },
    sendCopies,
    begin: () => budget.deposit(),
    finish(run, summary) {
      const counts = hedged.get(run);
      if (counts) summary.hedge = { ...counts };
    },
  };
  return branded(hedging, 'hedge');
};

/** Whether a value is hedging made by {@link createHedging}. */
export const isHedging = (value: unknown): value is Hedging => isFeature(value, 'hedge');

/** The `hedge` option, as the feature table's row puts it in the public options. */
export interface HedgeOption {
  /**
   * Hedged requests, from `createHedging({ delayMs, maxCopies?, ratio? })`: an attempt that has had
   * no answer after `delayMs` is sent again, up to `maxCopies` copies in flight, and the first final
   * answer wins (the others are cancelled). Only for requests that may be sent twice, within a hedge
   * budget of its own. Default `false`. A policy's or a route's setting (not a call's: a percentile
   * needs the latencies they share). A factory, so that a program that never hedges does not carry it.
   */
  readonly hedge?: Hedging | false;
}
