/**
 * The public options of a retry policy, the hooks' payloads and the defaults. Types only, apart from
 * {@link DEFAULTS}: validation is in `validate.ts`.
 */

import type { Backoff, BackoffStrategyName, RandomSource } from './backoff.ts';
import { DEFAULT_ERROR_CODES } from './errors.ts';
import type { AttemptInfo, GiveUpEvent, MaybePromise, NextAttempt, RetryEvent, RetryInfo } from './events.ts';
import type { AttemptHeaders } from './features/attempt-headers.ts';
import type { BodyBuffering } from './features/body-buffering.ts';
import type { RetryBudget, RetryBudgetOptions } from './features/budget.ts';
import type { CircuitBreaker } from './features/circuit-breaker.ts';
import type { CredentialRefresh } from './features/credential.ts';
import type { RunFeature } from './features/feature.ts';
import type { Hedging } from './features/hedging.ts';
import type { IdempotencyKeys } from './features/idempotency-keys.ts';
import type { Pacer } from './features/pacer.ts';
import type { Resume } from './features/resume.ts';
import type { FeatureSettings } from './features/table.ts';
import type { AdaptiveThrottle } from './features/throttle.ts';
import type { RetryAfterOptions, RunOptions } from './run-options.ts';
import type { Sleep } from './sleep.ts';

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
export type { AttemptHeadersOptions } from './features/attempt-headers.ts';
export type { IdempotencyKeyOptions } from './features/idempotency-keys.ts';
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

/** The options a route rule or a single call may override. */
export interface RetryOverrides {
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
   * Default `'Idempotency-Key'`; `false` turns this off; `createIdempotencyKeys({ header?, generate? })`
   * also gives a request that has no key one of its own (see {@link IdempotencyKeyOptions}). A
   * factory, so that a program that never generates keys does not carry it.
   */
  readonly idempotencyKey?: string | false | IdempotencyKeys;
  /**
   * Tells the server which attempt this is, on every attempt (the first too), from
   * `createAttemptHeaders(names?)`: `attempt=2; max=3` in `amz-sdk-request` (the AWS SDK's header and
   * form), and, when `deadlineMs` is set, the ms left of it in `x-envoy-expected-rq-timeout-ms` (as
   * Envoy tells its upstreams), so that a server can shed retries first and log them as such; your
   * own names in `names` (`false` for none). Default `false`. A factory, so that a program that
   * never sends them does not carry them.
   */
  readonly attemptHeaders?: AttemptHeaders | false;
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
   * `createBodyBuffering({ maxBytes? })`: a stream request body that fits is read into memory
   * first, so that a retry sends the same bytes again. Default off (`false`): a stream body is sent
   * once, and a failure that would be retried stops with `reason: 'body-not-replayable'`.
   */
  readonly bodyBuffering?: BodyBuffering | false;
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
  /** A budget for this route instead of the policy's; `false` for none. */
  readonly budget?: RetryBudgetOptions | RetryBudget | false;
  /**
   * Resumed downloads, from `createResume()`: a download whose body breaks after the response was
   * handed over asks for the rest (`Range` from the byte it broke at, `If-Range` with the response's
   * strong ETag or Last-Modified; only a `206` that continues the same representation at that byte
   * is spliced on, anything else ends the body with a `ResumeError`). For a GET answered 200 without
   * a content coding; each resume counts as an attempt and draws on the budget. Default `false`
   * (continuing a body costs every such response a stream of its own; with fetch the caller gets a
   * new `Response`, without `url`/`redirected`). A factory, so that a program that never resumes
   * does not carry it.
   */
  readonly resume?: Resume | false;
  /**
   * Retries of a failure that proves the request never reached the server's application (the
   * connection was refused or never made — `UNPROCESSED_ERROR_CODES` —, HTTP/2 `REFUSED_STREAM`, a
   * `GOAWAY` below the request's stream), for **any** method, POST included: this many per request,
   * apart from `maxAttempts`, within the budget and the deadline. Default 2; `0` turns them off.
   */
  readonly transparentRetries?: number;
  /**
   * Hedged requests, from `createHedging({ delayMs, maxCopies?, ratio? })`: an attempt that has had
   * no answer after `delayMs` is sent again, up to `maxCopies` copies in flight, and the first final
   * answer wins (the others are cancelled). Only for requests that may be sent twice, within a hedge
   * budget of its own. Default `false`. A policy's or a route's setting (not a call's: a percentile
   * needs the latencies they share). A factory, so that a program that never hedges does not carry it.
   */
  readonly hedge?: Hedging | false;
  /**
   * A credential refreshed once for every request refused with it, from
   * `createCredentialRefresh({ refresh, header?, statusCodes? })`: a request answered 401 (or one
   * of `statusCodes`) is sent again at once with the credential `refresh()` makes, which it sets in
   * `header` (`authorization`); the requests refused with the same credential share one refresh, and
   * a request sent with an older credential than the last refresh's takes that one. That retry takes
   * no budget token, is not counted in `maxAttempts`, and is made once: refused again, the request
   * ends (`credential-refused`). Default `false`.
   */
  readonly credential?: CredentialRefresh | false;
}

