/**
 * The options a request runs with, as the decision and the features read them: everything the
 * options resolve to except the features themselves (`ResolvedOptions` adds those). A leaf, so that
 * what a feature sees of its run does not lead back to the features.
 */
import type { Backoff, BackoffParams, RandomSource } from './backoff.ts';
import type { AttemptInfo, GiveUpEvent, MaybePromise, NextAttempt, RetryEvent, RetryInfo } from './events.ts';
import type { Sleep } from './sleep.ts';

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

/** The options in force for one request, after defaults, validation, route rules and the call's overrides. */
export interface RunOptions {
  /** Whether requests are retried at all (`false` from a route's `retry: false` or a call's `false`). */
  readonly retry: boolean;
  /** Why `retry` is `false`: a route rule, or the call's own `false`. */
  readonly disabledBy: 'route-disabled' | 'retry-disabled';
  /** The matched route rule's name, or `undefined`. */
  readonly route: string | undefined;
  /** See `RetryOverrides.maxAttempts`. */
  readonly maxAttempts: number;
  /** See `RetryOverrides.transparentRetries`. */
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
  /** See `RetryOverrides.retryAfter`, with every field filled in; `false` ignores server delays. */
  readonly retryAfter: Required<RetryAfterOptions> | false;
  /** See `RetryOverrides.deadlineMs`. */
  readonly deadlineMs: number | undefined;
  /** See `RetryOverrides.attemptTimeoutMs`. */
  readonly attemptTimeoutMs: number | undefined;
  /** See `RetryOverrides.discardBodyMaxBytes`. */
  readonly discardBodyMaxBytes: number;
  /**
   * Answers the policy's requests got (any status), shared by its routes and calls: whether servers
   * answered between two transparent retries of a request, and whether the last answer was a
   * failure (a keep-alive race is free of the budget only while they answer fine).
   */
  readonly progress: {
    /** How many answers so far. */
    answers: number;
    /** `answers` when the last answer with a status the policy retries came (`-1`: none yet). */
    failedAt: number;
  };
  /** Whether a feature observes every answer (then no answer is settled by its status alone). */
  readonly observing: boolean;
  /** See `RetryOverrides.shouldRetry`. */
  readonly shouldRetry: ((info: AttemptInfo) => MaybePromise<boolean | undefined>) | undefined;
  /** See `RetryOverrides.isFailure`. */
  readonly isFailure: ((info: AttemptInfo) => MaybePromise<boolean | undefined>) | undefined;
  /** See `RetryOverrides.onRetry`. */
  readonly onRetry: ((event: RetryEvent) => unknown) | undefined;
  /** See `RetryOverrides.onGiveUp`. */
  readonly onGiveUp: ((event: GiveUpEvent) => unknown) | undefined;
  /** See `RetryOverrides.onFinish`. */
  readonly onFinish: ((info: RetryInfo) => unknown) | undefined;
  /** See `RetryOverrides.beforeRetry`. */
  readonly beforeRetry: ((next: NextAttempt) => unknown) | undefined;
  /** See `RetryOptions.random`. */
  readonly random: RandomSource;
  /** See `RetryOptions.sleep`. */
  readonly sleep: Sleep;
  /** See `RetryOptions.now`. */
  readonly now: () => number;
}
