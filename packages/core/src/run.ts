/**
 * The run of one request under a policy: its attempt count, backoff state and clock; it turns each
 * attempt's outcome into a decision (the pure `decide`, then the features' reviews) and into events.
 * The opt-in features are layers it asks at fixed points (`features/feature.ts`); the run names
 * none of them.
 *
 * Hooks may return promises: a run awaits one only when a thenable comes back, so a request whose
 * hooks are synchronous (or absent) is decided without a promise, and its methods return plain
 * values. Their return types say `| Promise<…>`; an adapter awaits only an actual `Promise`.
 */

import { channels, observed } from '#diagnostics';
import { offline, untilOnline } from '#offline';
import { generatedKey } from './attempt-edits.ts';
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
import type { Turn } from './features/feature.ts';
import type {
  AttemptInfo,
  MaybePromise,
  Mutable,
  ResolvedOptions,
  RetryEvent,
  RetryInfo,
  RetryReason,
  StopReason,
} from './options.ts';
import { notForwarded } from './proxy-status.ts';
import type { HeaderGetter } from './retry-after.ts';

/** A request as an adapter describes it to the policy. */
export interface RetryRequest {
  /** The request's method (any case). */
  readonly method: string;
  /** Absolute URL (adapters resolve base URLs first). */
  readonly url: string | URL;
  /**
   * What the call's own URL was written under (axios' `baseURL`; ky's `baseUrl`, then its `prefix`,
   * each resolved against the one before), when it has one: route rules match the path below it too.
   */
  readonly base?: string | URL | readonly unknown[] | undefined;
  /** Request headers, for the idempotency key. */
  readonly headers?: HeaderGetter;
  /** Default `'none'`. */
  readonly body?: BodyKind;
}

