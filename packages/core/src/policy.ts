/**
 * A retry policy and the run of one request under it. The policy is shared (by every request, and
 * by several clients if you like: its retry budget is theirs together); a run holds one request's
 * attempt count, backoff state and clock, and turns outcomes into decisions and events.
 *
 * Hooks may return promises: a run awaits one only when a thenable comes back, so a request whose
 * hooks are synchronous (or absent) is decided without a promise, and its methods return plain
 * values. Their return types say `| Promise<…>`; an adapter awaits only an actual `Promise`.
 */

import { channels, observed } from '#diagnostics';
import { type BackoffState, initialBackoffState } from './backoff.ts';
import type { BodyKind } from './body.ts';
import {
  type AttemptOutcome,
  type Decision,
  decide,
  decideByStatus,
  defaultRetry,
  type StopDecision,
} from './decide.ts';
import { errorCode } from './errors.ts';
import { fail, isOptionObject } from './option-error.ts';
import type {
  AttemptInfo,
  CallOverrides,
  MaybePromise,
  ResolvedOptions,
  RetryInfo,
  RetryOptions,
  RetryReason,
  StopReason,
} from './options.ts';
import type { HeaderGetter } from './retry-after.ts';
import { CALL_KEYS, POLICY_KEYS, resolveOptions } from './validate.ts';

/** A request as an adapter describes it to the policy. */
export interface RetryRequest {
  readonly method: string;
  /** Absolute URL (adapters resolve base URLs first). */
  readonly url: string | URL;
  /** Request headers, for the idempotency key. */
  readonly headers?: HeaderGetter;
  /** Default `'none'`. */
  readonly body?: BodyKind;
}

/** How an attempt ended, as an adapter reports it. */
export type AttemptResult =
  | {
      readonly status: number;
      readonly headers?: HeaderGetter;
      /** The client's response object, shown to `shouldRetry` as `info.response`. */
      readonly response?: unknown;
    }
  | {
      readonly error: unknown;
      /** The error's code as the adapter reads it (default: the code on its `cause` chain). */
      readonly code?: string;
      /** The caller's own signal ended the attempt. */
      readonly aborted?: boolean;
      /**
       * The adapter knows the server never processed the request (an HTTP/2 `REFUSED_STREAM`, a
       * `GOAWAY` whose last stream is below the request's): retried whatever the method.
       */
      readonly unprocessed?: boolean;
    };

export const NO_HEADERS: HeaderGetter = () => undefined;
const NO_RETRIES: readonly RetryReason[] = Object.freeze([]);

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof (value as { then?: unknown } | null | undefined)?.then === 'function';

/** `f(value)`, after `value` settles when it is a thenable (then as a real `Promise`). */
const after = <T, U>(value: MaybePromise<T>, f: (value: T) => U | Promise<U>): U | Promise<U> =>
  isThenable(value) ? Promise.resolve(value).then(f) : f(value as T);

const nothing = (): undefined => undefined;

/**
 * One request's retries. Created by {@link RetryPolicy.begin}.
 *
 * Its state is in TypeScript-private fields assigned in the constructor, not in `#private` fields
 * and initialisers: every request makes a run, in a client whose caches are cold for this code, and
 * `#private` fields measured about 0.6 µs more per request there (`bench/profiling.md`).
 */
export class RetryRun {
  /** The options in force for this request (after route rules and the call's overrides). */
  declare readonly options: ResolvedOptions;
  declare readonly method: string;
  declare readonly url: string;
  /** Attempts reported so far. */
  declare attempts: number;
  /** Sum of waits so far, in ms. */
  declare totalDelayMs: number;
  /** Set once the request is finished. */
  declare summary: RetryInfo | undefined;
  /** The body as the decision sees it; an adapter that buffered a stream marks it `'replayable'`. */
  declare body: BodyKind;
  /** The request's headers, for the idempotency key. */
  declare readonly headers: HeaderGetter;
  declare private readonly startMs: number;
  declare private backoffState: BackoffState;
  declare private retries: RetryReason[] | undefined;
  /** Transparent retries made (of failures the server provably never processed); not in `maxAttempts`. */
  declare transparentRetries: number;
  /** The end of the origin's cooldown this run has already waited for (or caused); the cooldown's. */
  declare servedUntil: number;
  /** Hedged copies sent, and the copy that answered the last hedged attempt (hedging's). */
  declare hedged: { copies: number; winner: number } | undefined;

