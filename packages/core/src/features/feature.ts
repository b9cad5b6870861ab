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
import type { Mutable, NextAttempt, RetryEvent, RetryInfo, StopReason } from '../options.ts';
import type { RetryRun } from '../run.ts';

/**
 * What a feature says about an attempt about to be sent: wait `holdMs` and ask again, or refuse it
 * (the request then fails with `error`, its run finished as `refuse`, nothing sent). A description
 * rather than a promise, so that a simulation can take the same turn without one.
 */
export type Turn =
  | {
      /** Wait this many ms, then ask again. */
      readonly holdMs: number;
    }
  | {
      /** Refuse the attempt: the run finishes with this reason. */
      readonly refuse: StopReason;
      /** The error the request fails with. */
      readonly error: Error;
      /** The wait that was not made, for `onGiveUp`. */
      readonly refusedDelayMs?: number | undefined;
    };

/** A run-level feature: every method is optional, and called only when present. */
export interface RunFeature {
  /** A request begins (its run is made). */
  begin?(run: RetryRun): void;
  /** An attempt of `run` is about to be sent: `undefined` lets it go. */
  admit?(run: RetryRun): Turn | undefined;
  /**
   * An attempt ended, before it is decided. A feature that observes sees every answer: the run then
   * never settles one by its status alone.
   */
  observe?(run: RetryRun, outcome: AttemptOutcome): void;
  /**
   * The decision after an attempt, before it takes effect: the same decision, or a stop that
   * replaces a retry (the budget or the throttle refusing it), innermost feature first.
   */
  review?(run: RetryRun, outcome: AttemptOutcome, decision: Decision): Decision;
  /**
   * A retry, hedged copy or resume of `run` is about to be sent (before the `beforeRetry` hooks):
   * what the feature sets on it. A promise is awaited; its rejection fails the request as a hook's.
   */
  edit?(run: RetryRun, next: NextAttempt): unknown;
  /** A retry was decided: what the feature adds to its event (before `onRetry` sees it). */
  retrying?(run: RetryRun, event: Mutable<RetryEvent>): void;
  /** The request finished: what the feature adds to its summary. */
  finish?(run: RetryRun, summary: Mutable<RetryInfo>): void;
}

const FEATURE = Symbol.for('jitterbug.feature');

/** The opt-in features, by the option that takes them. */
export type FeatureKind = 'hedge' | 'pacer' | 'throttle' | 'resume' | 'credential';

/** `value`, branded as made by the factory of `kind`. */
export const branded = <T extends object>(value: T, kind: FeatureKind): T =>
  Object.defineProperty(value, FEATURE, { value: kind });

/** Whether `value` was made by the factory of `kind`. */
export const isFeature = (value: unknown, kind: FeatureKind): boolean =>
  typeof value === 'object' && value !== null && (value as { [FEATURE]?: unknown })[FEATURE] === kind;

/** Per-request state of a feature, kept by the feature (a run carries none of it). */
export const perRun = <T>(): {
  get(run: RetryRun): T | undefined;
  set(run: RetryRun, value: T): void;
} => new WeakMap<RetryRun, T>();
