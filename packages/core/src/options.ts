/**
 * The public options of a retry policy, the hooks' payloads and the defaults. Types only, apart from
 * {@link DEFAULTS}: validation is in `validate.ts`.
 */

import type { Backoff, BackoffStrategyName, RandomSource } from './backoff.ts';
import { DEFAULT_ERROR_CODES } from './errors.ts';
import type { AttemptInfo, GiveUpEvent, MaybePromise, NextAttempt, RetryEvent, RetryInfo } from './events.ts';
import type { RunFeature } from './features/feature.ts';
import type {
  FeatureSettings,
  PolicyFeatureOptions,
  RouteFeatureOptions,
  RouteOnlyOption,
} from './features/table.ts';
import type { RetryAfterOptions, RunOptions } from './run-options.ts';
import type { Sleep } from './sleep.ts';
import type { RequestEditing } from './types.ts';

export type {
  AttemptInfo,
  DelaySource,
  GiveUpEvent,
  MaybePromise,
  Mutable,
  NextAttempt,
  RetryEvent,
  RetryInfo,
  RetryReason,
  StopReason,
} from './events.ts';
export type { RetryAfterOptions, RunOptions } from './run-options.ts';

/** Backoff settings: a built-in strategy with its numbers, or your own function. */
export interface BackoffOptions {
  /** A built-in strategy by name, or your own function (which then gets `baseMs`/`capMs`). Default `'full'`. */
  readonly strategy?: BackoffStrategyName | Backoff;
  /** Default 100. */
  readonly baseMs?: number;
  /** Default 20 000. */
  readonly capMs?: number;
}

/**
 * The options a route rule or a single call may override: these, and the options of the features a
 * route rule takes (the feature table's rows, `features/table.ts`, each declared in its feature's file).
 */
export interface RetryOverrides extends RouteFeatureOptions {
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
   * Server-given delays; `false` ignores them, `true` is the defaults. Default
   * `{ maxMs: 60_000, whenLonger: 'give-up', jitterRatio: 0.1 }`.
   */
  readonly retryAfter?: RetryAfterOptions | boolean;
  /** Total time budget across attempts and waits, in ms; no wait that would end past it is started. */
  readonly deadlineMs?: number;
  /** Per-attempt timeout, in ms; a timed-out attempt fails with `ERR_JITTERBUG_ATTEMPT_TIMEOUT` (retryable). */
  readonly attemptTimeoutMs?: number;
  /**
   * A response that will be retried has up to this many body bytes drained (so its connection can be
   * reused); past that the connection is closed. Default 65 536.
   */
  readonly discardBodyMaxBytes?: number;
  /**
   * Overrides the decision about a failure — an error, a status of 400 or more, or one listed in
   * `statusCodes` — as axios-retry's `retryCondition` and ky's `shouldRetry` are asked: `true`
   * retry, `false` stop, `undefined` default; or a promise of one of these (awaited). A success is
   * never asked about (`() => true` sends no 200 again: see `isFailure` for a 2xx whose body says
   * "error"). `true` stays within the method rule: a request whose method is not in `methods` and
   * that has no idempotency key (a POST) is not retried, whatever the hook says (give it a key, or
   * list its method). Never retries a non-replayable body, past `maxAttempts`, the deadline or the
   * budget. A throw or a rejection fails the request with that error (the run ends as
   * `hook-failed`).
   */
  readonly shouldRetry?: (info: AttemptInfo) => MaybePromise<boolean | undefined>;
  /**
   * Whether a response below 400 (and not in `statusCodes`) is a failure all the same — a 2xx whose
   * body says "error" (read `info.response`: a clone of fetch's, axios' `data`) —, as axios-retry's
   * `validateResponse` returning `false`: `true` retries it as a status in `statusCodes` is, within
   * the method rule, `maxAttempts`, the deadline and the budget; anything else is the success it
   * looks like. Asked about those responses only (`shouldRetry` about failures). A throw or a
   * rejection fails the request with that error.
   */
  readonly isFailure?: (info: AttemptInfo) => MaybePromise<boolean | undefined>;
  /**
   * Called before each wait; a returned promise is awaited first, and its rejection (or a throw) fails
   * the request with that error (the run ends as `hook-failed`).
   */
  readonly onRetry?: (event: RetryEvent) => unknown;
  /**
   * Called when a failure that would be retried is not: attempts, budget or deadline used up, a
   * server delay above `retryAfter.maxMs`, a body that cannot be sent again, a method that is not
   * retried (a POST without an idempotency key). Not for a status or an error that is never retried
   * (a 404). A returned promise is
   * awaited before the caller gets the result; its rejection (or a throw) fails the request with that
   * error (the run ends as `hook-failed`).
   */
  readonly onGiveUp?: (event: GiveUpEvent) => unknown;
  /**
   * Called once when a request is finished, success or not. A returned promise is awaited before the
   * caller gets the result; its rejection fails the request.
   */
  readonly onFinish?: (info: RetryInfo) => unknown;
  /**
   * Called right before each retry is sent (after its wait), each hedged copy and each request for
   * the rest of a broken body, with the request as it will go: change its headers or its URL (a
   * fresh token after a 401, a new signature, a mirror host); the change stays for what follows.
   * The method and the body cannot be changed. A returned promise is awaited; its rejection (or a
   * throw) fails the request with that error (the run ends as `hook-failed`).
   */
  readonly beforeRetry?: (next: NextAttempt) => unknown;
  /**
   * Retries of a failure that proves the request never reached the server's application (the
   * connection was refused or never made — `UNPROCESSED_ERROR_CODES` —, HTTP/2 `REFUSED_STREAM`, a
   * `GOAWAY` below the request's stream), for **any** method, POST included: this many per request,
   * apart from `maxAttempts`, within the budget and the deadline. Default 2; `0` turns them off.
   */
  readonly transparentRetries?: number;
}