/**
 * What a single call may override (its `jitterbug` option, `policy.begin`'s overrides): a route's
 * options but `hedge` — a percentile needs the latencies that the requests of a policy share.
 */
export type CallOverrides = Omit<RetryOverrides, 'hedge'>;

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
export interface RetryOptions extends RetryOverrides {
  /** Random source for jitter, `[0, 1)`. Default `Math.random`. */
  readonly random?: RandomSource;
  /** How to wait. Default: a timer that an `AbortSignal` cancels. */
  readonly sleep?: Sleep;
  /** The clock, in epoch ms, for deadlines and HTTP-dates. Default `Date.now`. */
  readonly now?: () => number;
  /**
   * The origin-wide pacer, from `createPacer()`: it learns the rate each origin accepts — from what
   * the server advertises (`RateLimit` / `RateLimit-Policy`, `X-RateLimit-Remaining` /
   * `X-RateLimit-Reset`) and from its 429s (not before their `Retry-After`, then a little below what it
   * accepted, growing again along a cubic curve) — and sends the policy's requests to it no faster, in
   * the order they came. A wait longer than `retryAfter.maxMs` (or past the deadline) fails the
   * request at once with a `PacerError`; while an origin answers everything with 503, requests fail at
   * once but one every 500 ms. Default `false`. Give one `Pacer` to several policies to share it.
   */
  readonly pacer?: Pacer | false;
  /**
   * A circuit breaker per origin, from `createCircuitBreaker()`: when a share of an origin's answers
   * fail, requests to it fail at once with a `CircuitOpenError` for a while (a retry waits the break
   * out), then one request probes it. Default `false`. A policy's option; give one breaker to several
   * policies (or a `store` to the fleet) to share it.
   */
  readonly breaker?: CircuitBreaker | false;
  /**
   * Adaptive client-side throttling (Google SRE book, ch. 21): over a sliding window the policy counts
   * the attempts it wanted to send and those the server accepted (answered with anything but 429 or
   * 503), and refuses a share `max(0, (requests − k·accepts) / (requests + 1))` locally: a first
   * attempt fails with a `ThrottledError`, a retry is not made (the last answer is handed over).
   * Default `false`; `createAdaptiveThrottle()` for `{ k: 2, windowMs: 120_000 }`, or with options.
   * Give one `AdaptiveThrottle` to several policies to share it.
   */
  readonly throttle?: AdaptiveThrottle | false;
  /**
   * The herd line: when a rate limit tells many requests to one origin to come back (429s retried
   * at the time the server gave), they go back one after the other at a pace the line learns (it
   * starts slowly after the server's time and doubles every half second; one it let go refused
   * again slows it to what the server accepted), not all at that time. First attempts are never
   * held. Default `true`; `false` retries each 429 at its own time. A pacer (`pacer:
   * createPacer()`) replaces it. A policy's option (the line is shared by its routes and calls).
   */
  readonly herd?: boolean;
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
  /** Those of them that see a run's summary (`finish`). */
  readonly finishing: readonly RunFeature[];
  /** Those of them that may set something on a retry, a hedged copy or a resume (`edit`). */
  readonly editing: readonly RunFeature[];
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
