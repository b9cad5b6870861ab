/**
 * Options validation: one row per option, each checking its value and returning the resolved form.
 * Fields a source leaves out keep the value they inherit: the defaults, a policy's options for a
 * route, a route's for a call. Every `TypeError` comes from `option-error.ts`, in one format.
 */

import { backoffStrategies } from './backoff.ts';
import { isFeature } from './features/feature.ts';
import type { IdempotencyKeys } from './features/idempotency-keys.ts';
import type { RequestEdits } from './features/request-edits.ts';
import {
  checkFeature,
  defaultFeatures,
  FEATURES,
  type FeatureRow,
  type FeatureSettings,
  layersOf,
} from './features/table.ts';
import {
  checkFields,
  fail,
  isHeaderName,
  isOptionObject,
  numberCheck as number,
  optionsObject,
  unknownOption,
} from './option-error.ts';
import { DEFAULTS, type Mutable, type ResolvedOptions } from './options.ts';
import { sleep } from './sleep.ts';

/**
 * Checks `value` (given, not `undefined`) for option `name`; `inherited` is what it replaces. An
 * option that resolves to more than one field sets the others on `resolved`.
 */
type Row = (
  value: unknown,
  name: string,
  inherited: ResolvedOptions,
  resolved: Record<string, unknown>,
) => unknown;

const fn: Row = (v, n) => (typeof v === 'function' ? v : fail(n, 'a function', v));

/** An array whose every item passes `valid` (each one `expected`, all `plural`), as a set of `map(item)`. */
const setOf =
  (
    valid: (item: unknown) => boolean,
    expected: string,
    plural: string,
    map = (item: never): unknown => item,
  ): Row =>
  (v, n) =>
    Array.isArray(v)
      ? new Set(v.map((item, i) => (valid(item) ? map(item as never) : fail(`${n}[${i}]`, expected, item))))
      : fail(n, `an array of ${plural}`, v);

const BACKOFF_FIELDS = {
  // A built-in strategy's name resolves to the strategy.
  strategy: (v: unknown, n: string) =>
    typeof v === 'function'
      ? v
      : typeof v === 'string' && Object.hasOwn(backoffStrategies, v)
        ? backoffStrategies[v as keyof typeof backoffStrategies]
        : fail(n, `a function or one of ${Object.keys(backoffStrategies).join(', ')}`, v),
  baseMs: number(0),
  capMs: number(0),
};

/** The fields of `retryAfter`, in the order of the defaults' (every resolved `retryAfter` has one shape). */
const RETRY_AFTER_FIELDS = {
  maxMs: number(0),
  whenLonger: (v: unknown, n: string) =>
    v === 'give-up' || v === 'cap' ? v : fail(n, '"give-up" or "cap"', v),
  jitterRatio: number(0, 1),
};

const ROWS: Readonly<Record<string, Row>> = {
  maxAttempts: number(1, 1000, true),
  transparentRetries: number(0, 10, true),
  backoff: (v, n, { backoff }) => {
    if (typeof v === 'function') return { ...backoff, strategy: v };
    if (!isOptionObject(v)) return fail(n, 'an object or a function', v, 'backoff');
    // A route's `{ capMs }` keeps the policy's strategy and base: only the fields given change. A base
    // given above the inherited cap raises the cap with it; a cap given must be at least the base.
    const b = checkFields(v, n, backoff, BACKOFF_FIELDS) as Mutable<ResolvedOptions['backoff']>;
    if (v.capMs === undefined) b.capMs = Math.max(b.capMs, b.baseMs);
    if (b.capMs < b.baseMs) fail(`${n}.capMs`, `>= ${n}.baseMs (${b.baseMs})`, b.capMs);
    return b;
  },
  methods: setOf(isHeaderName, 'HTTP method (a token)', 'HTTP methods (tokens)', (m: string) =>
    m.toUpperCase(),
  ),
  statusCodes: setOf(
    (s) => Number.isInteger(s) && (s as number) >= 100 && (s as number) <= 599,
    'an integer from 100 to 599',
    'integers from 100 to 599',
  ),
  errorCodes: setOf((c) => typeof c === 'string' && c.trim() !== '', 'non-empty string', 'non-empty strings'),
  // A header name, or generated keys (their feature row keeps the generator) with theirs.
  idempotencyKey: (v, n) =>
    v === false
      ? v
      : isHeaderName(v)
        ? v.toLowerCase()
        : isFeature(v, 'idempotencyKey')
          ? (v as IdempotencyKeys).header
          : fail(n, 'a header name, false or what createIdempotencyKeys() returns', v, 'idempotencyKey'),
  // `true`: the defaults (or what was inherited), as the type's `false` suggests.
  retryAfter: (v, n, { retryAfter }) =>
    v !== false && checkFields(v === true ? {} : v, n, retryAfter || DEFAULTS.retryAfter, RETRY_AFTER_FIELDS),
  deadlineMs: number(0),
  attemptTimeoutMs: number(1),
  discardBodyMaxBytes: number(0),
  shouldRetry: fn,
  isFailure: fn,
  onRetry: fn,
  onGiveUp: fn,
  onFinish: fn,
  beforeRetry: fn,
  random: fn,
  sleep: fn,
  now: fn,
  retry: (v, n) => (typeof v === 'boolean' ? v : fail(n, 'a boolean', v)),
};

