/**
 * The retry decision: pure functions from an attempt's outcome to "retry after N ms" or "stop,
 * because …". Adapters never decide anything themselves; they translate and report to a
 * {@link RetryRun}, which asks the user's hooks and calls these.
 */

import { type AnswerSignal, answerSignal, asksRetry, hasKey } from './answer-signals.ts';
import { askedDelay } from './asked-delay.ts';
import { type BackoffState, nextDelay, unitRandom } from './backoff.ts';
import { errorCode, UNPROCESSED_ERROR_CODES } from './errors.ts';
import type { DelaySource, RetryReason, StopReason } from './events.ts';
import { notForwarded } from './proxy-status.ts';
import type { HeaderGetter } from './retry-after.ts';
import type { RunOptions } from './run-options.ts';

/** Everything the decision looks at. */
export interface AttemptOutcome {
  /** Upper-case method. */
  readonly method: string;
  /** The request's URL. */
  readonly url: string;
  /** Reads the request's headers (for the idempotency key). */
  readonly requestHeaders: HeaderGetter;
  /** Whether the request body can be sent again unchanged (no body counts as replayable). */
  readonly bodyReplayable: boolean;
  /** 1-based number of the attempt that just ended. */
  readonly attempt: number;
  /** Time since the first attempt started. */
  readonly elapsedMs: number;
  /** The current time in epoch ms, for HTTP-dates. */
  readonly nowMs: number;
  /** The backoff's state before this decision. */
  readonly backoffState: BackoffState;
  /** The response status, when a response arrived. */
  readonly status?: number | undefined;
  /** Reads the response's headers, when a response arrived. */
  readonly responseHeaders?: HeaderGetter | undefined;
  /**
   * The `type` of the response's `application/problem+json` body, when the attempt read one (the
   * RateLimit draft's `quota-exceeded`, `temporary-reduced-capacity`, `abnormal-usage-detected`).
   */
  readonly problemType?: string | undefined;
  /**
   * The proxy error type by which the answer's `Proxy-Status` proves its request was never sent on
   * (`notForwarded`), as read once where the outcome was made (`attempt-outcome.ts`); `''` when it
   * proves nothing. Read by the decision when absent.
   */
  readonly notForwarded?: string | undefined;
  /** The error, when the attempt failed without a response. */
  readonly error?: unknown;
  /** The error's code as the adapter reads it; default: the code on the error's `cause` chain. */
  readonly code?: string | undefined;
  /** The caller's own signal aborted the request. */
  readonly aborted?: boolean | undefined;
  /** `shouldRetry`'s answer (`isFailure`'s `true`, for a response below 400), when it was asked. */
  readonly verdict?: boolean | undefined;
  /**
   * The failure proves the server never processed the request: the adapter says so (an HTTP/2
   * `REFUSED_STREAM`, a `GOAWAY` below the stream), or its code is one of `UNPROCESSED_ERROR_CODES`.
   */
  readonly unprocessed?: boolean | undefined;
  /**
   * The adapter says the attempt failed on a connection kept alive from an earlier request, before
   * any byte of its answer: a keep-alive race (the run's `staleConnection`).
   */
  readonly staleConnection?: boolean | undefined;
  /** The last answer any request of the policy got was a status it retries: its servers are failing. */
  readonly failing?: boolean | undefined;
  /** The body of the response handed over broke, and this asks whether to resume it. */
  readonly resuming?: boolean | undefined;
  /** Transparent retries made so far. */
  readonly transparentRetries?: number | undefined;
  /**
   * Other retries made so far that `maxAttempts` does not count (a credential refresh's, an offline
   * wait's that ended online).
   */
  readonly uncountedRetries?: number | undefined;
  /**
   * The attempt failed without a response while the browser said it was offline
   * (`navigator.onLine === false`); never set where there is no `navigator.onLine`.
   */
  readonly offline?: boolean | undefined;
  /** Of those, the last ones in a row made with no answer from any server in between. */
  readonly stalledRetries?: number | undefined;
  /**
   * Whether a server answered a request of the policy since this request's last transparent retry
   * (or since it began): the servers are up and serving, as when one rotates a connection.
   */
  readonly progressed?: boolean | undefined;
  /** The user forced a retry (ky's `ky.retry()`), with the delay they gave, if any. */
  readonly forced?:
    | {
        /** The delay the user gave, in ms; the backoff's when `undefined`. */
        readonly delayMs?: number | undefined;
      }
    | undefined;
}

