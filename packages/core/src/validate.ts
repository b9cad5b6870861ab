/**
 * Options validation: one row per option, each checking its value and returning the resolved form.
 * Fields a source leaves out keep the value they inherit: the defaults, a policy's options for a
 * route, a route's for a call. Every `TypeError` comes from `option-error.ts`, in one format.
 */

import { backoffStrategies } from './backoff.ts';
import {
  budgetFeature,
  createRetryBudget,
  isRetryBudget,
  type RetryBudgetOptions,
} from './features/budget.ts';
import { type FeatureKind, isFeature } from './features/feature.ts';
import { createHerdLine } from './features/herd.ts';
import {
  type Check,
  checkFields,
  fail,
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

/** An opt-in feature: `false`, or the object its factory made. */
const feature =
  (kind: FeatureKind, factory: string): Row =>
  (v, n) =>
    v === false ? undefined : isFeature(v, kind) ? v : fail(n, `false or what ${factory} returns`, v);

const fn: Row = (v, n) => (typeof v === 'function' ? v : fail(n, 'a function', v));

// RFC 9110 §5.6.2 token: the syntax of header names and of methods.
const isToken = (v: unknown): v is string =>
  typeof v === 'string' && /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(v);

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

/** The attempt headers' names for `attemptHeaders: true`. */
const ATTEMPT_HEADERS = Object.freeze({
  attempt: 'amz-sdk-request',
  deadline: 'x-envoy-expected-rq-timeout-ms',
} as const);

const headerOrFalse: Check = (v, n) => (v === false || isToken(v) ? v : fail(n, 'a header name or false', v));

/** The fields of `idempotencyKey`'s object form; its header is a name in lower case, as compared. */
const IDEMPOTENCY_KEY_FIELDS = {
  header: (v: unknown, n: string) => (isToken(v) ? v.toLowerCase() : fail(n, 'a header name', v)),
  generate: (v: unknown, n: string) =>
    v === undefined || typeof v === 'boolean' || typeof v === 'function'
      ? v
      : fail(n, 'a boolean or a function', v),
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
  methods: setOf(isToken, 'HTTP method (a token)', 'HTTP methods (tokens)', (m: string) => m.toUpperCase()),
  statusCodes: setOf(
    (s) => Number.isInteger(s) && (s as number) >= 100 && (s as number) <= 599,
    'an integer from 100 to 599',
    'integers from 100 to 599',
  ),
  errorCodes: setOf((c) => typeof c === 'string' && c.trim() !== '', 'non-empty string', 'non-empty strings'),
  idempotencyKey: (v, n, _, resolved) => {
    resolved.generateKey = undefined;
    if (v === false) return v;
    if (isToken(v)) return v.toLowerCase();
    if (!isOptionObject(v)) return fail(n, 'a header name, false or { header, generate }', v);
    // Its header is the default one unless given (not inherited).
    const { header, generate } = checkFields(
      v,
      n,
      { header: DEFAULTS.idempotencyKey, generate: undefined },
      IDEMPOTENCY_KEY_FIELDS,
    );
    resolved.generateKey = generate === true ? () => crypto.randomUUID() : generate || undefined;
    return header;
  },
  attemptHeaders: (v, n) =>
    typeof v === 'boolean'
      ? v
        ? ATTEMPT_HEADERS
        : undefined
      : checkFields(v, n, ATTEMPT_HEADERS, { attempt: headerOrFalse, deadline: headerOrFalse }),
  // `true`: the defaults (or what was inherited), as the type's `false` suggests.
  retryAfter: (v, n, { retryAfter }) =>
    v !== false && checkFields(v === true ? {} : v, n, retryAfter || DEFAULTS.retryAfter, RETRY_AFTER_FIELDS),
  deadlineMs: number(0),
  attemptTimeoutMs: number(1),
  bufferStreamMaxBytes: number(0),
  discardBodyMaxBytes: number(0),
  shouldRetry: fn,
  isFailure: fn,
  onRetry: fn,
  onGiveUp: fn,
  onFinish: fn,
  beforeRetry: fn,
  budget: (v, n) =>
    v === false ? undefined : isRetryBudget(v) ? v : createRetryBudget(v as RetryBudgetOptions, n),
  random: fn,
  sleep: fn,
  now: fn,
  // Features a program imports to use, so that one without them does not carry their code.
  pacer: feature('pacer', 'createPacer()'),
  // The policy's own line (made with its defaults), or none.
  herd: (v, n, { herd }) => (typeof v === 'boolean' ? (v ? herd : undefined) : fail(n, 'a boolean', v)),
  hedge: feature('hedge', 'createHedging({ delayMs })'),
  throttle: feature('throttle', 'createAdaptiveThrottle()'),
  resume: feature('resume', 'createResume()'),
  credential: feature('credential', 'createCredentialRefresh({ refresh })'),
  breaker: feature('breaker', 'createCircuitBreaker()'),
  retry: (v, n) => (typeof v === 'boolean' ? v : fail(n, 'a boolean', v)),
};

/** The options a route rule or a call may override. */
const POLICY_ONLY = ['random', 'sleep', 'now', 'pacer', 'throttle', 'herd', 'breaker'];
export const OVERRIDABLE = Object.keys(ROWS).filter((key) => key !== 'retry' && !POLICY_ONLY.includes(key));
/** Keys of the options adapters take. */
export const POLICY_KEYS: ReadonlySet<string> = new Set([...OVERRIDABLE, ...POLICY_ONLY]);
/** Keys of a call's own overrides (a call cannot hedge: a percentile needs the latencies a policy shares). */
export const CALL_KEYS: ReadonlySet<string> = new Set(OVERRIDABLE.filter((key) => key !== 'hedge'));

/**
 * The defaults, resolved (a policy gets its own budget on top). Every option is a field from the
 * start (`undefined` when unset), so that the options of every policy, route and call have one shape.
 */
const DEFAULT_OPTIONS: ResolvedOptions = {
  ...(Object.fromEntries(Object.keys(ROWS).map((key) => [key, undefined])) as Record<
    keyof ResolvedOptions,
    undefined
  >),
  ...DEFAULTS,
  retry: true,
  disabledBy: 'route-disabled',
  route: undefined,
  backoff: { ...DEFAULTS.backoff, strategy: backoffStrategies[DEFAULTS.backoff.strategy] },
  methods: new Set(DEFAULTS.methods),
  statusCodes: new Set(DEFAULTS.statusCodes),
  errorCodes: new Set(DEFAULTS.errorCodes),
  idempotencyKey: DEFAULTS.idempotencyKey.toLowerCase(),
  generateKey: undefined,
  resume: undefined,
  progress: { answers: 0 },
  features: [],
  racer: undefined,
  admitting: [],
  finishing: [],
  editing: [],
  observing: false,
  random: Math.random,
  sleep,
  now: Date.now,
};

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
    budget: createRetryBudget(),
    herd: createHerdLine(),
    progress: { answers: 0 },
  };
  const resolved: Record<string, unknown> = { ...inherited };
  for (const key of Object.keys(given)) {
    const value = given[key];
    if (!allowed.has(key)) unknownOption(path + key, allowed, value, POLICY_KEYS.has(key));
    const row = ROWS[key];
    if (value !== undefined && row) {
      resolved[key] = row(value, path + key, inherited, resolved);
    }
  }
  // The features, as layers, outermost first: the pacer holds an attempt before the throttle counts
  // it, and sees the decision last (once the throttle and the budget have reviewed it). Laid out
  // again for every source, a route's or a call's too: the features are the same objects (the
  // budget's layer a new wrapper of the same bucket), and no key needs telling apart for it.
  const o = resolved as unknown as ResolvedOptions;
  // The pacer, when there is one, does what the herd line does, and more.
  // A credential's retry is outermost: no feature inside it counts it (the budget, the throttle).
  // An open circuit refuses an attempt before the pacer lines it up or the budget counts it.
  const features = [
    o.credential,
    o.breaker,
    o.pacer ?? o.herd,
    o.budget && budgetFeature(o.budget),
    o.throttle,
    o.hedge,
  ].filter((feature) => feature !== undefined);
  resolved.features = features;
  resolved.racer = features.find((feature) => feature.wrapSend !== undefined);
  // Asked before every attempt and at every run's end: only the features that have something to say.
  resolved.admitting = features.filter((feature) => feature.admit !== undefined);
  resolved.finishing = features.filter((feature) => feature.finish !== undefined);
  resolved.editing = features.filter((feature) => feature.edit !== undefined);
  resolved.observing = features.some((feature) => feature.observe !== undefined);
  return resolved as unknown as ResolvedOptions;
};