  constructor(options: ResolvedOptions, method: string, url: string, headers: HeaderGetter, body: BodyKind) {
    this.options = options;
    this.method = method;
    this.url = url;
    this.attempts = 0;
    this.totalDelayMs = 0;
    this.summary = undefined;
    this.body = body;
    this.headers = headers;
    this.startMs = options.now();
    this.backoffState = initialBackoffState;
    this.retries = undefined;
    this.transparentRetries = 0;
    this.servedUntil = 0;
    this.hedged = undefined;
    options.budget?.deposit();
    options.hedge?.budget.deposit();
    if (observed && channels.runStart.hasSubscribers) {
      channels.runStart.publish({ run: this, method, url, route: options.route });
    }
  }

  /**
   * Called by the adapter immediately before it sends each attempt. `undefined`: send it now (and
   * subscribers to `jitterbug:attempt:start` have just been told, synchronously, so they can match it
   * with the client's own request events). A promise: the origin is in a cooldown; await it (it
   * rejects with `signal`'s reason on an abort, or with a `CooldownError` when the hold is too long,
   * the run then finished) and call this again. `signal` may be an object whose `holdSignal()` is
   * called only for a hold (so that an adapter makes no `AbortController` for attempts not held).
   */
  beforeAttempt(signal?: AbortSignal | { holdSignal(): AbortSignal }): void | Promise<void> {
    const o = this.options;
    const held = o.cooldown?.admit(this, signal) ?? o.throttle?.admit(this);
    if (held) return held;
    if (observed && channels.attemptStart.hasSubscribers) {
      channels.attemptStart.publish({ run: this, attempt: this.attempts + 1 });
    }
  }

  /** Publishes the end of the attempt just counted. */
  private attemptEnded(status: number | undefined, error: unknown, code: string | undefined): void {
    if (observed && channels.attemptEnd.hasSubscribers) {
      channels.attemptEnd.publish({
        run: this,
        attempt: this.attempts,
        status,
        error,
        errorCode: code ?? (status === undefined ? errorCode(error) : undefined),
      });
    }
  }

  /** Time since the run began, by the policy's clock. */
  elapsedMs(): number {
    return Math.max(0, this.options.now() - this.startMs);
  }

  /**
   * The decision for a response whose status settles the request by itself (a success, or a status
   * that is never retried, when there is no `shouldRetry` hook to ask): the attempt is counted, the
   * run finishes and the decision is returned, as {@link RetryRun.next} would. `undefined`, with
   * nothing counted, when the response needs {@link RetryRun.next} and its headers. Lets an adapter
   * skip building a header reader for nearly every response.
   */
  settle(status: number): StopDecision | Promise<StopDecision> | undefined {
    const settled = decideByStatus(status, this.options);
    if (settled === undefined) return undefined;
    this.attempts++;
    this.options.throttle?.accepted(this.options.now());
    if (observed) this.attemptEnded(status, undefined, undefined);
    return after(this.finish(settled.reason, status, undefined, status < 400), () => settled);
  }