/** A decision to stop. */
export type StopDecision = Extract<
  Decision,
  {
    /** Stop. */
    readonly retry: false;
  }
>;

/** The decision. */
export type Decision =
  | {
      /** Retry. */
      readonly retry: true;
      /** After this many ms. */
      readonly delayMs: number;
      /** Where the delay came from. */
      readonly delaySource: DelaySource;
      /** A 429 or 503 gave no delay jitterbug could read: the wait is the backoff's. */
      readonly serverDelayUnread?: true | undefined;
      /** Why the attempt is retried. */
      readonly reason: RetryReason;
      /** The backoff's state for the next decision. */
      readonly nextBackoffState: BackoffState;
      /** Not counted in `maxAttempts` (a feature's retry: a credential refreshed). */
      readonly uncounted?: true | undefined;
    }
  | {
      /** Stop: the last outcome is the request's. */
      readonly retry: false;
      /** Why. */
      readonly reason: StopReason;
      /** The attempt failed in a way that is normally retried, and jitterbug stopped anyway. */
      readonly gaveUp: boolean;
      /** The delay that was not waited (`deadline`, `retry-after-too-long`, `quota-exceeded`). */
      readonly refusedDelayMs?: number;
      /** When the spent quota is back, in epoch ms (`quota-exceeded`, when the server said). */
      readonly quotaResetAt?: number;
    };

const stop = (
  reason: StopReason,
  gaveUp: boolean,
  refusedDelayMs?: number,
  quotaResetAt?: number,
): StopDecision =>
  refusedDelayMs === undefined
    ? { retry: false, reason, gaveUp }
    : quotaResetAt === undefined
      ? { retry: false, reason, gaveUp, refusedDelayMs }
      : { retry: false, reason, gaveUp, refusedDelayMs, quotaResetAt };

/** Whether the request may be retried at all: an idempotent method, or an idempotency key. */
export const methodAllowsRetry = (
  method: string,
  requestHeaders: HeaderGetter,
  options: Pick<RunOptions, 'methods' | 'idempotencyKey'>,
): boolean => options.methods.has(method) || hasKey(requestHeaders, options.idempotencyKey);

// Shared by every request they end, and handed to its adapter (the README's own loop among them):
// frozen, so that one adapter writing to a decision cannot change it for every later request.
const SUCCESS: StopDecision = Object.freeze({ retry: false, reason: 'success', gaveUp: false });
const NOT_RETRYABLE: StopDecision = Object.freeze({
  retry: false,
  reason: 'status-not-retryable',
  gaveUp: false,
});

/**
 * The decision for a status that settles the request by itself: a success (below 400, not in
 * `statusCodes`), with no `isFailure` hook to ask, or any status when retries are off.
 * `undefined` when the full outcome is needed (a failure's headers may say `x-should-retry`). This
 * is the decision of nearly every request, so it is made without building an {@link AttemptOutcome}.
 */
export const decideByStatus = (
  status: number,
  options: Pick<RunOptions, 'statusCodes' | 'isFailure' | 'retry' | 'disabledBy'>,
): StopDecision | undefined => {
  if (options.statusCodes.has(status)) return undefined;
  if (status < 400) return options.isFailure && options.retry ? undefined : SUCCESS;
  return options.retry ? undefined : stop(options.disabledBy, false);
};

/** Whether the result's status is one of `statusCodes` (no answer's is): looked up once per decision. */
const listedStatus = (result: RetryableResult, options: Pick<RunOptions, 'statusCodes'>): boolean =>
  options.statusCodes.has(result.status!);

/** An attempt's result, as far as whether it is retried depends on it alone. */
interface RetryableResult {
  readonly status?: number | undefined;
  readonly responseHeaders?: HeaderGetter | undefined;
  /** The request's headers: a keyed request's 409 is retried. */
  readonly requestHeaders?: HeaderGetter | undefined;
  readonly problemType?: string | undefined;
  readonly error?: unknown;
  readonly code?: string | undefined;
}

