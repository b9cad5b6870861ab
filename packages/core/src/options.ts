/**
 * The public options of a retry policy, their defaults, and their validation. Invalid options
 * throw a `TypeError` naming the option when the policy is created, never later on a request.
 */
import {
  type Backoff,
  type BackoffParams,
  type BackoffStrategyName,
  backoffStrategies,
  type RandomSource,
} from './backoff.ts';
import { createRetryBudget, isRetryBudget, type RetryBudget, type RetryBudgetOptions } from './budget.ts';
import { describeValue } from './describe-value.ts';
import { DEFAULT_ERROR_CODES } from './errors.ts';
import type { HeaderGetter } from './retry-after.ts';
import { sleep as defaultSleep, type Sleep } from './sleep.ts';

/** Backoff settings: a built-in strategy with its numbers, or your own function. */
export interface BackoffOptions {
  /** A built-in strategy by name, or your own function (which then gets `baseMs`/`capMs`). Default `'full'`. */
  readonly strategy?: BackoffStrategyName | Backoff;
  /** Default 100. */
  readonly baseMs?: number;
  /** Default 20 000. */
  readonly capMs?: number;
}

/** What to do with server-given delays (`Retry-After`, `RateLimit-Reset`, `X-RateLimit-Reset`). */
export interface RetryAfterOptions {
  /**
   * The longest server-given delay that is honoured, and the longest wait it can cause (jitter
   * included). Default 60 000.
   */
  readonly maxMs?: number;
  /**
   * When the server asks for more than `maxMs`: `'give-up'` (default) returns the response to the
   * caller at once; `'cap'` waits `maxMs` and tries again.
   */
  readonly whenLonger?: 'give-up' | 'cap';
  /**
   * Spreads server-given delays so that clients told the same date do not all come back in the
   * same instant: an honoured delay is made up to this fraction longer (never sooner than told,
   * never past `maxMs`); a delay capped at `maxMs` (`whenLonger: 'cap'`) up to this fraction
   * shorter. Default 0.1.
   */
  readonly jitterRatio?: number;
}

/** Why a request was, or was not, retried. */
export type StopReason =
  | 'success' // a status below 400 (2xx, 3xx, 1xx)
  | 'status-not-retryable' // a status >= 400 that is not in statusCodes
  | 'error-not-retryable'
  | 'aborted' // the caller's signal aborted
  | 'method-not-idempotent'
  | 'body-not-replayable'
  | 'route-disabled'
  | 'should-retry' // the user's shouldRetry said no
  | 'max-attempts'
  | 'deadline'
  | 'retry-after-too-long'
  | 'budget-exhausted';

/** Where a retry's delay came from. */
export type DelaySource = 'backoff' | 'retry-after' | 'ratelimit-reset' | 'x-ratelimit-reset';

/** The request and the attempt that just ended, as passed to `shouldRetry`. */
export interface RetryInfo {
  readonly method: string;
  readonly url: string;
  /** 1-based number of the attempt that just ended. */
  readonly attempt: number;
  readonly status?: number;
  readonly error?: unknown;
  /** The response headers, when there was a response. */
  readonly headers?: HeaderGetter;
  /** What jitterbug would do without `shouldRetry`. */
  readonly defaultRetry: boolean;
  readonly elapsedMs: number;
}

/** Passed to `onRetry` before each wait. */
export interface RetryEvent {
  readonly method: string;
  readonly url: string;
  /** 1-based number of the attempt that failed. */
  readonly attempt: number;
  readonly delayMs: number;
  readonly delaySource: DelaySource;
  readonly status?: number;
  readonly error?: unknown;
  /** The matched route rule's `name` (or its pattern), when a rule matched. */
  readonly route?: string;
  /** Tokens left in the retry budget after this retry, when there is a budget. */
  readonly budgetTokens?: number;
}

/** Passed to `onGiveUp` when a failed attempt is not retried. */
export interface GiveUpEvent {
  readonly method: string;
  readonly url: string;
  readonly attempt: number;
  readonly reason: StopReason;
  readonly status?: number;
  readonly error?: unknown;
  readonly route?: string;
  /** The delay that was not waited (for `deadline` and `retry-after-too-long`). */
  readonly refusedDelayMs?: number;
}

