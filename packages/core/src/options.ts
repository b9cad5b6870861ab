/**
 * The public options of a retry policy, the hooks' payloads and the defaults. Types only, apart from
 * {@link DEFAULTS}: validation is in `validate.ts`.
 */

import type { Backoff, BackoffParams, BackoffStrategyName, RandomSource } from './backoff.ts';
import { DEFAULT_ERROR_CODES } from './errors.ts';
import type { AttemptHeaders } from './features/attempt-headers.ts';
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
import type { HeaderGetter } from './retry-after.ts';
import type { Sleep } from './sleep.ts';

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
  | 'retry-disabled' // retries turned off for this call (`false` as the call's overrides)
  | 'should-retry' // the user's shouldRetry said no
  | 'max-attempts'
  | 'deadline'
  | 'retry-after-too-long'
  | 'budget-exhausted'
  | 'throttled' // the adaptive throttle refused the attempt locally
  | 'origin-unavailable' // the pacer: the origin answers everything with 503, and this was not its probe
  | 'declined-by-server' // a status that is retried came with `x-should-retry: false`
  | 'credential-refused' // the request sent again with a fresh credential (`credential`) was refused again
  | 'key-reused' // a request with an idempotency key answered 422: the key was used with another payload
  | 'quota-exceeded' // the quota is spent: a `quota-exceeded` problem, or a spent quota back later than `retryAfter.maxMs`
  | 'abnormal-usage' // an `abnormal-usage-detected` problem: the server takes the requests for abuse
  | 'circuit-open' // the breaker: the origin's circuit is open, and this attempt was not sent
  | 'hook-failed'; // shouldRetry, onRetry or onGiveUp threw or rejected: the request fails with that error

/**
 * Why an attempt was retried: a status or an error that is retried, a retry the user forced
 * (`shouldRetry` returning `true` where jitterbug would not have retried, ky's `ky.retry()`), or a
 * failure that proves the server never processed the request (`transparentRetries`), or a body that
 * broke after it was handed over, asked for again from where it broke (`resume`), or a request
 * refused for a stale credential, sent again with a fresh one (`credential`). What an answer said
 * has reasons of its own: `key-in-use` (a request with an idempotency key answered 409: one with
 * this key is still being processed), `reduced-capacity` (a `temporary-reduced-capacity` problem),
 * `not-forwarded` (a `Proxy-Status` that proves no intermediary sent the request on: retried as
 * `unprocessed` is), and `offline` (a network failure while the browser was offline, retried once
 * it is back online).
 */
export type RetryReason =
  | 'status'
  | 'error'
  | 'forced'
  | 'unprocessed'
  | 'resume'
  | 'credential'
  | 'key-in-use'
  | 'reduced-capacity'
  | 'not-forwarded'
  | 'offline';

/**
 * Where a retry's delay came from: the backoff, a server's field (`ratelimit`: the `RateLimit` field
 * of a spent quota, its `t`), a delay given with the retry (`forced`: a forced retry's, or none at
 * all for a credential refresh's retry), or `offline`: the wait until the browser is back online
 * (its `online` event), `delayMs` being the longest it lasts.
 */
export type DelaySource =
  | 'backoff'
  | 'retry-after-ms'
  | 'x-ms-retry-after-ms'
  | 'retry-after'
  | 'ratelimit-reset'
  | 'x-ratelimit-reset'
  | 'ratelimit'
  | 'forced'
  | 'offline';

/** The request and the attempt that just ended, as passed to `shouldRetry` and `isFailure`. */
export interface AttemptInfo {
  /** The request's method, in upper case. */
  readonly method: string;
  /** The request's URL. */
  readonly url: string;
  /** 1-based number of the attempt that just ended. */
  readonly attempt: number;
  /** The status it got (`undefined` when it failed without a response). */
  readonly status: number | undefined;
  /** The error it failed with (`undefined` when it got a response). */
  readonly error: unknown;
  /** The response headers, when there was a response. */
  readonly headers: HeaderGetter | undefined;
  /**
   * The client's own response object, when the adapter has one to show: fetch's and ky's
   * `Response` (read a `clone()` of it), axios' response (with its `data`).
   */
  readonly response: unknown;
  /** What jitterbug would do without `shouldRetry`. */
  readonly defaultRetry: boolean;
  /** Time since the request began, in ms (by the policy's clock). */
  readonly elapsedMs: number;
}