/** What a failed answer says beyond its status (see `answer-signals.ts`); nothing below 400. */
const signalOf = (
  result: RetryableResult,
  options: Pick<RunOptions, 'idempotencyKey'>,
): AnswerSignal | undefined => {
  const { status } = result;
  return status === undefined || status < 400
    ? undefined
    : answerSignal(status, result.problemType, result.requestHeaders ?? NO_KEY, options.idempotencyKey);
};
const NO_KEY: HeaderGetter = () => undefined;

/**
 * Whether a status or an error is a failure that is retried (its status in `statusCodes` or one whose
 * answer asks for it — a keyed request's 409, a `temporary-reduced-capacity` problem —, unless the
 * server says `x-should-retry: false`, or any status >= 400 it says `x-should-retry: true` of; its
 * code in `errorCodes`), from the attempt's result alone: a hedged attempt waits for its other copies
 * then.
 */
export const retryableResult = (
  result: RetryableResult,
  options: Pick<RunOptions, 'statusCodes' | 'errorCodes' | 'idempotencyKey'>,
): boolean => retryableWith(result, options, signalOf(result, options), listedStatus(result, options));

/**
 * {@link retryableResult}, given what the answer says (`signalOf`) and whether its status is in
 * `statusCodes` (`listed`), each read once per decision.
 */
const retryableWith = (
  result: RetryableResult,
  options: Pick<RunOptions, 'errorCodes'>,
  signal: AnswerSignal | undefined,
  listed: boolean,
): boolean => {
  const { status } = result;
  if (status !== undefined) {
    // What the server says about retrying its answer (`x-should-retry`, sent by the OpenAI and
    // Anthropic APIs) decides, when it says `true` or `false`; else whether the status is retried:
    // in `statusCodes`, or an answer that asks for a retry of its own (a keyed request's 409, a
    // `temporary-reduced-capacity` problem).
    const said = status >= 400 ? result.responseHeaders?.('x-should-retry')?.trim().toLowerCase() : undefined;
    return said === 'true' || (said !== 'false' && (listed || asksRetry(signal)));
  }
  const code = result.code ?? errorCode(result.error);
  return code !== undefined && options.errorCodes.has(code);
};

/** An answer's signal that ends the request whatever its status: `key-reused`, `quota-exceeded`, `abnormal-usage`. */
const stopSignal = (signal: AnswerSignal | undefined): StopReason | undefined =>
  signal === undefined || asksRetry(signal) ? undefined : signal;

/** What jitterbug would do without `shouldRetry`: retry a retryable failure of a retryable request. */
export const defaultRetry = (outcome: AttemptOutcome, options: RunOptions): boolean => {
  const signal = signalOf(outcome, options);
  return (
    retryableWith(outcome, options, signal, listedStatus(outcome, options)) &&
    methodAllowsRetry(outcome.method, outcome.requestHeaders, options) &&
    stopSignal(signal) === undefined
  );
};

/**
 * How many transparent retries a request may make in all while servers keep answering (a server
 * rotating its connections refuses the streams above its last one, again and again under load), as
 * a multiple of `transparentRetries`, which bounds those made with no answer from anyone.
 */
export const TRANSPARENT_WITH_PROGRESS = 10;

/**
 * How long a 429 that gave no readable delay waits at least (with the `Retry-After` jitter, within
 * `retryAfter.maxMs`): the least a `Retry-After` can say, and the window of the per-second limits a
 * 429 mostly comes from. A retry sooner is refused again and counts against the limit (nginx's
 * `limit_req` at 20r/s, 20 GETs at once from Chromium, `Retry-After` hidden by CORS: 8-15 of 20
 * ended 200 after retries of 2-196 ms; all 20 with this).
 */
export const UNREAD_429_MS = 1000;

/**
 * The wait before the retry: the server's delay if the response gives one, else the backoff's
 * (at least {@link UNREAD_429_MS} for a 429, and said so for a 429 or 503). A transparent retry does
 * not move the backoff on: the server did not fail, it refused the request unread. A spent quota
 * back later than `retryAfter.maxMs` (with `'give-up'`) ends the request as `quota-exceeded`, when
 * it is back.
 */
