/**
 * What a run-level feature is (the retry budget, the pacer, the adaptive throttle, hedging): a
 * small object the run asks at fixed points — as a request begins, before each attempt, after each
 * decision, as the request ends — so that a feature is one file and one option row, and the run
 * itself names none of them. The features of a run are layers, outermost first, as in cockatiel's
 * `wrap` (or smithy's `AdaptiveRetryStrategy` around its standard strategy): a feature admits an
 * attempt before the ones inside it, and reviews a decision after them. Each feature keeps its own
 * per-request state.
 *
 * What a factory returns carries a brand that the options check: a look-alike object is refused by
 * name rather than failing mid-request, and the options need no import of the feature (a bundler
 * leaves out a feature that is never imported). `Symbol.for`, so that two copies of the package
 * accept each other's features.
 */
import type { AttemptOutcome, Decision } from '../decide.ts';
import type { Mutable, NextAttempt, RetryEvent, RetryInfo } from '../events.ts';
import type { Copies, DrivenSequence, Raced, RacedSend, RaceHost } from '../steps.ts';
import type { RunView, Turn } from '../types.ts';

export type { Turn } from '../types.ts';

/** A run-level feature: every method is optional, and called only when present. */
export interface RunFeature {
  /** A request begins (its run is made). */
  begin?(run: RunView): void;
  /** An attempt of `run` is about to be sent: `undefined` lets it go. */
  admit?(run: RunView): Turn | undefined;
  /**
   * `admit` holds retries only, never a request's first attempt (the herd line): a first attempt
   * then makes no call to it.
   */
  readonly retriesOnly?: boolean;
  /**
   * An attempt ended, before it is decided. A feature that observes sees every answer: the run then
   * never settles one by its status alone.
   */
  observe?(run: RunView, outcome: AttemptOutcome): void;
  /**
   * The decision after an attempt, before it takes effect: the same decision, or a stop that
   * replaces a retry (the budget or the throttle refusing it), innermost feature first.
   */
  review?(run: RunView, outcome: AttemptOutcome, decision: Decision): Decision;
  /**
   * A retry, hedged copy or resume of `run` is about to be sent (before the `beforeRetry` hooks):
   * what the feature sets on it. A promise is awaited; its rejection fails the request as a hook's.
   */
  edit?(run: RunView, next: NextAttempt): unknown;
  /** A retry was decided: what the feature adds to its event (before `onRetry` sees it). */
  retrying?(run: RunView, event: Mutable<RetryEvent>): void;
  /** The request finished: what the feature adds to its summary. */
  finish?(run: RunView, summary: Mutable<RetryInfo>): void;
  /**
   * Wraps the send of each attempt of a run (hedging: the attempt goes as racing copies): the steps
   * of that send, until a copy wins. One feature of a run at most.
   */
  wrapSend?(run: RaceHost): RacedSend;
  /** Sends the copies of a wrapped send for a promise driver (`drive/promise.ts`). */
  sendCopies?<A>(run: DrivenSequence, copies: Copies<A>): Promise<Raced<A>>;
}

const FEATURE = Symbol.for('jitterbug.feature');

/**
 * `value`, branded as made by the factory of `kind`: the option that takes it, a row's `option` in
 * the feature table (`table.ts`), which checks the brand by that name.
 */
export const branded = <T extends object>(value: T, kind: string): T =>
  Object.defineProperty(value, FEATURE, { value: kind });

/** Whether `value` was made by the factory of `kind`. */
export const isFeature = (value: unknown, kind: string): boolean =>
  typeof value === 'object' && value !== null && (value as { [FEATURE]?: unknown })[FEATURE] === kind;

/** Per-request state of a feature, kept by the feature (a run carries none of it). */
export const perRun = <T>(): {
  get(run: RunView): T | undefined;
  set(run: RunView, value: T): void;
} => new WeakMap<RunView, T>();