/** Passed to `onRetry` before each wait. */
export interface RetryEvent {
  /** The request's method, in upper case. */
  readonly method: string;
  /** The request's URL. */
  readonly url: string;
  /** 1-based number of the attempt that failed. */
  readonly attempt: number;
  /** How long jitterbug waits before the next attempt, in ms. */
  readonly delayMs: number;
  /** Where that delay came from: the backoff, or the header the server gave it in. */
  readonly delaySource: DelaySource;
  /**
   * `true` when the attempt got a 429 or 503 and no delay jitterbug could read (`Retry-After`,
   * `retry-after-ms`, the `RateLimit` fields): the wait is the backoff's (`delaySource: 'backoff'`),
   * for a 429 at least a second (with `retryAfter`'s jitter, within its `maxMs`). In a browser, a cross-origin response's headers are readable only when the server lists them in
   * `Access-Control-Expose-Headers`: a server that sends `Retry-After` without exposing it is paced
   * by the backoff instead, and this says so. Always `false` with `retryAfter: false`.
   */
  readonly serverDelayUnread: boolean;
  /** Why this attempt is retried. */
  readonly reason: RetryReason;
  /** The status the attempt got (`undefined` when it failed without a response). */
  readonly status: number | undefined;
  /** The error the attempt failed with (`undefined` when it got a response). */
  readonly error: unknown;
  /** The matched route rule's `name` (or its pattern); `undefined` when no rule matched. */
  readonly route: string | undefined;
  /** Tokens left in the retry budget after this retry; `undefined` without a budget. */
  readonly budgetTokens: number | undefined;
}

/** The request about to be sent again, as `beforeRetry` sees and changes it. */
export interface NextAttempt {
  /** 1-based number of the attempt about to be sent (a hedged copy has its attempt's number). */
  readonly attempt: number;
  /**
   * A retry, a hedged copy of the attempt in flight, or a request for the rest of a body that broke
   * after it was handed over.
   */
  readonly kind: 'retry' | 'hedge' | 'resume';
  /** The request's method, in upper case (it cannot be changed). */
  readonly method: string;
  /** Where it goes: set an absolute `http:` or `https:` URL to send it there instead. */
  url: string;
  /** Its headers: set or delete some to send it with them. */
  readonly headers: Headers;
  /** The last attempt's status, when it got a response. */
  readonly status: number | undefined;
  /** The last attempt's response headers, when it got a response. */
  readonly responseHeaders: HeaderGetter | undefined;
  /** The last attempt's error, when it failed without a response. */
  readonly error: unknown;
}

/** The options of `createIdempotencyKeys(options)`. */
export interface IdempotencyKeyOptions {
  /** The header. Default `'Idempotency-Key'`. */
  readonly header?: string;
  /**
   * Makes the key a request whose method is not retried by itself (a POST, a PATCH) and that carries
   * none gets on its first attempt, and keeps on every retry, hedged copy and resume: such a request
   * is then retried safely with no code of yours. A key the caller set is never replaced. Default
   * `() => crypto.randomUUID()`.
   */
  readonly generate?: () => string;
}

/** The names `createAttemptHeaders(names)` sends: each header's name, or `false` for none. */
export interface AttemptHeadersOptions {
  /** `attempt=N; max=M` on every attempt. Default `'amz-sdk-request'`. */
  readonly attempt?: string | false;
  /** The ms left of `deadlineMs`, when it is set. Default `'x-envoy-expected-rq-timeout-ms'`. */
  readonly deadline?: string | false;
}

/** Passed to `onGiveUp` when a failed attempt is not retried. */
export interface GiveUpEvent {
  /** The request's method, in upper case. */
  readonly method: string;
  /** The request's URL. */
  readonly url: string;
  /** 1-based number of the attempt that failed and is not retried. */
  readonly attempt: number;
  /** Why it is not retried. */
  readonly reason: StopReason;
  /** The status the attempt got (`undefined` when it failed without a response). */
  readonly status: number | undefined;
  /** The error the attempt failed with (`undefined` when it got a response). */
  readonly error: unknown;
  /** The matched route rule's `name` (or its pattern); `undefined` when no rule matched. */
  readonly route: string | undefined;
  /** The delay that was not waited (for `deadline` and `retry-after-too-long`), else `undefined`. */
  readonly refusedDelayMs: number | undefined;
}

/**
 * What a finished request cost: returned by `getRetryInfo(response or error)` and passed to
 * `onFinish`.
 */