const retryDelay = (
  outcome: AttemptOutcome,
  options: RunOptions,
  transparent: boolean,
  reason: RetryReason,
): Decision => {
  const { backoffState, responseHeaders, status } = outcome;
  const { retryAfter, random } = options;
  const given = outcome.forced?.delayMs;
  if (given !== undefined) {
    return {
      retry: true,
      delayMs: Math.max(0, given) || 0,
      delaySource: 'forced',
      nextBackoffState: backoffState,
      reason,
    };
  }
  const server = retryAfter && responseHeaders ? askedDelay(responseHeaders, outcome.nowMs) : undefined;
  if (server && retryAfter) {
    const { ms } = server;
    const { maxMs } = retryAfter;
    if (ms > maxMs && retryAfter.whenLonger === 'give-up') {
      return server.spent
        ? stop('quota-exceeded', true, ms, outcome.nowMs + ms)
        : stop('retry-after-too-long', true, ms);
    }
    // Jitter keeps clients told the same delay from coming back together, within [0, maxMs]: an
    // honoured delay is lengthened (never sooner than told), a capped one is shortened (it is
    // sooner than told already).
    const spread = unitRandom(random) * retryAfter.jitterRatio;
    return {
      retry: true,
      delayMs: ms > maxMs ? maxMs - spread * maxMs : Math.min(maxMs, ms + spread * ms),
      delaySource: server.source,
      nextBackoffState: backoffState,
      reason,
    };
  }
  const { backoff } = options;
  const [delayMs, nextBackoffState] = nextDelay(backoff.strategy, backoffState, backoff, random);
  // The status asks for the server's delay, and none could be read (a browser hides a cross-origin
  // response's Retry-After unless the server exposes it): said so.
  const unread = retryAfter && (status === 429 || status === 503) ? true : undefined;
  return {
    retry: true,
    delayMs:
      retryAfter && unread && status === 429
        ? Math.max(
            delayMs,
            Math.min(retryAfter.maxMs, UNREAD_429_MS * (1 + unitRandom(random) * retryAfter.jitterRatio)),
          )
        : delayMs,
    delaySource: 'backoff',
    nextBackoffState: transparent ? backoffState : nextBackoffState,
    serverDelayUnread: unread,
    reason,
  };
};

/**
 * Whether an attempt's failure proves the server never processed the request: a failure without an
 * answer that proves it, or an intermediary's answer whose `Proxy-Status` says it never sent the
 * request on (`proxy-status.ts`).
 */
export const provablyUnprocessed = (outcome: AttemptOutcome): boolean => {
  if (outcome.aborted) return false;
  if (outcome.status !== undefined)
    return (outcome.notForwarded ?? notForwarded(outcome.status, outcome.responseHeaders) ?? '') !== '';
  if (outcome.unprocessed) return true;
  const code = outcome.code ?? errorCode(outcome.error);
  return code !== undefined && UNPROCESSED_ERROR_CODES.includes(code);
};

/**
 * Decides whether to retry after an attempt. Pure: the same outcome, options and random source
 * give the same decision. The user's hooks are not called here: `shouldRetry`'s answer comes in
 * as `outcome.verdict`. The features (the budget…) review the decision afterwards.
 */
