/**
 * What the hooks are given and what a finished request reports (`onRetry`'s event, `getRetryInfo`'s
 * summary, the reasons in them): types only, a leaf that the options, the run, its features and the
 * diagnostics all read. `options.ts` exports them with the options.
 */
import type { HeaderGetter } from './retry-after.ts';

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
 * failure that proves the server never processed the request (`transparentRetries`), or a connection
 * kept alive from an earlier request that failed before any byte of the answer while the servers
 * answer fine (`stale-connection`: a keep-alive race, an error retry that takes no budget token), or
 * a body that broke after it was handed over, asked for again from where it broke (`resume`), or a
 * request refused for a stale credential, sent again with a fresh one (`credential`). What an answer said
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
  | 'stale-connection'
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
