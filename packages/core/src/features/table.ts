/**
 * The feature table: a row per run-level feature, in the order the run asks them (outermost first).
 * Validation (`validate.ts`) checks a feature's option by its row, option resolution keeps what the
 * option resolved to under `ResolvedOptions.feature`, lays the features out as the run's layers in
 * the table's order, and tells which of them a route rule or a call may set; the summary's fields a
 * feature fills in and the README's options table are checked against the rows
 * (`test/feature-table.test.ts`). A new feature is its file and its row here.
 *
 * The table imports no opt-in feature: its rows check a factory's brand (`feature.ts`), so that a
 * bundle that never imports a factory carries none of that feature's code. Only the features on by
 * default (the herd line, the retry budget) are imported, for their defaults.
 */

import type { RetryInfo } from '../events.ts';
import { fail } from '../option-error.ts';
import type { AttemptHeaders } from './attempt-headers.ts';
import type { BodyBuffering } from './body-buffering.ts';
import {
  budgetFeature,
  createRetryBudget,
  isRetryBudget,
  type RetryBudget,
  type RetryBudgetOptions,
} from './budget.ts';
import type { CircuitBreaker } from './circuit-breaker.ts';
import type { CredentialRefresh } from './credential.ts';
import { type FeatureKind, isFeature, type RunFeature } from './feature.ts';
import type { Hedging } from './hedging.ts';
import { createHerdLine } from './herd.ts';
import type { IdempotencyKeys } from './idempotency-keys.ts';
import type { Pacer } from './pacer.ts';
import type { Resume } from './resume.ts';
import type { AdaptiveThrottle } from './throttle.ts';

/** What each feature's option resolves to (`undefined`: off). */
export interface FeatureValues {
  readonly credential: CredentialRefresh;
  readonly breaker: CircuitBreaker;
  readonly pacer: Pacer;
  readonly herd: RunFeature;
  readonly budget: RetryBudget;
  readonly throttle: AdaptiveThrottle;
  readonly hedge: Hedging;
  readonly resume: Resume;
  readonly attemptHeaders: AttemptHeaders;
  readonly idempotencyKey: IdempotencyKeys;
  readonly bodyBuffering: BodyBuffering;
}

/** The option that takes a feature. */
export type FeatureOption = keyof FeatureValues;

/** The features of a set of resolved options, by their option (absent or `undefined`: off). */
export type FeatureSettings = { readonly [K in FeatureOption]?: FeatureValues[K] | undefined };

/** One feature's row. */
export interface FeatureRow {
  /** Its option. */
  readonly option: FeatureOption;
  /**
   * Where it may be set: a policy's options only (its state is the policy's: the herd line, a
   * pacer), a route rule's too (`route`: not a call's, hedging's percentile needs the latencies a
   * policy shares), or a call's too (`call`, the default).
   */
  readonly scope?: 'policy' | 'route' | 'call';
  /**
   * Checks the option's value (given, not `undefined`; `inherited` is what it replaces): what it
   * resolves to, `undefined` for off. Default: `false`, or what the factory of `kind` made.
   */
  readonly check?: (value: unknown, name: string, inherited: FeatureSettings) => unknown;
  /** The factory a program imports (`createPacer()`), as the option's error message tells it. */
  readonly factory: string;
  /** The feature as a layer of the run (default: the resolved value itself, when it is a layer). */
  readonly layer?: (value: never) => RunFeature;
  /** Not a layer of the run: a value the drivers or the edits read (`resume`, `attemptHeaders`). */
  readonly data?: true;
  /** A feature this one does the work of, and more: the other is then no layer (the pacer, the herd line). */
  readonly replaces?: FeatureOption;
  /** The summary's field it fills in (`RetryInfo`), when it has one. */
  readonly summary?: keyof RetryInfo;
}

/**
 * `false`, or what the factory of `kind` made (the table's default check); development builds tell
 * a plain value given instead how to write it (`messages/hints.ts`, by the option's name).
 */
const made =
  (kind: FeatureKind, factory: string) =>
  (value: unknown, name: string): unknown =>
    value === false
      ? undefined
      : isFeature(value, kind)
        ? value
        : fail(name, `false or what ${factory} returns`, value, kind);

/** The features, outermost first: a credential's retry is outermost, so that no feature inside counts it. */
export const FEATURES: readonly FeatureRow[] = [
  { option: 'credential', factory: 'createCredentialRefresh({ refresh })' },
  // An open circuit refuses an attempt before the pacer lines it up or the budget counts it.
  { option: 'breaker', scope: 'policy', factory: 'createCircuitBreaker()' },
  // The pacer holds an attempt before the throttle counts it, and sees the decision last (once
  // the throttle and the budget have reviewed it); it does what the herd line does, and more.
  { option: 'pacer', scope: 'policy', factory: 'createPacer()', replaces: 'herd' },
  {
    option: 'herd',
    scope: 'policy',
    factory: 'true',
    // The policy's own line (made with its defaults), or none.
    check: (v, n, { herd }) => (typeof v === 'boolean' ? (v ? herd : undefined) : fail(n, 'a boolean', v)),
  },
  {
    option: 'budget',
    factory: 'createRetryBudget()',
    check: (v, n) =>
      v === false ? undefined : isRetryBudget(v) ? v : createRetryBudget(v as RetryBudgetOptions, n),
    layer: budgetFeature,
  },
  { option: 'throttle', scope: 'policy', factory: 'createAdaptiveThrottle()' },
  { option: 'hedge', scope: 'route', factory: 'createHedging({ delayMs })', summary: 'hedge' },
  { option: 'resume', factory: 'createResume()', data: true },
  { option: 'attemptHeaders', factory: 'createAttemptHeaders()', data: true },
  {
    option: 'idempotencyKey',
    factory: 'createIdempotencyKeys()',
    // A header name or `false` (checked as the option's own) generates no key.
    check: (v) => (isFeature(v, 'idempotencyKey') ? v : undefined),
    data: true,
  },
  { option: 'bodyBuffering', factory: 'createBodyBuffering()', data: true },
];

/** The features a new policy has before its options are read: its own herd line and budget. */
export const defaultFeatures = (): FeatureSettings => ({
  herd: createHerdLine(),
  budget: createRetryBudget(),
});

/** Checks a feature's option by its row (see {@link FeatureRow.check}). */
export const checkFeature = (
  row: FeatureRow,
  value: unknown,
  name: string,
  inherited: FeatureSettings,
): unknown => (row.check ?? made(row.option as FeatureKind, row.factory))(value, name, inherited);

/** The run's layers for `settings`, outermost first, in the table's order. */
export const layersOf = (settings: FeatureSettings): RunFeature[] => {
  const layers: RunFeature[] = [];
  for (const row of FEATURES) {
    const value = settings[row.option];
    if (value === undefined || row.data) continue;
    if (FEATURES.some((other) => other.replaces === row.option && settings[other.option] !== undefined))
      continue;
    layers.push(row.layer ? row.layer(value as never) : (value as RunFeature));
  }
  return layers;
};