  /**
   * Reports how an attempt ended and returns what to do. On `retry: true` the adapter discards the
   * response, waits with {@link RetryRun.wait} and sends again; on `retry: false` it hands the
   * response or error to the caller unchanged (the run is then finished and `summary` is set).
   * Throws (or rejects with) what a user hook throws: the adapter then fails the request with it.
   */
  next(result: AttemptResult): Decision | Promise<Decision> {
    if ('status' in result) {
      const settled = this.settle(result.status);
      if (settled) return settled;
    }
    this.attempts++;
    const outcome = this.outcome(result);
    // What the server answered without refusing for overload is an accept; errors are not.
    const { status } = outcome;
    if (status !== undefined && status !== 429 && status !== 503)
      this.options.throttle?.accepted(outcome.nowMs);
    if (observed) this.attemptEnded(outcome.status, outcome.error, outcome.code);
    const o = this.options;
    if (!o.shouldRetry || outcome.aborted || !o.retry) return this.conclude(outcome);
    const info: AttemptInfo = {
      method: this.method,
      url: this.url,
      attempt: this.attempts,
      status: outcome.status,
      error: outcome.error,
      headers: outcome.responseHeaders,
      response: 'response' in result ? result.response : undefined,
      defaultRetry: defaultRetry(outcome, o),
      elapsedMs: outcome.elapsedMs,
    };
    const shouldRetry = o.shouldRetry;
    return after(
      this.hook(outcome.status, () => shouldRetry(info)),
      (verdict) => this.conclude({ ...outcome, verdict: typeof verdict === 'boolean' ? verdict : undefined }),
    );
  }

  /** What the decision looks at, for `result` of the attempt just counted (for the features' modules). */
  outcome(result: AttemptResult): AttemptOutcome {
    const o = this.options;
    const nowMs = o.now();
    const hasStatus = 'status' in result;
    return {
      method: this.method,
      url: this.url,
      requestHeaders: this.headers,
      bodyReplayable: this.body !== 'stream',
      attempt: this.attempts,
      elapsedMs: Math.max(0, nowMs - this.startMs),
      nowMs,
      backoffState: this.backoffState,
      budgetTokens: o.budget ? o.budget.tokens : Number.POSITIVE_INFINITY,
      status: hasStatus ? result.status : undefined,
      responseHeaders: hasStatus ? (result.headers ?? NO_HEADERS) : undefined,
      error: hasStatus ? undefined : result.error,
      code: hasStatus ? undefined : result.code,
      aborted: hasStatus ? false : result.aborted === true,
      unprocessed: hasStatus ? false : result.unprocessed === true,
      transparentRetries: this.transparentRetries,
    };
  }

  /** Turns the pure decision into the run's state and events (for the features' modules). */
  conclude(outcome: AttemptOutcome): Decision | Promise<Decision> {
    const o = this.options;
    const budget = o.budget;
    let decision = decide(outcome, o);
    // The decision only read the budget; the withdrawal is where concurrent runs are serialised.
    if (decision.retry && o.throttle?.shouldReject(outcome.nowMs, o.random)) {
      decision = { retry: false, reason: 'throttled', gaveUp: true };
    } else if (decision.retry && budget && !budget.tryWithdraw()) {
      decision = { retry: false, reason: 'budget-exhausted', gaveUp: true };
    }
    const { status } = outcome;
    if (o.cooldown && o.retryAfter && (status === 429 || status === 503))
      o.cooldown.heed(this, outcome, decision);
    const { error } = outcome;
    const { method, url, attempts: attempt } = this;
    const route = o.route;
    if (decision.retry) {
      this.backoffState = decision.nextBackoffState;
      this.retries ??= [];
      this.retries.push(decision.reason);
      // A transparent retry does not count in maxAttempts: the server never saw the attempt.
      if (decision.reason === 'unprocessed') this.transparentRetries++;
      const { delayMs, delaySource, reason } = decision;
      const budgetTokens = budget?.tokens;
      const retry = decision;
      const event = {
        method,
        url,
        attempt,
        delayMs,
        delaySource,
        reason,
        status,
        error,
        route,
        budgetTokens,
      };
      if (observed && channels.retry.hasSubscribers) channels.retry.publish({ ...event, run: this });
      const onRetry = o.onRetry;
      return onRetry
        ? after(
            this.hook(outcome.status, () => onRetry(event)),
            () => retry,
          )
        : retry;
    }
    const stopped = decision;
    const { reason, refusedDelayMs } = decision;
    let gaveUp: unknown;
    if (decision.gaveUp) {
      const event = { method, url, attempt, reason, status, error, route, refusedDelayMs };
      if (observed && channels.giveUp.hasSubscribers) channels.giveUp.publish({ ...event, run: this });
      const onGiveUp = o.onGiveUp;
      if (onGiveUp) gaveUp = this.hook(outcome.status, () => onGiveUp(event));
    }
    // A response the user asked to retry is not a success, whatever its status.
    const success = status !== undefined && status < 400 && !outcome.forced && outcome.verdict !== true;
    return after(gaveUp, () => after(this.finish(reason, status, error, success), () => stopped));
  }

