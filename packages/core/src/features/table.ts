/**
 * The feature table: a row per run-level feature, in the order the run asks them (outermost first).
 * Validation (`validate.ts`) checks a feature's option by its row, option resolution keeps what the
 * option resolved to under `ResolvedOptions.feature`, lays the features out as the run's layers in
 * the table's order, and tells which of them a route rule or a call may set; the summary's fields a
 * feature fills in and the README's options table are checked against the rows
 * (`test/feature-table.test.ts`). A new feature is its file and its row here: the file declares
 * its option (an interface of one field, with its TSDoc: `ThrottleOption`) and brands what its
 * factory makes with the option's name; the row names the option, where it may be set, and types
 * its `factory` with that interface. The option names (`FeatureOption`), what each resolves to
 * (`FeatureValues`) and the public options' feature fields (`PolicyFeatureOptions`,
 * `RouteFeatureOptions`, which `options.ts` extends) are read from the rows' types.
 *
 * The table imports no opt-in feature: its rows check a factory's brand (`feature.ts`), so that a
 * bundle that never imports a factory carries none of that feature's code; the types it imports
 * are erased. Only the features on by default (the herd line, the retry budget) are imported, for
 * their defaults.
 */

import type { RetryInfo } from '../events.ts';
import { fail } from '../option-error.ts';
import type { AttemptHeadersOption } from './attempt-headers.ts';
import type { BodyBufferingOption } from './body-buffering.ts';
import {
  type BudgetOption,
  budgetFeature,
  createRetryBudget,
  isRetryBudget,
  type RetryBudget,
  type RetryBudgetOptions,
} from './budget.ts';
import type { BreakerOption } from './circuit-breaker.ts';
import type { CredentialOption } from './credential.ts';
import { isFeature, type RunFeature } from './feature.ts';
import type { HedgeOption } from './hedging.ts';
import { createHerdLine, type HerdOption } from './herd.ts';
import type { IdempotencyKeyOption, IdempotencyKeys } from './idempotency-keys.ts';
import type { PacerOption } from './pacer.ts';
import type { RequestEditsOption } from './request-edits.ts';
import type { ResumeOption } from './resume.ts';
import type { ThrottleOption } from './throttle.ts';

declare const OPTION: unique symbol;

/**
 * A row's `factory`, typed with the option its feature's file declares (`O`: an interface of one
 * optional field, with its TSDoc) and what that option resolves to (`V`: by default what the
 * factory returns, the option's type less `false`). Types only: the row's string is what a message
 * names. The public options (`options.ts`) are made of these, by scope, so that they name no feature.
 */
type Factory<O, V = Exclude<O[keyof O], false | undefined>> = string & { readonly [OPTION]: [O, V] };

/** One feature's row. */
export interface FeatureRow {
  /** Its option. */
  readonly option: string;
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
  readonly check?: (value: unknown, name: string, inherited: Readonly<Record<string, unknown>>) => unknown;
  /**
   * The factory a program imports (`createPacer()`), as the option's error message tells it, typed
   * with the feature's option (see {@link Factory}).
   */
  readonly factory: Factory<object, unknown>;
  /** The feature as a layer of the run (default: the resolved value itself, when it is a layer). */
  readonly layer?: (value: never) => RunFeature;
  /** Not a layer of the run: a value the drivers or the edits read (`resume`, `attemptHeaders`). */
  readonly data?: true;
  /** A feature this one does the work of, and more: the other is then no layer (the pacer, the herd line). */
  readonly replaces?: string;
  /** The summary's field it fills in (`RetryInfo`), when it has one. */
  readonly summary?: keyof RetryInfo;
}

/**
 * `false`, or what the factory of `kind` made (the table's default check); development builds tell
 * a plain value given instead how to write it (`messages/hints.ts`, by the option's name).
 */
const made =
  (kind: string, factory: string) =>
  (value: unknown, name: string): unknown =>
    value === false
      ? undefined
      : isFeature(value, kind)
        ? value
        : fail(name, `false or what ${factory} returns`, value, kind);