/** What a finished request cost; passed to `onFinish` and returned by `getRetryInfo`. */
export interface RetrySummary {
  readonly method: string;
  readonly url: string;
  /** Attempts made, counting the first. */
  readonly attempts: number;
  /** Sum of the waits between attempts, in ms. */
  readonly totalDelayMs: number;
  /** Time from the first attempt's start to the end, in ms (by the policy's clock). */
  readonly elapsedMs: number;
  readonly outcome: 'success' | 'failure';
  readonly reason: StopReason;
  readonly status?: number;
  readonly error?: unknown;
  readonly route?: string;
}

/** The options of a policy that a route rule may override. */
export interface OverridableOptions {
  /** Attempts in all, counting the first. Default 3. */
  readonly maxAttempts?: number;
  /** Default `{ strategy: 'full', baseMs: 100, capMs: 20_000 }`. */
  readonly backoff?: BackoffOptions | Backoff;
  /** Methods retried. Default GET, HEAD, OPTIONS, PUT, DELETE, TRACE, QUERY. */
  readonly methods?: readonly string[];
  /** Statuses retried. Default 408, 429, 500, 502, 503, 504. */
  readonly statusCodes?: readonly number[];
  /** Error codes retried (searched on the error and its `cause` chain). Default: {@link DEFAULT_ERROR_CODES}. */
  readonly errorCodes?: readonly string[];
  /**
   * A request with this header is retried whatever its method (same key on every attempt).
   * Default `'Idempotency-Key'`; `false` turns this off.
   */
  readonly idempotencyKey?: string | false;
  /** Server-given delays; `false` ignores them. Default `{ maxMs: 60_000, whenLonger: 'give-up', jitterRatio: 0.1 }`. */
  readonly retryAfter?: RetryAfterOptions | false;
  /** Total time budget across attempts and waits, in ms; no wait that would end past it is started. */
  readonly deadlineMs?: number;
  /** Per-attempt timeout, in ms; a timed-out attempt fails with `ERR_JITTERBUG_ATTEMPT_TIMEOUT` (retryable). */
  readonly attemptTimeoutMs?: number;
  /**
   * Stream request bodies up to this many bytes are buffered so that they can be replayed.
   * Default 0: a stream body is sent once and never retried.
   */
  readonly bufferStreamBytes?: number;
  /**
   * A response that will be retried has up to this many body bytes drained (so its connection can be
   * reused); past that the connection is destroyed. Default 65 536.
   */
  readonly discardBodyMaxBytes?: number;
  /** Overrides the decision: `true` retry, `false` stop, `undefined` default. Never retries a non-replayable body. */
  readonly shouldRetry?: (info: RetryInfo) => boolean | undefined;
  /** Called before each wait. */
  readonly onRetry?: (event: RetryEvent) => void;
  /**
   * Called when a failure that would be retried is not: attempts, budget or deadline used up, a
   * server delay above `retryAfter.maxMs`, a body that cannot be sent again. Not for a status or an
   * error that is never retried (a 404, a POST without an idempotency key).
   */
  readonly onGiveUp?: (event: GiveUpEvent) => void;
  /** Called once when a request is finished, success or not. */
  readonly onFinish?: (summary: RetrySummary) => void;
  /** A budget for this route instead of the policy's; `false` for none. */
  readonly budget?: RetryBudgetOptions | RetryBudget | false;
}

/** What a route rule matches: `"POST /payments/*"`, `"/reports/*"`, a `URLPattern`, or a predicate. */
export type RouteMatch =
  | string
  | { exec(input: { pathname: string }): unknown; test(input: string | { pathname?: string }): boolean }
  | ((request: { readonly method: string; readonly url: URL }) => boolean);

/** A per-route policy: the first rule whose `match` matches overrides the base options. */
export interface RouteRule extends OverridableOptions {
  readonly match: RouteMatch;
  /** A name for events and timelines. Default: the pattern string. */
  readonly name?: string;
  /** `false` disables retries for matching requests. */
  readonly retry?: boolean;
}

/** Options of `createRetryPolicy`. */
export interface RetryOptions extends OverridableOptions {
  /** Random source for jitter, `[0, 1)`. Default `Math.random`. */
  readonly random?: RandomSource;
  /** How to wait. Default: a timer that an `AbortSignal` cancels. */
  readonly sleep?: Sleep;
  /** The clock, in epoch ms, for deadlines and HTTP-dates. Default `Date.now`. */
  readonly now?: () => number;
  /** Per-route policies, first match wins. */
  readonly routes?: readonly RouteRule[];
}

