/**
 * The retry decision: one pure function from an attempt's outcome to "retry after N ms" or "stop,
 * because …". Adapters never decide anything themselves; they translate and call this (through
 * {@link RetryRun.next}).
 */
import { type BackoffState, nextDelay, unitRandom } from './backoff.ts';
import { errorCode } from './errors.ts';
import type { DelaySource, ResolvedOptions, RetryInfo, StopReason } from './options.ts';
import { type HeaderGetter, serverDelay } from './retry-after.ts';

/** Everything the decision looks at. */
export interface AttemptOutcome {
  /** Upper-case method. */
  readonly method: string;
  readonly url: string;
  readonly requestHeaders: HeaderGetter;
  /** Whether the request body can be sent again unchanged (no body counts as replayable). */
  readonly bodyReplayable: boolean;
  /** 1-based number of the attempt that just ended. */
  readonly attempt: number;
  /** Time since the first attempt started. */
  readonly elapsedMs: number;
  /** The current time in epoch ms, for HTTP-dates. */
  readonly nowMs: number;
  readonly backoffState: BackoffState;
  /** Tokens in the retry budget (`Infinity` without one). */
  readonly budgetTokens: number;
  /** The response status, when a response arrived. */
  readonly status?: number | undefined;
  readonly responseHeaders?: HeaderGetter | undefined;
  /** The error, when the attempt failed without a response. */
  readonly error?: unknown;
  /** The caller's own signal aborted the request. */
  readonly aborted?: boolean | undefined;
}

/** A decision to stop. */
export type StopDecision = Extract<Decision, { readonly retry: false }>;

/** The decision. */
export type Decision =
  | {
      readonly retry: true;
      readonly delayMs: number;
      readonly delaySource: DelaySource;
      readonly nextBackoffState: BackoffState;
    }
  | {
      readonly retry: false;
      readonly reason: StopReason;
      /** The attempt failed in a way that is normally retried, and jitterbug stopped anyway. */
      readonly gaveUp: boolean;
      /** The delay that was not waited (`deadline`, `retry-after-too-long`). */
      readonly refusedDelayMs?: number;
    };

const NO_HEADERS: HeaderGetter = () => undefined;

const stop = (reason: StopReason, gaveUp: boolean, refusedDelayMs?: number): Decision =>
  refusedDelayMs === undefined
    ? { retry: false, reason, gaveUp }
    : { retry: false, reason, gaveUp, refusedDelayMs };

/** Whether the request may be retried at all: an idempotent method, or an idempotency key. */
export const methodAllowsRetry = (
  method: string,
  requestHeaders: HeaderGetter,
  options: Pick<ResolvedOptions, 'methods' | 'idempotencyKey'>,
): boolean => {
  if (options.methods.has(method)) return true;
  if (options.idempotencyKey === false) return false;
  const key = requestHeaders(options.idempotencyKey);
  return typeof key === 'string' && key.trim() !== '';
};

const SUCCESS: StopDecision = Object.freeze({ retry: false, reason: 'success', gaveUp: false });
const NOT_RETRYABLE: StopDecision = Object.freeze({
  retry: false,
  reason: 'status-not-retryable',
  gaveUp: false,
});
const ROUTE_DISABLED: StopDecision = Object.freeze({ retry: false, reason: 'route-disabled', gaveUp: false });

/**
 * The decision for a status that settles the request by itself: one that is not retried, with no
 * `shouldRetry` hook to ask. `undefined` when the full outcome is needed. This is the decision of
 * nearly every request, so it is made without building an {@link AttemptOutcome}.
 */
export const decideByStatus = (
  status: number,
  options: Pick<ResolvedOptions, 'statusCodes' | 'shouldRetry' | 'retry'>,
): StopDecision | undefined => {
  if (options.shouldRetry || options.statusCodes.has(status)) return undefined;
  if (status < 400) return SUCCESS;
  return options.retry ? NOT_RETRYABLE : ROUTE_DISABLED;
};

/**
 * Decides whether to retry after an attempt. Pure: the same outcome, options and random source
 * give the same decision. The budget is only read here; the caller withdraws the token.
 */
export const decide = (outcome: AttemptOutcome, options: ResolvedOptions): Decision => {
  if (outcome.aborted) return stop('aborted', false);
  if (outcome.status !== undefined) {
    const settled = decideByStatus(outcome.status, options);
    if (settled) return settled;
  }

  let retryable: boolean;
  let notRetryableReason: StopReason;
  if (outcome.status !== undefined) {
    retryable = options.statusCodes.has(outcome.status);
    notRetryableReason = outcome.status >= 400 ? 'status-not-retryable' : 'success';
  } else {
    const code = errorCode(outcome.error);
    retryable = code !== undefined && options.errorCodes.has(code);
    notRetryableReason = 'error-not-retryable';
  }
  if (!options.retry) return stop('route-disabled', retryable);

  const methodOk = methodAllowsRetry(outcome.method, outcome.requestHeaders, options);
  const defaultRetry = retryable && methodOk;
  let wanted = defaultRetry;
  if (options.shouldRetry) {
    const info: RetryInfo = {
      method: outcome.method,
      url: outcome.url,
      attempt: outcome.attempt,
      ...(outcome.status !== undefined
        ? { status: outcome.status, headers: outcome.responseHeaders ?? NO_HEADERS }
        : { error: outcome.error }),
      defaultRetry,
      elapsedMs: outcome.elapsedMs,
    };
    const verdict = options.shouldRetry(info);
    if (verdict === false) return stop('should-retry', retryable);
    if (verdict === true) wanted = true;
  }
  if (!wanted) return stop(retryable ? 'method-not-idempotent' : notRetryableReason, retryable);
  // Past this point the attempt is a failure we would retry: every stop is a give-up.
  if (!outcome.bodyReplayable) return stop('body-not-replayable', true);
  if (outcome.attempt >= options.maxAttempts) return stop('max-attempts', true);

  let delayMs: number;
  let delaySource: DelaySource = 'backoff';
  let nextBackoffState = outcome.backoffState;
  const server =
    options.retryAfter && outcome.status !== undefined && outcome.responseHeaders
      ? serverDelay(outcome.responseHeaders, outcome.nowMs)
      : undefined;
  if (server && options.retryAfter) {
    const { maxMs, whenLonger, jitterRatio } = options.retryAfter;
    if (server.ms > maxMs && whenLonger === 'give-up') return stop('retry-after-too-long', true, server.ms);
    // Jitter keeps clients told the same delay from coming back together, within [0, maxMs]: an
    // honoured delay is lengthened (never sooner than told), a capped one is shortened (it is
    // sooner than told already).
    const spread = unitRandom(options.random) * jitterRatio;
    delayMs = server.ms > maxMs ? maxMs - spread * maxMs : Math.min(maxMs, server.ms + spread * server.ms);
    delaySource = server.source;
  } else {
    [delayMs, nextBackoffState] = nextDelay(
      options.backoff,
      outcome.backoffState,
      options.backoffParams,
      options.random,
    );
  }

  // Written so that a NaN (a broken injected clock) refuses the wait instead of allowing it.
  if (options.deadlineMs !== undefined && !(outcome.elapsedMs + delayMs <= options.deadlineMs)) {
    return stop('deadline', true, delayMs);
  }
  if (outcome.budgetTokens < 1 - 1e-9) return stop('budget-exhausted', true);
  return { retry: true, delayMs, delaySource, nextBackoffState };
};