/** The features, outermost first: a credential's retry is outermost, so that no feature inside counts it. */
export const FEATURES = [
  { option: 'credential', factory: 'createCredentialRefresh({ refresh })' as Factory<CredentialOption> },
  // An open circuit refuses an attempt before the pacer lines it up or the budget counts it.
  { option: 'breaker', scope: 'policy', factory: 'createCircuitBreaker()' as Factory<BreakerOption> },
  // The pacer holds an attempt before the throttle counts it, and sees the decision last (once
  // the throttle and the budget have reviewed it); it does what the herd line does, and more.
  { option: 'pacer', scope: 'policy', factory: 'createPacer()' as Factory<PacerOption>, replaces: 'herd' },
  {
    option: 'herd',
    scope: 'policy',
    factory: 'true' as Factory<HerdOption, RunFeature>,
    // The policy's own line (made with its defaults), or none.
    check: (v, n, { herd }) => (typeof v === 'boolean' ? (v ? herd : undefined) : fail(n, 'a boolean', v)),
  },
  {
    option: 'budget',
    factory: 'createRetryBudget()' as Factory<BudgetOption, RetryBudget>,
    check: (v, n) =>
      v === false ? undefined : isRetryBudget(v) ? v : createRetryBudget(v as RetryBudgetOptions, n),
    layer: budgetFeature,
  },
  { option: 'throttle', scope: 'policy', factory: 'createAdaptiveThrottle()' as Factory<ThrottleOption> },
  {
    option: 'hedge',
    scope: 'route',
    factory: 'createHedging({ delayMs })' as Factory<HedgeOption>,
    summary: 'hedge',
  },
  { option: 'resume', factory: 'createResume()' as Factory<ResumeOption>, data: true },
  // What beforeRetry sets on a request: the edits that apply it, which beforeRetry needs.
  { option: 'requestEdits', factory: 'createRequestEdits()' as Factory<RequestEditsOption>, data: true },
  {
    option: 'attemptHeaders',
    factory: 'createAttemptHeaders()' as Factory<AttemptHeadersOption>,
    data: true,
  },
  {
    option: 'idempotencyKey',
    factory: 'createIdempotencyKeys()' as Factory<IdempotencyKeyOption, IdempotencyKeys>,
    // A header name or `false` (checked as the option's own) generates no key.
    check: (v) => (isFeature(v, 'idempotencyKey') ? v : undefined),
    data: true,
  },
  { option: 'bodyBuffering', factory: 'createBodyBuffering()' as Factory<BodyBufferingOption>, data: true },
] as const satisfies readonly FeatureRow[];

/** A row of the table, as written (its option's name, its scope and its option's type). */
type Row = (typeof FEATURES)[number];
/** The option a row's feature declares (its interface of one field). */
type OptionOf<R> = R extends { readonly factory: { readonly [OPTION]: [infer O, unknown] } } ? O : never;
/** What a row's option resolves to. */
type ValueOf<R> = R extends { readonly factory: { readonly [OPTION]: [unknown, infer V] } } ? V : never;
type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
/** The options of the rows of `R`, as one object type whose fields keep their TSDoc. */
type OptionsOf<R> = { [K in keyof Intersection<OptionOf<R>>]: Intersection<OptionOf<R>>[K] };

/**
 * The rows whose `option` is not the one field their `factory`'s type declares, or that replace
 * an option no row takes (none).
 */
type Undeclared =
  | (Row extends infer R
      ? R extends Row
        ? [R['option'], keyof OptionOf<R>] extends [keyof OptionOf<R>, R['option']]
          ? never
          : R
        : never
      : never)
  | Exclude<Extract<Row, { readonly replaces: string }>, { readonly replaces: Row['option'] }>;
/** A compile-time check: `never`, or TypeScript names the row that {@link Undeclared} finds. */
export type RowsDeclareTheirOption<T extends never = Undeclared> = T;

/** The option that takes a feature: a row's `option`. */
export type FeatureOption = Row['option'];

/** What each feature's option resolves to (`undefined`: off). */
export type FeatureValues = { readonly [R in Row as R['option']]: ValueOf<R> };

/** The features of a set of resolved options, by their option (absent or `undefined`: off). */
export type FeatureSettings = { readonly [K in FeatureOption]?: FeatureValues[K] | undefined };

/** The options of the features a policy alone takes (`scope: 'policy'`). */
export type PolicyFeatureOptions = OptionsOf<Extract<Row, { readonly scope: 'policy' }>>;

/** The options of the features a route rule takes too (a call too, unless `scope: 'route'`). */
export type RouteFeatureOptions = OptionsOf<Exclude<Row, { readonly scope: 'policy' }>>;

/** The options of the features a route rule takes but not a call (`scope: 'route'`). */
export type RouteOnlyOption = Extract<Row, { readonly scope: 'route' }>['option'];

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
): unknown => (row.check ?? made(row.option, row.factory))(value, name, inherited);

/** The run's layers for `settings`, outermost first, in the table's order. */
export const layersOf = (settings: FeatureSettings): RunFeature[] => {
  const layers: RunFeature[] = [];
  for (const row of FEATURES as readonly FeatureRow[]) {
    const value = settings[row.option as FeatureOption];
    if (value === undefined || row.data) continue;
    if (
      FEATURES.some(
        (other: FeatureRow) =>
          other.replaces === row.option && settings[other.option as FeatureOption] !== undefined,
      )
    )
      continue;
    layers.push(row.layer ? row.layer(value as never) : (value as RunFeature));
  }
  return layers;
};