/** Options after defaults and validation. */
export interface ResolvedOptions {
  readonly retry: boolean;
  readonly route: string | undefined;
  readonly maxAttempts: number;
  readonly backoff: Backoff;
  readonly backoffParams: BackoffParams;
  readonly methods: ReadonlySet<string>;
  readonly statusCodes: ReadonlySet<number>;
  readonly errorCodes: ReadonlySet<string>;
  readonly idempotencyKey: string | false;
  readonly retryAfter: Required<RetryAfterOptions> | false;
  readonly deadlineMs: number | undefined;
  readonly attemptTimeoutMs: number | undefined;
  readonly bufferStreamBytes: number;
  readonly discardBodyMaxBytes: number;
  readonly budget: RetryBudget | undefined;
  readonly shouldRetry: RetryOptions['shouldRetry'];
  readonly onRetry: RetryOptions['onRetry'];
  readonly onGiveUp: RetryOptions['onGiveUp'];
  readonly onFinish: RetryOptions['onFinish'];
  readonly random: RandomSource;
  readonly sleep: Sleep;
  readonly now: () => number;
}

/** The defaults, as documented. */
export const DEFAULTS = Object.freeze({
  maxAttempts: 3,
  backoff: Object.freeze({ strategy: 'full', baseMs: 100, capMs: 20_000 } as const),
  methods: Object.freeze(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'TRACE', 'QUERY']),
  statusCodes: Object.freeze([408, 429, 500, 502, 503, 504]),
  errorCodes: DEFAULT_ERROR_CODES,
  idempotencyKey: 'Idempotency-Key',
  retryAfter: Object.freeze({ maxMs: 60_000, whenLonger: 'give-up', jitterRatio: 0.1 } as const),
  bufferStreamBytes: 0,
  discardBodyMaxBytes: 65_536,
});

const OVERRIDABLE_KEYS = [
  'maxAttempts',
  'backoff',
  'methods',
  'statusCodes',
  'errorCodes',
  'idempotencyKey',
  'retryAfter',
  'deadlineMs',
  'attemptTimeoutMs',
  'bufferStreamBytes',
  'discardBodyMaxBytes',
  'shouldRetry',
  'onRetry',
  'onGiveUp',
  'onFinish',
  'budget',
] as const;
export const POLICY_KEYS: ReadonlySet<string> = new Set([
  ...OVERRIDABLE_KEYS,
  'random',
  'sleep',
  'now',
  'routes',
]);
export const ROUTE_KEYS: ReadonlySet<string> = new Set([...OVERRIDABLE_KEYS, 'match', 'name', 'retry']);

const bad = (path: string, expected: string, value: unknown): never => {
  throw new TypeError(`jitterbug: option "${path}" must be ${expected}, got ${describeValue(value)}`);
};

/** Nested fields are inherited only when absent: `?? ` would also let `null` through unchecked. */
const given = <T>(value: unknown, inherited: T): unknown => (value === undefined ? inherited : value);

/** Whether `value` can hold option fields: an object that is not an array. */
export const isOptionObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const finiteAtLeast = (path: string, value: unknown, min: number): number =>
  typeof value === 'number' && Number.isFinite(value) && value >= min
    ? value
    : bad(path, `a finite number >= ${min}`, value);

const positiveInteger = (path: string, value: unknown): number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 1000
    ? value
    : bad(path, 'an integer from 1 to 1000', value);

const fn = <T>(path: string, value: unknown): T | undefined =>
  value === undefined
    ? undefined
    : typeof value === 'function'
      ? (value as T)
      : bad(path, 'a function', value);

// RFC 9110 §5.6.2 token: the syntax of header names and of methods.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

const stringList = (
  path: string,
  value: unknown,
  valid: (v: string) => boolean,
  expected: string,
): string[] => {
  if (!Array.isArray(value)) return bad(path, `an array of ${expected}s`, value);
  return value.map((v, i) => (typeof v === 'string' && valid(v) ? v : bad(`${path}[${i}]`, expected, v)));
};

const nonBlank = (v: string): boolean => v.trim() !== '';
const isToken = (v: string): boolean => TOKEN.test(v);