export interface RetryInfo {
  /** The request's method, in upper case. */
  readonly method: string;
  /** The request's URL. */
  readonly url: string;
  /** Attempts made, counting the first. */
  readonly attempts: number;
  /** Why each retry was made, in order (empty when the first attempt was final). */
  readonly retries: readonly RetryReason[];
  /** Sum of the waits between attempts, in ms. */
  readonly totalDelayMs: number;
  /**
   * Retries of a 429 or 503 that gave no delay jitterbug could read (see
   * {@link RetryEvent.serverDelayUnread}): above 0, the server's pacing was not followed, e.g. a
   * cross-origin API that does not expose `Retry-After`.
   */
  readonly serverDelaysUnread: number;
  /** Time from the first attempt's start to the end, in ms (by the policy's clock). */
  readonly elapsedMs: number;
  /**
   * `'success'` when the last attempt got a status below 400 that was not forced to retry, else
   * `'failure'`.
   */
  readonly outcome: 'success' | 'failure';
  /** Why the request ended where it did (`'success'`, `'max-attempts'`, …). */
  readonly reason: StopReason;
  /** The last attempt's status (`undefined` when it failed without a response). */
  readonly status: number | undefined;
  /** The last attempt's error, or the abort reason (`undefined` when it got a response). */
  readonly error: unknown;
  /** The matched route rule's `name` (or its pattern); `undefined` when no rule matched. */
  readonly route: string | undefined;
  /**
   * When the spent quota is back, in epoch ms by the policy's clock (`now`), for a request that
   * ended `quota-exceeded` with a time the server gave (`Retry-After`, the `RateLimit` field's `t`,
   * `X-RateLimit-Reset`): tell the user when to try again. Otherwise `undefined`.
   */
  readonly quotaResetAt: number | undefined;
  /** Hedged copies sent (extra to the attempts) and the copy of the last attempt that answered, if hedged. */
  readonly hedge:
    | {
        /** Copies sent besides the attempts themselves. */
        readonly copies: number;
        /** Which copy of the last attempt answered: 0 for the attempt, 1 for its first hedge, … */
        readonly winner: number;
      }
    | undefined;
}

/** `T` with its fields writable (what the run and its features fill in). */
export type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** A hook's result: a value, or a promise of it (awaited before the request goes on). */
export type MaybePromise<T> = T | PromiseLike<T>;

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
   * Stream request bodies up to this many bytes are buffered so that they can be replayed.
   * Default 0: a stream body is sent once and never retried.
   */
  readonly bufferStreamMaxBytes?: number;
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
export interface ResolvedOptions {
  /** Whether requests are retried at all (`false` from a route's `retry: false` or a call's `false`). */
  readonly retry: boolean;
  /** Why `retry` is `false`: a route rule, or the call's own `false`. */
  readonly disabledBy: 'route-disabled' | 'retry-disabled';
  /** The matched route rule's name, or `undefined`. */
  readonly route: string | undefined;
  /** See {@link RetryOverrides.maxAttempts}. */
  readonly maxAttempts: number;
  /** See {@link RetryOverrides.transparentRetries}. */
  readonly transparentRetries: number;
  /** The strategy with its numbers. */
  readonly backoff: BackoffParams & {
    /** The strategy's function (a built-in one, or the user's). */
    readonly strategy: Backoff;
  };
  /** The methods retried, in upper case. */
  readonly methods: ReadonlySet<string>;
  /** The statuses retried. */
  readonly statusCodes: ReadonlySet<number>;
  /** The error codes retried. */
  readonly errorCodes: ReadonlySet<string>;
  /** The idempotency key's header, in lower case, or `false`. */
  readonly idempotencyKey: string | false;
  /** See {@link RetryOverrides.retryAfter}, with every field filled in; `false` ignores server delays. */
  readonly retryAfter: Required<RetryAfterOptions> | false;
  /** See {@link RetryOverrides.deadlineMs}. */
  readonly deadlineMs: number | undefined;
  /** See {@link RetryOverrides.attemptTimeoutMs}. */
  readonly attemptTimeoutMs: number | undefined;
  /** See {@link RetryOverrides.bufferStreamMaxBytes}. */
  readonly bufferStreamMaxBytes: number;
  /** See {@link RetryOverrides.discardBodyMaxBytes}. */
  readonly discardBodyMaxBytes: number;
  /**
   * The features in force, by their option (`feature.budget`: the retry budget; `undefined` or
   * absent: off), as the feature table (`features/table.ts`) resolved them.
   */
  readonly feature: FeatureSettings;
  /**
   * Answers the policy's requests got (any status), shared by its routes and calls: whether servers
   * answered between two transparent retries of a request.
   */
  readonly progress: {
    /** How many answers so far. */
    answers: number;
  };
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
  /** Whether a feature observes every answer (then no answer is settled by its status alone). */
  readonly observing: boolean;
  /** See {@link RetryOverrides.shouldRetry}. */
  readonly shouldRetry: RetryOverrides['shouldRetry'];
  /** See {@link RetryOverrides.isFailure}. */
  readonly isFailure: RetryOverrides['isFailure'];
  /** See {@link RetryOverrides.onRetry}. */
  readonly onRetry: RetryOverrides['onRetry'];
  /** See {@link RetryOverrides.onGiveUp}. */
  readonly onGiveUp: RetryOverrides['onGiveUp'];
  /** See {@link RetryOverrides.onFinish}. */
  readonly onFinish: RetryOverrides['onFinish'];
  /** See {@link RetryOverrides.beforeRetry}. */
  readonly beforeRetry: RetryOverrides['beforeRetry'];
  /** See {@link RetryOptions.random}. */
  readonly random: RandomSource;
  /** See {@link RetryOptions.sleep}. */
  readonly sleep: Sleep;
  /** See {@link RetryOptions.now}. */
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
  bufferStreamMaxBytes: 0,
  discardBodyMaxBytes: 65_536,
  transparentRetries: 2,
  resume: false,
});