  /**
   * What a user hook returns; when it throws or rejects, the run is finished first (as
   * `hook-failed`, with the hook's error and the attempt's `status`), so that `onFinish`, the summary
   * and `jitterbug:run:end` see every request, then the error goes on to the caller. For the run's
   * own hooks and the features' modules (a refusal's `onGiveUp`).
   */
  hook<T>(status: number | undefined, call: () => T): T {
    const failed = (error: unknown): never => {
      Promise.resolve(this.finish('hook-failed', status, error, false)).catch(nothing);
      throw error;
    };
    let result: T;
    try {
      result = call();
    } catch (error) {
      return failed(error);
    }
    return isThenable(result) ? (Promise.resolve(result).catch(failed) as T) : result;
  }

  /**
   * Waits `ms` with the policy's sleep. When `signal` aborts, rejects with its reason at once and
   * finishes the run as `aborted`; also when an injected sleep ignored the signal and resolved after
   * it fired, so that no adapter starts an attempt the caller has already given up on.
   */
  async wait(ms: number, signal?: AbortSignal): Promise<void> {
    try {
      await this.options.sleep(ms, signal);
      if (signal?.aborted) throw signal.reason;
    } catch (error) {
      // The run is over with the abort; an onFinish that rejects does not replace the reason.
      Promise.resolve(this.finish('aborted', undefined, error, false)).catch(() => undefined);
      throw error;
    }
    this.totalDelayMs += ms;
  }

  /**
   * Finishes the run as aborted when the caller's signal fired outside `next` and `wait`. Returns
   * `onFinish`'s promise, if it returned one (its rejection is the adapter's to handle or drop).
   */
  abort(reason: unknown): void | Promise<void> {
    return this.finish('aborted', undefined, reason, false);
  }

  /**
   * Finishes the run (once; later calls do nothing): its summary, `jitterbug:run:end`, `onFinish`,
   * whose promise it returns if it returned one. For adapters, `abort` and `wait` do this.
   */
  finish(
    reason: StopReason,
    status: number | undefined,
    error: unknown,
    success: boolean,
  ): void | Promise<void> {
    if (this.summary) return;
    const o = this.options;
    // One literal of one shape: the summary is made on every request's success path.
    const summary: RetryInfo = {
      method: this.method,
      url: this.url,
      attempts: this.attempts,
      retries: this.retries ? [...this.retries] : NO_RETRIES,
      totalDelayMs: this.totalDelayMs,
      elapsedMs: this.elapsedMs(),
      outcome: success ? 'success' : 'failure',
      reason,
      status,
      error,
      route: o.route,
      hedge: this.hedged ? { ...this.hedged } : undefined,
    };
    this.summary = summary;
    if (observed && channels.runEnd.hasSubscribers) channels.runEnd.publish({ run: this, info: summary });
    return o.onFinish ? after(o.onFinish(summary), nothing) : undefined;
  }
}

/** Compiled route rules: the options of the first rule a request matches, and every rule's options. */
export interface RouteTable {
  resolve(upperMethod: string, url: string | URL): ResolvedOptions | undefined;
  readonly options: readonly ResolvedOptions[];
}