export const resolveBackoff = (
  path: string,
  value: unknown,
  base?: { readonly backoff: Backoff; readonly params: BackoffParams },
): { backoff: Backoff; params: BackoffParams } => {
  const d = DEFAULTS.backoff;
  const inherited = base ?? {
    backoff: backoffStrategies[d.strategy],
    params: { baseMs: d.baseMs, capMs: d.capMs },
  };
  if (typeof value === 'function') return { backoff: value as Backoff, params: inherited.params };
  if (!isOptionObject(value)) return bad(path, 'an object or a function', value);
  for (const key of Object.keys(value)) {
    if (key !== 'strategy' && key !== 'baseMs' && key !== 'capMs')
      throw new TypeError(`jitterbug: unknown option "${path}.${key}"`);
  }
  // A route's `{ capMs }` keeps the policy's strategy and base: only the fields given change.
  const o = value as BackoffOptions;
  let backoff: Backoff;
  if (o.strategy === undefined) backoff = inherited.backoff;
  else if (typeof o.strategy === 'function') backoff = o.strategy;
  else if (typeof o.strategy === 'string' && Object.hasOwn(backoffStrategies, o.strategy)) {
    backoff = backoffStrategies[o.strategy];
  } else {
    return bad(
      `${path}.strategy`,
      `a function or one of ${Object.keys(backoffStrategies).join(', ')}`,
      o.strategy,
    );
  }
  const baseMs = finiteAtLeast(`${path}.baseMs`, given(o.baseMs, inherited.params.baseMs), 0);
  const capMs = finiteAtLeast(`${path}.capMs`, given(o.capMs, Math.max(inherited.params.capMs, baseMs)), 0);
  if (capMs < baseMs) bad(`${path}.capMs`, `>= ${path}.baseMs (${baseMs})`, capMs);
  return { backoff, params: { baseMs, capMs } };
};

const resolveRetryAfter = (
  path: string,
  value: unknown,
  base: Required<RetryAfterOptions> | false | undefined,
): Required<RetryAfterOptions> | false => {
  const inherited = base || DEFAULTS.retryAfter;
  if (value === false) return false;
  if (value === true) return { ...inherited };
  if (!isOptionObject(value)) return bad(path, 'an object or false', value);
  for (const key of Object.keys(value)) {
    if (!Object.hasOwn(DEFAULTS.retryAfter, key))
      throw new TypeError(`jitterbug: unknown option "${path}.${key}"`);
  }
  const o = value as RetryAfterOptions;
  const whenLonger = given(o.whenLonger, inherited.whenLonger);
  if (whenLonger !== 'give-up' && whenLonger !== 'cap')
    bad(`${path}.whenLonger`, '"give-up" or "cap"', whenLonger);
  const jitterRatio = given(o.jitterRatio, inherited.jitterRatio);
  if (typeof jitterRatio !== 'number' || !(jitterRatio >= 0 && jitterRatio <= 1)) {
    bad(`${path}.jitterRatio`, 'a number from 0 to 1', jitterRatio);
  }
  return {
    maxMs: finiteAtLeast(`${path}.maxMs`, given(o.maxMs, inherited.maxMs), 0),
    whenLonger: whenLonger as 'give-up' | 'cap',
    jitterRatio: jitterRatio as number,
  };
};

const resolveBudget = (path: string, value: unknown): RetryBudget | undefined => {
  if (value === false) return undefined;
  if (isRetryBudget(value)) return value;
  return createRetryBudget(value as RetryBudgetOptions, path);
};

/**
 * Validates `source` (a policy's options or a route rule) and lays it over `base`. Only the keys
 * present in `source` change; `path` prefixes option names in error messages.
 */