export const decide = (outcome: AttemptOutcome, options: RunOptions): Decision => {
  if (outcome.aborted) return stop('aborted', false);
  const forced = outcome.forced !== undefined;
  const listed = listedStatus(outcome, options);
  // A status in `statusCodes` is never settled by itself (`decideByStatus`).
  if (!listed && outcome.status !== undefined && !forced) {
    const settled = decideByStatus(outcome.status, options);
    if (settled) return settled;
  }
  // What the answer says beyond its status, read once for every rule below.
  const signal = signalOf(outcome, options);
  const retryable = retryableWith(outcome, options, signal, listed);
  if (!options.retry) return stop(options.disabledBy, retryable);
  const { status } = outcome;
  // What the answer says ends it (a key reused, a quota spent, abuse detected), unless the user
  // forced the retry or `shouldRetry` said to make it.
  const ended = forced || outcome.verdict === true ? undefined : stopSignal(signal);
  if (ended) {
    const delay =
      ended === 'quota-exceeded' && outcome.responseHeaders
        ? askedDelay(outcome.responseHeaders, outcome.nowMs)
        : undefined;
    return delay ? stop(ended, retryable, delay.ms, outcome.nowMs + delay.ms) : stop(ended, retryable);
  }
  // A status we retry, which the server says not to retry (`x-should-retry: false`).
  if (
    !retryable &&
    !forced &&
    outcome.verdict !== true &&
    status !== undefined &&
    (listed || asksRetry(signal))
  ) {
    return stop('declined-by-server', true);
  }
  const methodAllows = methodAllowsRetry(outcome.method, outcome.requestHeaders, options);
  const byDefault = retryable && methodAllows;
  // A request the server never got is sent again whatever its method, outside maxAttempts: at most
  // `transparentRetries` in a row while no server answers anything (one that refuses everything),
  // and more while servers keep answering (one that rotates its connections).
  const limit = options.transparentRetries;
  const transparent =
    provablyUnprocessed(outcome) &&
    (outcome.progressed
      ? (outcome.transparentRetries ?? 0) < limit * TRANSPARENT_WITH_PROGRESS
      : (outcome.stalledRetries ?? 0) < limit) &&
    outcome.verdict !== false &&
    outcome.bodyReplayable;
  if (!transparent) {
    if (outcome.verdict === false && !forced) return stop('should-retry', retryable);
    // A hook's `true` retries what would not be, within the method rule: never a POST without a key.
    const wanted = retryable || outcome.verdict;
    if (!forced && !(wanted && methodAllows)) {
      if (wanted) return stop('method-not-idempotent', true);
      if (outcome.status === undefined) return stop('error-not-retryable', false);
      return outcome.status >= 400 ? NOT_RETRYABLE : SUCCESS;
    }
    // Past this point the attempt is one we would retry: every stop is a give-up.
    if (!outcome.bodyReplayable) return stop('body-not-replayable', true);
    // Attempts the server provably never saw (retried transparently) do not count, nor those a
    // feature's retry made (a fresh credential's), nor those made while the browser was offline
    // once it was back.
    if (
      outcome.attempt - (outcome.transparentRetries ?? 0) - (outcome.uncountedRetries ?? 0) >=
      options.maxAttempts
    )
      return stop('max-attempts', true);
  }
  // A network failure while the browser is offline: the retry waits until it is back online, at most
  // the longest wait jitterbug makes (within the deadline), and moves the backoff on no further.
  const offline = !transparent && outcome.offline === true && status === undefined;
  // A keep-alive race (a kept connection lost before any byte of the answer) while the policy's
  // servers answer fine: retried as any reset (the server may have had it), free of the budget.
  const reason: RetryReason = transparent
    ? status === undefined
      ? 'unprocessed'
      : 'not-forwarded'
    : outcome.resuming
      ? 'resume'
      : !byDefault
        ? 'forced'
        : offline
          ? 'offline'
          : status !== undefined
            ? asksRetry(signal)
              ? signal
              : 'status'
            : outcome.staleConnection && !outcome.failing
              ? 'stale-connection'
              : 'error';
  const decision = offline
    ? offlineDelay(outcome, options, reason)
    : retryDelay(outcome, options, transparent, reason);
  if (!decision.retry) return decision;
  // Written so that a NaN (a broken injected clock) refuses the wait instead of allowing it.
  if (options.deadlineMs !== undefined && !(outcome.elapsedMs + decision.delayMs <= options.deadlineMs)) {
    return stop('deadline', true, decision.delayMs);
  }
  return decision;
};

/**
 * The wait of a failure while the browser is offline: until its `online` event, which the run
 * waits for, at most `retryAfter.maxMs` (the backoff's `capMs` with `retryAfter: false`) and what
 * is left of the deadline.
 */
const offlineDelay = (outcome: AttemptOutcome, options: RunOptions, reason: RetryReason): Decision => {
  const { deadlineMs, retryAfter } = options;
  const cap = retryAfter ? retryAfter.maxMs : options.backoff.capMs;
  const left = deadlineMs === undefined ? cap : deadlineMs - outcome.elapsedMs;
  return {
    retry: true,
    delayMs: Math.max(0, Math.min(cap, left)) || 0,
    delaySource: 'offline',
    nextBackoffState: outcome.backoffState,
    reason,
  };
};