/** A retry policy. Create with `createRetryPolicy`; share it to share its retry budget. */
export interface RetryPolicy {
  /** The base options (no route applied). */
  readonly options: ResolvedOptions;
  /** The options in force for a request: the first matching route's, else the base. */
  resolve(method: string, url: string | URL): ResolvedOptions;
  /**
   * Whether any request may buffer a stream body (`bufferStreamBytes` above 0 in the base options
   * or a route), for adapters that set up a body-reading step only when it can be needed.
   */
  readonly buffersStreams: boolean;
  /** The options of each route rule, in order (empty without rules). */
  readonly routeOptions: readonly ResolvedOptions[];
  /**
   * Starts one request's run, with the call's own overrides if it has any (`false`: no retries for
   * this call).
   *
   * @throws TypeError naming the option when the overrides are invalid.
   */
  begin(request: RetryRequest, overrides?: CallOverrides | false): RetryRun;
}

const POLICY_BRAND = Symbol.for('jitterbug.policy');

/** The method in upper case; the common `GET` without a call to `toUpperCase`. */
export const upperMethod = (method: string): string => (method === 'GET' ? method : method.toUpperCase());

/** The options for a call with its own overrides (`false`: no retries). */
const overridden = (base: ResolvedOptions, overrides: CallOverrides | false): ResolvedOptions =>
  overrides === false
    ? { ...base, retry: false, disabledBy: 'retry-disabled' }
    : resolveOptions(overrides, CALL_KEYS, base, 'jitterbug.');

/**
 * Creates a policy from options without per-route rules: what adapters do with the options they are
 * given. `routes` is taken only by `createRetryPolicy`, whose route compiler is passed here as
 * `routes`, so that a program without route rules does not carry that compiler.
 */
export const createPolicy = (
  options: RetryOptions = {},
  compileRoutes?: (routes: unknown, base: ResolvedOptions) => RouteTable,
): RetryPolicy => {
  if (!isOptionObject(options)) fail('options', 'an object', options);
  const { routes, ...rest } = options as RetryOptions & { routes?: unknown };
  if (routes !== undefined && !compileRoutes) {
    fail('routes', 'given to createRetryPolicy(), whose policy you then pass instead of options', routes);
  }
  const base = resolveOptions(rest, POLICY_KEYS);
  const table = routes === undefined ? undefined : compileRoutes?.(routes, base);
  const forRequest = (upper: string, url: string | URL): ResolvedOptions =>
    table?.resolve(upper, url) ?? base;
  const policy: RetryPolicy & { [POLICY_BRAND]: true } = {
    [POLICY_BRAND]: true,
    options: base,
    resolve: (method, url) => forRequest(upperMethod(method), url),
    routeOptions: table?.options ?? [],
    buffersStreams: [base, ...(table?.options ?? [])].some((o) => o.bufferStreamBytes > 0),
    begin(request, overrides) {
      const method = upperMethod(request.method);
      const url = request.url;
      const routed = table ? forRequest(method, url) : base;
      return new RetryRun(
        overrides === undefined ? routed : overridden(routed, overrides),
        method,
        typeof url === 'string' ? url : url.href,
        request.headers ?? NO_HEADERS,
        request.body ?? 'none',
      );
    },
  };
  return Object.freeze(policy);
};

/** Whether a value is a policy made by `createRetryPolicy` (or by an adapter from options). */
export const isRetryPolicy = (value: unknown): value is RetryPolicy =>
  typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[POLICY_BRAND] === true;

/** What every adapter accepts: a policy (to share it and its budget) or options for a new one. */
export type RetryPolicyOrOptions = RetryPolicy | RetryOptions;

/** The policy itself, or a new one from options (without routes). For adapters. */
export const toRetryPolicy = (optionsOrPolicy: RetryPolicyOrOptions | undefined): RetryPolicy =>
  isRetryPolicy(optionsOrPolicy) ? optionsOrPolicy : createPolicy(optionsOrPolicy);