/**
 * What a single call may override (its `jitterbug` option, `policy.begin`'s overrides): a route's
 * options but the features a policy's requests share across calls (`hedge`: a percentile needs the
 * latencies that the requests of a policy share).
 */
export interface CallOverrides extends Omit<RetryOverrides, RouteOnlyOption> {}

/** What a route rule matches: `"POST /payments/*"`, `"/reports/*"`, a `URLPattern`, or a predicate. */
export type RouteMatch =
  | string
  | {
      /** Matches a URL's parts (a `URLPattern`'s `exec`); only its presence is read. */
      exec(input: { pathname: string }): unknown;
      /** Whether the request's full URL matches. */
      test(input: string | { pathname?: string }): boolean;
    }
  | ((request: { readonly method: string; readonly url: URL }) => boolean);

/** A per-route policy: the first rule whose `match` matches overrides the base options. */
export interface RouteRule extends RetryOverrides {
  /** Which requests the rule covers: `"POST /payments/*"`, `"/reports/*"`, a `URLPattern`, or a predicate. */
  readonly match: RouteMatch;
  /** A name for events and timelines. Default: the pattern string. */
  readonly name?: string;
  /** `false` disables retries for matching requests. */
  readonly retry?: boolean;
}

/**
 * Options of a retry policy, as adapters take them (`withRetry(fetch, options)`, `kyRetry(options)`,
 * …). Per-route rules need {@link RetryPolicyOptions} and `createRetryPolicy`.
 */
export interface RetryOptions extends RetryOverrides, PolicyFeatureOptions {
  /** Random source for jitter, `[0, 1)`. Default `Math.random`. */
  readonly random?: RandomSource;
  /** How to wait. Default: a timer that an `AbortSignal` cancels. */
  readonly sleep?: Sleep;
  /** The clock, in epoch ms, for deadlines and HTTP-dates. Default `Date.now`. */
  readonly now?: () => number;
}

/** Options of `createRetryPolicy`: everything adapters take, and per-route rules. */
export interface RetryPolicyOptions extends RetryOptions {
  /** Per-route policies, first match wins. */
  readonly routes?: readonly RouteRule[];
}

/** Options after defaults and validation. */
export interface ResolvedOptions extends RunOptions {
  /**
   * The features in force, by their option (`feature.budget`: the retry budget; `undefined` or
   * absent: off), as the feature table (`features/table.ts`) resolved them.
   */
  readonly feature: FeatureSettings;
  /** The run-level features in force, outermost first (see `features/feature.ts`). */
  readonly features: readonly RunFeature[];
  /** The one of them that wraps the send of each attempt (hedging: racing copies). */
  readonly racer: RunFeature | undefined;
  /** Those of them that may hold or refuse an attempt (`admit`). */
  readonly admitting: readonly RunFeature[];
  /** Of those, the ones asked about a first attempt too (not `retriesOnly`). */
  readonly admittingFirst: readonly RunFeature[];
  /** Those of them that see a run's summary (`finish`). */
  readonly finishing: readonly RunFeature[];
  /** Those of them that may set something on a retry, a hedged copy or a resume (`edit`). */
  readonly editing: readonly RunFeature[];
  /**
   * What applies the attempts' edits, brought by the factory of a feature that edits a request
   * (`createRequestEdits()`, the attempt headers, generated keys, a credential refresh); `undefined`
   * when none is in force: nothing is then set on any attempt.
   */
  readonly edits: RequestEditing | undefined;
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
  discardBodyMaxBytes: 65_536,
  transparentRetries: 2,
  resume: false,
});