/** How an attempt ended, as an adapter reports it. */
export type AttemptResult =
  | {
      /** A response arrived, with this status. */
      readonly status: number;
      /** Reads its headers. */
      readonly headers?: HeaderGetter;
      /** The client's response object, shown to `shouldRetry` as `info.response`. */
      readonly response?: unknown;
      /**
       * The `type` of its `application/problem+json` body, when the adapter read one
       * (`problemType()`; the RateLimit draft's problem types decide then).
       */
      readonly problemType?: string;
    }
  | {
      /** The attempt failed without a response, with this error. */
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

const nothing = (): undefined => undefined;

/** A request or a response without headers: every name reads as `undefined`. */
export const NO_HEADERS: HeaderGetter = nothing;
const NO_RETRIES: readonly RetryReason[] = Object.freeze([]);

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof (value as { then?: unknown } | null | undefined)?.then === 'function';

/** `f(value)`, after `value` settles when it is a thenable (then as a real `Promise`). */
export const after = <T, U>(value: MaybePromise<T>, f: (value: T) => U | Promise<U>): U | Promise<U> =>
  isThenable(value) ? Promise.resolve(value).then(f) : f(value as T);

/** A finished run's `onFinish` promise, if any, with its rejection dropped: the caller's error wins. */
export const quietly = (pending: void | Promise<void>): Promise<void> | undefined =>
  pending ? pending.catch(nothing) : undefined;

/**
 * What `beforeAttempt` is given: the caller's signal, or an object that makes one only when an
 * attempt is held (`signal()`).
 */
export type HoldSignal =
  | AbortSignal
  | {
      /** The caller's signal, made when it is first needed; `undefined` when there is none. */
      signal(): AbortSignal | undefined;
    };

/**
 * One request's retries. Created by {@link @jitterbug/core!RetryPolicy.begin}.
 *
 * Its state is in TypeScript-private fields assigned in the constructor, not in `#private` fields
 * and initialisers: every request makes a run, in a client whose caches are cold for this code, and
 * `#private` fields measured about 0.6 µs more per request there (`git show a87c7a9:bench/profiling.md`).
 */
export class RetryRun {
  /** The options in force for this request (after route rules and the call's overrides). */
  declare readonly options: ResolvedOptions;
  /** The request's method, in upper case. */
  declare readonly method: string;
  /** The request's URL. */
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
  /** Retries of a 429 or 503 whose delay could not be read (the summary's `serverDelaysUnread`). */
  declare private unread: number;
  /** Transparent retries made (of failures the server provably never processed); not in `maxAttempts`. */
  declare transparentRetries: number;
  /** Other retries `maxAttempts` does not count: those of a failure while offline, once back online. */
  declare uncountedRetries: number;
  /** The retry just decided waits for the browser to be back online (`offline`). */
  declare private untilOnline: boolean;
  /** Of those, the last ones in a row made while no server answered the policy's requests. */
  declare private stalledRetries: number;
  /** The policy's answers counted when this request began or last retried transparently. */
  declare private answersSeen: number;
  /** The idempotency key generated for this request, sent from its first attempt on. */
  declare readonly idempotencyKey: string | undefined;
  /** What the last decision looked at (`beforeRetry` shows how the last attempt ended). */
  declare lastOutcome: AttemptOutcome | undefined;

  constructor(options: ResolvedOptions, method: string, url: string, headers: HeaderGetter, body: BodyKind) {
    this.options = options;
    this.method = method;
    this.url = url;
    this.attempts = 0;
    this.totalDelayMs = 0;
    this.summary = undefined;
    this.body = body;
    const key = options.generateKey && generatedKey(options, method, headers);
    this.idempotencyKey = key;
    // The decision sees the generated key as the request's own.
    this.headers = key
      ? (name) => (name.toLowerCase() === options.idempotencyKey ? key : headers(name))
      : headers;
    this.lastOutcome = undefined;
    this.startMs = options.now();
    this.backoffState = initialBackoffState;
    this.retries = undefined;
    this.unread = 0;
    this.transparentRetries = 0;
    this.uncountedRetries = 0;
    this.untilOnline = false;
    this.stalledRetries = 0;
    this.answersSeen = options.progress.answers;
    // Indexed loops over the features: a for-of makes an iterator, which code still in V8's
    // interpreter (a client's cold path) pays for on every request.
    const { features } = options;
    for (let i = 0; i < features.length; i++) features[i]!.begin?.(this);
    if (observed && channels.runStart.hasSubscribers) {
      channels.runStart.publish({ run: this, method, url, route: options.route });
    }
  }

  /**
   * Called by the adapter immediately before it sends each attempt. `undefined`: send it now (and
   * subscribers to `jitterbug:attempt:start` have just been told, synchronously, so they can match it
   * with the client's own request events). A promise: a feature holds the attempt (a server asked the
   * origin to wait); await it and call this again. It rejects with the signal's reason on an abort, or
   * with the feature's refusal (the run is then finished). `signal`
   * may be an object whose `signal()` is called only for a hold, so that an adapter makes no
   * `AbortController` for attempts that are not held.
   */
  beforeAttempt(signal?: HoldSignal): void | Promise<void> {
    const turn = this.admission();
    // A feature holds the attempt (a wait the caller's signal ends), or refuses it.
    if (turn) {
      return 'holdMs' in turn
        ? this.wait(turn.holdMs, signal && 'aborted' in signal ? signal : signal?.signal())
        : this.refuse(turn);
    }
    if (observed && channels.attemptStart.hasSubscribers) {
      channels.attemptStart.publish({ run: this, attempt: this.attempts + 1 });
    }
  }

  /**
   * Whether `editAttempt` may have anything to set on the attempt about to be sent: a retry may
   * (`beforeRetry`), a first attempt only a generated key or the attempt headers. Asked first, so
   * that nearly every request's first attempt makes no call for nothing.
   */
  edits(): boolean {
    return (
      this.attempts > 0 || this.idempotencyKey !== undefined || this.options.attemptHeaders !== undefined
    );
  }

  /**
   * What the features say about the attempt about to be sent, outermost first: `undefined` lets it
   * go. The part of {@link RetryRun.beforeAttempt} without promises, for a simulation in virtual time.
   */
  admission(): Turn | undefined {
    const { admitting } = this.options;
    for (let i = 0; i < admitting.length; i++) {
      const turn = admitting[i]!.admit!(this);
      if (turn) return turn;
    }
    return undefined;
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
   * nothing counted, when the response needs {@link RetryRun.next} and its headers (always while a
   * feature observes every answer). Lets an adapter skip building a header reader for nearly every
   * response.
   */
  settle(status: number): StopDecision | Promise<StopDecision> | undefined {
    const o = this.options;
    const settled = o.observing ? undefined : decideByStatus(status, o);
    if (settled === undefined) return undefined;
    this.attempts++;
    o.progress.answers++;
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
    const o = this.options;
    // An intermediary's answer that it never sent the request on is no sign that servers serve.
    if (outcome.status !== undefined && notForwarded(outcome.status, outcome.responseHeaders) === undefined) {
      o.progress.answers++;
    }
    if (o.observing) for (const feature of o.features) feature.observe?.(this, outcome);
    if (observed) this.attemptEnded(outcome.status, outcome.error, outcome.code);
    // shouldRetry is asked about failures only (a 200 is never sent again for `() => true`), and
    // isFailure about the responses that look like successes.
    const { status } = outcome;
    const looksFine = status !== undefined && status < 400 && !o.statusCodes.has(status);
    const ask = looksFine ? o.isFailure : o.shouldRetry;
    if (!ask || outcome.aborted || !o.retry) return this.conclude(outcome);
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
    return after(this.hook(status, ask, info), (verdict) =>
      this.conclude({
        ...outcome,
        // isFailure's `false` is no opinion: the response is the success it looks like.
        verdict: typeof verdict === 'boolean' && (verdict || !looksFine) ? verdict : undefined,
      }),
    );
  }

  /**
   * What the decision looks at, for `result` of the attempt just counted (for the features' modules).
   * Either kind of result is read as one: what the other kind lacks reads as `undefined`.
   */
  outcome(
    r: Partial<Extract<AttemptResult, { status: number }> & Extract<AttemptResult, { error: unknown }>>,
  ): AttemptOutcome {
    const o = this.options;
    const nowMs = o.now();
    return {
      method: this.method,
      url: this.url,
      requestHeaders: this.headers,
      bodyReplayable: this.body !== 'stream',
      attempt: this.attempts,
      elapsedMs: Math.max(0, nowMs - this.startMs),
      nowMs,
      backoffState: this.backoffState,
      status: r.status,
      responseHeaders: r.status === undefined ? undefined : (r.headers ?? NO_HEADERS),
      problemType: r.problemType,
      error: r.error,
      code: r.code,
      aborted: r.aborted === true,
      unprocessed: r.unprocessed === true,
      offline: r.status === undefined && r.aborted !== true && offline(),
      transparentRetries: this.transparentRetries,
      uncountedRetries: this.uncountedRetries,
      stalledRetries: this.stalledRetries,
      progressed: o.progress.answers !== this.answersSeen,
    };
  }

  /**
   * Turns the pure decision into the run's state and events: `decide`, then each feature's review,
   * innermost first (for the features' modules, and forced retries and resumes).
   */
  conclude(outcome: AttemptOutcome): Decision | Promise<Decision> {
    const o = this.options;
    const { features } = o;
    const { status, error } = outcome;
    this.lastOutcome = outcome;
    let decision = decide(outcome, o);
    for (let i = features.length - 1; i >= 0; i--) {
      const review = features[i]!.review;
      if (review) decision = review(this, outcome, decision);
    }
    if (!decision.retry) {
      // A response the user asked to retry is not a success, whatever its status.
      const success = status !== undefined && status < 400 && !outcome.forced && outcome.verdict !== true;
      return after(
        this.stop(
          decision.reason,
          decision.gaveUp,
          status,
          error,
          success,
          decision.refusedDelayMs,
          decision.quotaResetAt,
        ),
        () => decision,
      );
    }
    const { reason } = decision;
    this.backoffState = decision.nextBackoffState;
    this.retries ??= [];
    this.retries.push(reason);
    // A transparent retry does not count in maxAttempts: the server never saw the attempt.
    if (reason === 'unprocessed' || reason === 'not-forwarded') {
      this.transparentRetries++;
      this.stalledRetries = outcome.progressed ? 0 : this.stalledRetries + 1;
      this.answersSeen = o.progress.answers;
    }
    this.untilOnline = reason === 'offline';
    const serverDelayUnread = decision.serverDelayUnread === true;
    if (serverDelayUnread) this.unread++;
    const event: Mutable<RetryEvent> = {
      method: this.method,
      url: this.url,
      attempt: this.attempts,
      delayMs: decision.delayMs,
      delaySource: decision.delaySource,
      serverDelayUnread,
      reason,
      status,
      error,
      route: o.route,
      budgetTokens: undefined,
    };
    for (const feature of features) feature.retrying?.(this, event);
    if (observed && channels.retry.hasSubscribers) channels.retry.publish({ ...event, run: this });
    const { onRetry } = o;
    return onRetry ? after(this.hook(status, onRetry, event), () => decision) : decision;
  }

  /**
   * Ends the run as `reason`: when it gave up on a failure that is normally retried, `onGiveUp` and
   * `jitterbug:give-up` are told first (with the delay that was not waited). Returns `finish`'s.
   */
  private stop(
    reason: StopReason,
    gaveUp: boolean,
    status: number | undefined,
    error: unknown,
    success: boolean,
    refusedDelayMs: number | undefined,
    quotaResetAt?: number,
  ): void | Promise<void> {
    let told: unknown;
    if (gaveUp) {
      const event = {
        method: this.method,
        url: this.url,
        attempt: this.attempts,
        reason,
        status,
        error,
        route: this.options.route,
        refusedDelayMs,
      };
      if (observed && channels.giveUp.hasSubscribers) channels.giveUp.publish({ ...event, run: this });
      const { onGiveUp } = this.options;
      if (onGiveUp) told = this.hook(status, onGiveUp, event);
    }
    return after(told, () => this.finish(reason, status, error, success, quotaResetAt));
  }

  /**
   * Ends the run before an attempt that a feature refused (the pacer, the adaptive throttle: nothing
   * was sent), and rejects with the feature's error.
   */
  private async refuse(turn: Extract<Turn, { refuse: StopReason }>): Promise<never> {
    await this.stop(turn.refuse, true, undefined, turn.error, false, turn.refusedDelayMs);
    throw turn.error;
  }

  /**
   * What a user hook returns, given `arg`; when it throws or rejects, the run is finished first (as
   * `hook-failed`, with the hook's error and the attempt's `status`), so that `onFinish`, the summary
   * and `jitterbug:run:end` see every request, then the error goes on to the caller. For the run's
   * own hooks and the features' modules (a refusal's `onGiveUp`).
   */
  hook<A, T>(status: number | undefined, call: (arg: A) => T, arg: A): T {
    const failed = (error: unknown): never => {
      void quietly(this.finish('hook-failed', status, error, false));
      throw error;
    };
    let result: T;
    try {
      result = call(arg);
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
    const o = this.options;
    const online = this.untilOnline;
    this.untilOnline = false;
    const startMs = online ? o.now() : 0;
    try {
      // A failure while offline waits until the browser is back online, at most `ms`; once back,
      // the failed attempt is not counted.
      if (online && (await untilOnline(o.sleep, ms, signal))) this.uncountedRetries++;
      else if (!online) await o.sleep(ms, signal);
      if (signal?.aborted) throw signal.reason;
    } catch (error) {
      // The run is over with the abort; an onFinish that rejects does not replace the reason.
      void quietly(this.finish('aborted', undefined, error, false));
      throw error;
    }
    this.totalDelayMs += online ? Math.min(ms, Math.max(0, o.now() - startMs)) || 0 : ms;
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
   * `quotaResetAt`: when a spent quota is back, for a run ended `quota-exceeded`.
   */
  finish(
    reason: StopReason,
    status: number | undefined,
    error: unknown,
    success: boolean,
    quotaResetAt?: number,
  ): void | Promise<void> {
    if (this.summary) return;
    const o = this.options;
    // One literal of one shape: the summary is made on every request's success path.
    const summary: Mutable<RetryInfo> = {
      method: this.method,
      url: this.url,
      attempts: this.attempts,
      retries: this.retries ? [...this.retries] : NO_RETRIES,
      totalDelayMs: this.totalDelayMs,
      serverDelaysUnread: this.unread,
      elapsedMs: this.elapsedMs(),
      outcome: success ? 'success' : 'failure',
      reason,
      status,
      error,
      route: o.route,
      quotaResetAt,
      hedge: undefined,
    };
    const { finishing } = o;
    for (let i = 0; i < finishing.length; i++) finishing[i]!.finish!(this, summary);
    this.summary = summary;
    if (observed && channels.runEnd.hasSubscribers) channels.runEnd.publish({ run: this, info: summary });
    return o.onFinish ? after(o.onFinish(summary), nothing) : undefined;
  }
}