export const resolveOptions = (
  source: Record<string, unknown>,
  base: ResolvedOptions | undefined,
  path: string,
  allowed: ReadonlySet<string>,
): ResolvedOptions => {
  if (!isOptionObject(source)) return bad(path || 'options', 'an object', source);
  const name = (key: string): string => (path ? `${path}.${key}` : key);
  for (const key of Object.keys(source)) {
    if (!allowed.has(key)) throw new TypeError(`jitterbug: unknown option "${name(key)}"`);
  }
  const has = (key: string): boolean => source[key] !== undefined;
  const d = DEFAULTS;

  const backoff = has('backoff')
    ? resolveBackoff(
        name('backoff'),
        source.backoff,
        base && { backoff: base.backoff, params: base.backoffParams },
      )
    : undefined;
  const idempotencyKey = has('idempotencyKey')
    ? source.idempotencyKey
    : base
      ? base.idempotencyKey
      : d.idempotencyKey;
  if (idempotencyKey !== false && !(typeof idempotencyKey === 'string' && TOKEN.test(idempotencyKey))) {
    bad(name('idempotencyKey'), 'a header name or false', idempotencyKey);
  }
  const statusCodes = has('statusCodes') ? source.statusCodes : undefined;
  if (statusCodes !== undefined) {
    if (!Array.isArray(statusCodes)) bad(name('statusCodes'), 'an array of status codes', statusCodes);
    (statusCodes as unknown[]).forEach((s, i) => {
      if (!(typeof s === 'number' && Number.isInteger(s) && s >= 100 && s <= 599)) {
        bad(`${name('statusCodes')}[${i}]`, 'an integer from 100 to 599', s);
      }
    });
  }
  const optionalNumber = (key: string, min: number): number | undefined =>
    has(key) ? finiteAtLeast(name(key), source[key], min) : undefined;
  const deadlineMs = optionalNumber('deadlineMs', 0);
  const attemptTimeoutMs = optionalNumber('attemptTimeoutMs', 1);
  const bufferStreamBytes = optionalNumber('bufferStreamBytes', 0);
  const discardBodyMaxBytes = optionalNumber('discardBodyMaxBytes', 0);
  const retry = has('retry') ? source.retry : true;
  if (typeof retry !== 'boolean') bad(name('retry'), 'a boolean', retry);

  const random = fn<RandomSource>(name('random'), source.random) ?? base?.random ?? Math.random;
  const sleep = fn<Sleep>(name('sleep'), source.sleep) ?? base?.sleep ?? defaultSleep;
  const now = fn<() => number>(name('now'), source.now) ?? base?.now ?? Date.now;

  return {
    retry: retry as boolean,
    route: undefined,
    maxAttempts: has('maxAttempts')
      ? positiveInteger(name('maxAttempts'), source.maxAttempts)
      : (base?.maxAttempts ?? d.maxAttempts),
    backoff: backoff?.backoff ?? base?.backoff ?? backoffStrategies[d.backoff.strategy],
    backoffParams: backoff?.params ??
      base?.backoffParams ?? { baseMs: d.backoff.baseMs, capMs: d.backoff.capMs },
    methods: has('methods')
      ? new Set(
          stringList(name('methods'), source.methods, isToken, 'HTTP method (a token)').map((m) =>
            m.toUpperCase(),
          ),
        )
      : (base?.methods ?? new Set(d.methods)),
    statusCodes:
      statusCodes !== undefined
        ? new Set(statusCodes as number[])
        : (base?.statusCodes ?? new Set(d.statusCodes)),
    errorCodes: has('errorCodes')
      ? new Set(stringList(name('errorCodes'), source.errorCodes, nonBlank, 'non-empty string'))
      : (base?.errorCodes ?? new Set(d.errorCodes)),
    idempotencyKey: idempotencyKey === false ? false : (idempotencyKey as string).toLowerCase(),
    retryAfter: has('retryAfter')
      ? resolveRetryAfter(name('retryAfter'), source.retryAfter, base?.retryAfter)
      : base
        ? base.retryAfter
        : { ...d.retryAfter },
    deadlineMs: deadlineMs ?? base?.deadlineMs,
    attemptTimeoutMs: attemptTimeoutMs ?? base?.attemptTimeoutMs,
    bufferStreamBytes: bufferStreamBytes ?? base?.bufferStreamBytes ?? d.bufferStreamBytes,
    discardBodyMaxBytes: discardBodyMaxBytes ?? base?.discardBodyMaxBytes ?? d.discardBodyMaxBytes,
    budget: has('budget')
      ? resolveBudget(name('budget'), source.budget)
      : base
        ? base.budget
        : createRetryBudget(),
    shouldRetry: fn(name('shouldRetry'), source.shouldRetry) ?? base?.shouldRetry,
    onRetry: fn(name('onRetry'), source.onRetry) ?? base?.onRetry,
    onGiveUp: fn(name('onGiveUp'), source.onGiveUp) ?? base?.onGiveUp,
    onFinish: fn(name('onFinish'), source.onFinish) ?? base?.onFinish,
    random,
    sleep,
    now,
  };
};