/** The feature table's rows, by their option. */
const FEATURE_ROWS: Readonly<Record<string, FeatureRow>> = Object.fromEntries(
  FEATURES.map((row) => [row.option, row]),
);

/** The options only a policy takes: its clock and random source, and the features whose state it holds. */
const POLICY_ONLY = [
  'random',
  'sleep',
  'now',
  ...FEATURES.filter((r: FeatureRow) => r.scope === 'policy').map((r) => r.option),
];
/** The options a route rule or a call may override. */
export const OVERRIDABLE = [...new Set([...Object.keys(ROWS), ...Object.keys(FEATURE_ROWS)])].filter(
  (key) => key !== 'retry' && !POLICY_ONLY.includes(key),
);
/** Keys of the options adapters take. */
export const POLICY_KEYS: ReadonlySet<string> = new Set([...OVERRIDABLE, ...POLICY_ONLY]);
/** Keys of a call's own overrides: a route's, but the features a call may not set (hedging). */
export const CALL_KEYS: ReadonlySet<string> = new Set(
  OVERRIDABLE.filter((key) => FEATURE_ROWS[key]?.scope !== 'route'),
);

/**
 * Validates `source` (a policy's options, a route rule, a call's overrides) and lays it over `base`
 * (default: the defaults with a new budget). Only the keys present in `source` change; `path`
 * prefixes option names in error messages (`routes[0].`, `jitterbug.`).
 *
 * @throws TypeError naming the option when an option is invalid or unknown.
 */
export const resolveOptions = (
  source: unknown,
  allowed: ReadonlySet<string>,
  base?: ResolvedOptions,
  path = '',
): ResolvedOptions => {
  const given = optionsObject(source, path.slice(0, -1) || 'options');
  const inherited = base ?? {
    ...DEFAULT_OPTIONS,
    feature: defaultFeatures(),
    progress: { answers: 0, failedAt: -1 },
  };
  const resolved: Record<string, unknown> = { ...inherited };
  const feature: Record<string, unknown> = { ...inherited.feature };
  for (const key of Object.keys(given)) {
    const value = given[key];
    if (!allowed.has(key)) unknownOption(path + key, allowed, value, POLICY_KEYS.has(key));
    if (value === undefined) continue;
    const row = ROWS[key];
    if (row) resolved[key] = row(value, path + key, inherited, resolved);
    const featureRow = FEATURE_ROWS[key];
    if (featureRow) feature[key] = checkFeature(featureRow, value, path + key, inherited.feature);
  }
  resolved.feature = feature;
  // The features, as layers, in the table's order. Laid out again for every source, a route's or a
  // call's too: the features are the same objects (the budget's layer a new wrapper of the same
  // bucket), and no key needs telling apart for it.
  const features = layersOf(feature as FeatureSettings);
  resolved.features = features;
  resolved.racer = features.find((feature) => feature.wrapSend !== undefined);
  // Asked before every attempt and at every run's end: only the features that have something to say.
  const admitting = features.filter((feature) => feature.admit !== undefined);
  resolved.admitting = admitting;
  resolved.admittingFirst = admitting.filter((feature) => feature.retriesOnly !== true);
  resolved.finishing = features.filter((feature) => feature.finish !== undefined);
  resolved.editing = features.filter((feature) => feature.edit !== undefined);
  resolved.observing = features.some((feature) => feature.observe !== undefined);
  // What applies the edits comes with the factory of a feature that edits (its `edits`); beforeRetry's
  // own need `requestEdits`, so that a bundle that changes no request carries none of the edits.
  const editor = Object.values(feature).find(
    (value) => (value as Partial<RequestEdits> | undefined)?.edits !== undefined,
  ) as RequestEdits | undefined;
  resolved.edits = editor?.edits;
  if (resolved.beforeRetry && !feature.requestEdits) {
    fail(
      `${path}beforeRetry`,
      'given with requestEdits: createRequestEdits()',
      resolved.beforeRetry,
      'beforeRetry',
    );
  }
  return resolved as unknown as ResolvedOptions;
};

/**
 * The defaults, resolved as a policy's options are, by the same rows (a policy gets its own budget
 * on top), over a blank in which every option is a field from the start (`undefined` when unset),
 * so that the options of every policy, route and call have one shape (the features' lists are laid
 * out by the resolution, as on every source).
 */
const DEFAULT_OPTIONS: ResolvedOptions = resolveOptions(DEFAULTS, POLICY_KEYS, {
  ...Object.fromEntries(Object.keys(ROWS).map((key) => [key, undefined])),
  ...DEFAULTS,
  retry: true,
  disabledBy: 'route-disabled',
  route: undefined,
  feature: {},
  progress: { answers: 0, failedAt: -1 },
  random: Math.random,
  sleep,
  now: Date.now,
} as unknown as ResolvedOptions);
