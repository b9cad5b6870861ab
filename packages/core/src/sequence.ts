/**
 * The attempt sequence of one request: its run (attempts, backoff, clock, summary) and the order of
 * its steps, as a state with no I/O, told what happened and saying what to do next (the protocol is
 * `steps.ts`). Every rule that orders the steps or ends a request early is here, once: check the
 * caller, take the attempt's turn (a feature may hold or refuse it), apply what the attempt carries,
 * send (as hedged copies when a feature races them: it wraps the send), decide (the pure `decide`,
 * the features' reviews, the caller's hooks), then hand over, or drop and wait. Drivers only do the
 * steps: the promise driver (`drive/promise.ts`) for fetch, ky, axios and resume; undici's callbacks;
 * the simulators, in virtual time.
 *
 * A hook of the caller's may return a promise: the sequence hands it over (`await`) and goes on when
 * told what it settled with, so a request whose hooks are synchronous (or absent) runs without one.
 *
 * Its state is in TypeScript-private fields assigned in the constructor, not in `#private` fields
 * and initialisers: every request makes one, in a client whose caches are cold for this code, and
 * `#private` fields measured about 0.6 µs more per request there (`git show a87c7a9:bench/profiling.md`).
 */

import { channels, observed } from '#diagnostics';
import { offline } from '#offline';
import {
  type AttemptKind,
  attemptHeaders,
  attemptHook,
  type EditableRequest,
  editedAfter,
  generatedKey,
  hasAttemptHook,
  nextAttempt,
} from './attempt-edits.ts';
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
import { isThenable, nothing, quietly } from './maybe-promise.ts';
import type {
  AttemptInfo,
  Mutable,
  ResolvedOptions,
  RetryEvent,
  RetryInfo,
  RetryReason,
  StopReason,
} from './options.ts';
import { notForwarded } from './proxy-status.ts';
import type { HeaderGetter } from './retry-after.ts';
import type { AttemptResult, DrivenSequence, RacedSend, RaceHost, SequencePort, Step } from './steps.ts';
import type { HoldSignal, RunView, Turn } from './types.ts';

const NO_RETRIES: readonly RetryReason[] = Object.freeze([]);

/** A request or a response without headers: every name reads as `undefined`. */
export const NO_HEADERS: HeaderGetter = nothing;

/** Whether a response looks like a success: `isFailure` is asked about it, `shouldRetry` about the rest. */
const looksFine = (status: number | undefined, options: ResolvedOptions): boolean =>
  status !== undefined && status < 400 && !options.statusCodes.has(status);

// Where the sequence is: what the step it gave was, so that the step's outcome goes on from there.
const IDLE = 0;
const PREPARE = 1;
const HOLD = 2;
const WAIT = 3;
/** The driver's edit of its request (the attempt headers, a generated key), no hook of the caller's in it. */
const EDIT = 4;
/** `beforeRetry`, and the edit after it. */
const EDIT_HOOK = 5;
/** The attempt is out: one, or the copies of a race (whose steps are then its feature's). */
const SEND = 6;
const RESULT = 7;
const VERDICT = 9;
const ON_RETRY = 10;
const DISCARD = 11;
const GIVE_UP = 12;
/** `onFinish`, whose rejection fails the request. */
const FINISH = 13;
/** `onFinish`, whose rejection is dropped (the request fails with its own error). */
const QUIET = 14;
/** The answer is dropped before the request fails. */
const FAILING = 15;
const DELIVERED = 16;
const OVER = 17;

/** How a run's end takes `onFinish`'s promise: awaited (its rejection fails the request), quietly, or not at all. */
type FinishMode = typeof FINISH | typeof QUIET | typeof DROPPED;
const DROPPED = 18;

// What follows the run's end: the answer handed over, the request's failure, or (for the run's older
// methods, which return it) the decision.
const DELIVER = 0;
const FAIL = 1;
const DECISION = 2;
/** A failure before the first attempt (a body read ahead): the request fails with it whatever was decided. */
const PREPARE_FAILED = 3;

/**
 * What the sequence keeps only on the paths that need it (a wait, a race, a hook's promise, a
 * failure): a request that succeeds at once never makes it.
 */
interface Aside {
  /** The status a hook whose promise is out was called for (the summary's, should it fail). */
  hookStatus: number | undefined;
  /** A stop waiting for `onGiveUp`'s promise. */
  ending: Ending | undefined;
  /** What the request fails with. */
  error: unknown;
  /** The wait asked for. */
  delayMs: number;
  /** The promise handed over. */
  pending: PromiseLike<unknown> | undefined;
  /** The race of the attempt's copies, while a feature races them. */
  race: RacedSend | undefined;
  /** When the wait until the browser is back online began (`untilOnline`), by the policy's clock. */
  offlineSinceMs: number;
}

/** A stop waiting for `onGiveUp`'s promise: how the run then ends. */
interface Ending {
  readonly reason: StopReason;
  readonly status: number | undefined;
  readonly error: unknown;
  readonly success: boolean;
  readonly quotaResetAt: number | undefined;
}

/**
 * One request's run and the sequence of its attempts (`steps.ts` is the protocol). Made by
 * `RetryPolicy.begin`, as the `RetryRun` that keeps the older methods.
 */
export class AttemptSequence implements DrivenSequence, RaceHost, RunView {
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
  /** When the request began, on the policy's clock (for the deadline and the summary). */
  declare protected readonly startMs: number;
  /** Where the backoff stands (decorrelated jitter needs the last delay). */
  declare protected backoffState: BackoffState;
  /** Why each retry so far was made, in order (the summary's `retries`). */
  declare protected retries: RetryReason[] | undefined;
  /** Retries of a 429 or 503 whose delay could not be read (the summary's `serverDelaysUnread`). */
  declare protected unread: number;
  /** Transparent retries made (of failures the server provably never processed); not in `maxAttempts`. */
  declare transparentRetries: number;
  /** Retries a feature made that `maxAttempts` does not count (a credential refresh's). */
  declare uncountedRetries: number;
  /**
   * The client has hooks of its own that may change a retry (ky's `beforeRetry`): set as the sequence
   * starts, for the budget (a hook's fix of a refused request is not a server failing).
   */
  declare retryHooks: boolean;
  /** Of those, the last ones in a row made while no server answered the policy's requests. */
  declare protected stalledRetries: number;
  /** The policy's answers counted when this request began or last retried transparently. */
  declare protected answersSeen: number;
  /** The idempotency key generated for this request, sent from its first attempt on. */
  declare readonly idempotencyKey: string | undefined;
  /** What the last decision looked at (`beforeRetry` shows how the last attempt ended). */
  declare lastOutcome: AttemptOutcome | undefined;

  /** Where in the order of one attempt's steps the sequence is. */
  declare protected stage: number;
  /** What the driver's client offers the sequence (cancellation, edits), given at `start`. */
  declare protected port: SequencePort | undefined;
  /** The decision being carried out, across the hooks' promises. */
  declare protected decision: Decision | undefined;
  /** What follows the run's end. */
  declare protected afterEnd: number;
  /** Whether the driver holds an answer, which it drops (unread) when the request fails instead. */
  declare protected holding: boolean;
  /** What only some paths need (a race won, a hook's promise out), made when one does. */
  declare protected aside: Aside | undefined;

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
    this.retryHooks = false;
    this.stalledRetries = 0;
    this.answersSeen = options.progress.answers;
    this.stage = IDLE;
    this.port = undefined;
    this.decision = undefined;
    this.afterEnd = DELIVER;
    this.holding = false;
    this.aside = undefined;
    // Indexed loops over the features: a for-of makes an iterator, which code still in V8's
    // interpreter (a client's cold path) pays for on every request.
    const { features } = options;
    for (let i = 0; i < features.length; i++) features[i]!.begin?.(this);
    if (observed && channels.runStart.hasSubscribers) {
      channels.runStart.publish({ run: this, method, url, route: options.route });
    }
  }

  // --- The events (steps.ts) -----------------------------------------------------------------

  start(port: SequencePort | undefined, preparing: boolean, waitFirstMs?: number): Step {
    this.port = port;
    // A hook of the client's that may change a retry (ky's): the budget lets one such retry go free.
    if (port?.beforeRetry) this.retryHooks = true;
    this.afterEnd = DELIVER;
    this.holding = false;
    if (waitFirstMs !== undefined) this.delayMs = waitFirstMs;
    else if (this.aside) this.aside.delayMs = -1;
    if (preparing) {
      this.stage = PREPARE;
      return 'prepare';
    }
    return waitFirstMs === undefined ? this.attempt() : this.prepared();
  }

  done(value?: unknown): Step {
    // Left first, so that a throw from what follows (a feature's, a custom backoff's) is the
    // request's failure, not the step's.
    const stage = this.stage;
    this.stage = IDLE;
    switch (stage) {
      case PREPARE:
        return this.prepared();
      case HOLD:
      case WAIT:
        this.waited();
        return this.attempt();
      case EDIT:
      case EDIT_HOOK:
        return this.send();
      case RESULT:
        return this.decideResult(value as AttemptResult);
      case SEND:
        // A racing copy's result.
        this.stage = SEND;
        return this.race!.done(value as AttemptResult);
      case VERDICT: {
        const outcome = this.lastOutcome!;
        return this.decideOutcome({
          ...outcome,
          verdict:
            typeof value === 'boolean' && (value || !looksFine(outcome.status, this.options))
              ? value
              : undefined,
        });
      }
      case ON_RETRY:
        return this.retry();
      case DISCARD:
        return this.ask(WAIT, 'wait');
      case GIVE_UP: {
        const { reason, status, error, success, quotaResetAt } = this.aside!.ending!;
        this.aside!.ending = undefined;
        return this.end(reason, status, error, success, FINISH, quotaResetAt);
      }
      case FINISH:
      case QUIET:
        return this.ended();
      default:
        this.stage = stage;
        return 'idle';
    }
  }

  failed(error: unknown): Step {
    const stage = this.stage;
    this.stage = IDLE;
    switch (stage) {
      case PREPARE:
        return this.prepareFailed(error);
      case HOLD:
      case WAIT:
        // The caller's abort ends the wait, and the run with it (its onFinish is not waited for).
        this.error = error;
        this.afterEnd = FAIL;
        return this.end('aborted', undefined, error, false, DROPPED);
      case SEND:
        // The edit of a racing copy failed.
        this.stage = SEND;
        return this.race!.failed(error);
      case EDIT_HOOK:
      case VERDICT:
      case ON_RETRY:
      case GIVE_UP:
        return this.hookFailed(error, this.aside!.hookStatus);
      case QUIET:
        return this.ended();
      case OVER:
        this.stage = stage;
        return 'idle';
      case DELIVERED:
        this.holding = false;
        return this.fail(error);
      default:
        // `onFinish` rejected (FINISH), or a step broke (an edit, a discard, a result).
        return this.fail(error);
    }
  }

  answered(copy: number, status: number | undefined): Step {
    // The copies of a race are its feature's to judge (a late one's answer is dropped).
    const race = this.race;
    if (race !== undefined) return race.answered(copy, status);
    this.holding = true;
    // A single attempt settles by its status alone whenever it can (a success, nearly always).
    const step = status === undefined ? undefined : this.settleByStatus(status);
    return step ?? this.ask(RESULT, 'result');
  }

  due(): Step {
    return this.race?.due() ?? 'idle';
  }

  proceed(): Step {
    const stage = this.stage;
    if (stage === FAILING) {
      this.stage = IDLE;
      return this.failNow();
    }
    return stage === SEND && this.race !== undefined ? this.race.proceed() : 'idle';
  }

  cancel(reason: unknown): Step {
    if (this.stage === OVER || this.stage === DELIVERED) return 'idle';
    this.race?.end();
    this.holding = false;
    this.error = reason;
    this.afterEnd = FAIL;
    return this.end('aborted', undefined, reason, false, DROPPED);
  }

  // --- The steps, in their order -------------------------------------------------------------

  /** Gives `step`, whose outcome is told at `stage`. */
  protected ask(stage: number, step: Step): Step {
    this.stage = stage;
    return step;
  }

  /** After the work before the first attempt: the wait it begins with, if any, or the attempt. */
  protected prepared(): Step {
    return this.delayMs < 0 ? this.attempt() : this.ask(WAIT, 'wait');
  }

  /**
   * The work before the first attempt failed, and nothing was sent: the run ends as aborted when the
   * caller cancelled, else as the failure decides; the request fails with it either way.
   */
  protected prepareFailed(error: unknown): Step {
    this.error = error;
    if (this.cancelled() !== undefined) {
      this.afterEnd = FAIL;
      return this.end('aborted', undefined, error, false, QUIET);
    }
    this.afterEnd = PREPARE_FAILED;
    return this.decideResult({ error });
  }

  /** The next attempt: the caller, the features' turn, what the attempt carries, then the send. */
  protected attempt(): Step {
    // An attempt the caller gave up on before it was sent is not counted.
    const cancelled = this.port?.cancellation?.();
    if (cancelled !== undefined) {
      this.error = cancelled;
      this.afterEnd = FAIL;
      return this.end('aborted', undefined, cancelled, false, QUIET);
    }
    // A feature may hold the attempt (and is asked again after the hold), or refuse it.
    const turn = this.options.admitting.length === 0 ? undefined : this.admission();
    if (turn) {
      if ('holdMs' in turn) {
        this.delayMs = turn.holdMs;
        return this.ask(HOLD, 'hold');
      }
      return this.refused(turn);
    }
    if (observed && channels.attemptStart.hasSubscribers) {
      channels.attemptStart.publish({ run: this, attempt: this.attempts + 1 });
    }
    // Nearly every first attempt carries nothing (no generated key, no attempt headers).
    if (
      this.attempts === 0 &&
      this.idempotencyKey === undefined &&
      this.options.attemptHeaders === undefined
    ) {
      return this.send();
    }
    const port = this.port;
    const kind: AttemptKind = port?.resuming ? 'resume' : this.attempts > 0 ? 'retry' : 'first';
    const hooked = hasAttemptHook(this.options, port, kind);
    const status = this.lastOutcome?.status;
    let editing: unknown;
    try {
      editing = this.edit(kind);
    } catch (error) {
      return hooked ? this.hookFailed(error, status) : this.fail(error);
    }
    if (!isThenable(editing)) return this.send();
    this.pending = editing;
    this.spare().hookStatus = status;
    return this.ask(hooked ? EDIT_HOOK : EDIT, 'await');
  }

  /** Nothing was sent: the run ends (after `onGiveUp`), and the request fails with the feature's error. */
  protected refused(turn: Extract<Turn, { readonly refuse: StopReason }>): Step {
    this.error = turn.error;
    this.afterEnd = FAIL;
    return this.stop(turn.refuse, true, undefined, turn.error, false, turn.refusedDelayMs);
  }

  /** The steps from here end in the decision, for the run's older methods (`run.ts`), not in an answer. */
  protected forDecision(): void {
    this.afterEnd = DECISION;
    this.holding = false;
  }

  /**
   * What the features say about the attempt about to be sent, outermost first: `undefined` lets it
   * go. For a simulation too, which takes the same turn in virtual time.
   */
  admission(): Turn | undefined {
    const { admitting } = this.options;
    for (let i = 0; i < admitting.length; i++) {
      const turn = admitting[i]!.admit!(this);
      if (turn) return turn;
    }
    return undefined;
  }

  /**
   * Whether the attempt about to be sent may carry edits: a retry may (`beforeRetry`), a first
   * attempt only a generated key or the attempt headers. Asked first, so that nearly every request's
   * first attempt makes no call for nothing.
   */
  edits(): boolean {
    return (
      this.attempts > 0 || this.idempotencyKey !== undefined || this.options.attemptHeaders !== undefined
    );
  }

  /**
   * Applies what the attempt about to be sent carries to the driver's request (`attempt-edits.ts`):
   * `undefined`, or a promise while that is prepared. Throws what a hook throws.
   */
  protected edit(kind: AttemptKind): unknown {
    const port = this.port as EditableRequest;
    const headers = attemptHeaders(this, port, kind);
    if (headers === undefined) return undefined;
    const hook = attemptHook(this, port, kind);
    if (!hook) return port.edit(port.requestUrl(), headers);
    return editedAfter(hook, port, nextAttempt(this, port, kind, headers));
  }

  /** Sends the attempt: once, or as the copies a feature races (hedging wraps the send so). */
  protected send(): Step {
    this.stage = SEND;
    // A race of the last attempt is over (most requests never race).
    if (this.aside?.race !== undefined) this.aside.race = undefined;
    const racer = this.options.racer;
    if (racer === undefined || this.port?.sendOnce?.()) return 'send';
    // Hedging wraps the send: the attempt's copies are its feature's steps until one wins.
    const race = racer.wrapSend!(this);
    this.spare().race = race;
    return race.start();
  }

  /** A status that settles the request by itself: the run's end; `undefined` when its result is needed. */
  protected settleByStatus(status: number): Step | undefined {
    const o = this.options;
    const settled = o.observing ? undefined : decideByStatus(status, o);
    if (settled === undefined) return undefined;
    this.attempts++;
    o.progress.answers++;
    if (observed) this.attemptEnded(status, undefined, undefined);
    this.decision = settled;
    return this.end(settled.reason, status, undefined, status < 400, FINISH);
  }

  /** Decides on the result of the attempt just answered: counted, observed, then `shouldRetry`. */
  protected decideResult(result: AttemptResult): Step {
    if ('status' in result) {
      const step = this.settleByStatus(result.status);
      if (step !== undefined) return step;
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
    const ask = looksFine(status, o) ? o.isFailure : o.shouldRetry;
    if (!ask || outcome.aborted || !o.retry) return this.decideOutcome(outcome);
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
    // Concluded with its verdict (`done` at VERDICT): isFailure's `false` is no opinion, the response
    // is the success it looks like.
    this.lastOutcome = outcome;
    return this.callHook(VERDICT, status, ask, info);
  }

  /**
   * What the decision looks at, for `r`, the result of the attempt just counted (for the features'
   * modules too). Either kind of result is read as one: what the other kind lacks reads as `undefined`.
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
   * innermost first; then a retry's event (the features', `jitterbug:retry`, `onRetry`), or the end.
   */
  protected decideOutcome(outcome: AttemptOutcome): Step {
    const o = this.options;
    const { features } = o;
    const { status, error } = outcome;
    this.lastOutcome = outcome;
    let decision = decide(outcome, o);
    for (let i = features.length - 1; i >= 0; i--) {
      const review = features[i]!.review;
      if (review) decision = review(this, outcome, decision);
    }
    this.decision = decision;
    if (!decision.retry) {
      // A response the user asked to retry is not a success, whatever its status.
      const success = status !== undefined && status < 400 && !outcome.forced && outcome.verdict !== true;
      return this.stop(
        decision.reason,
        decision.gaveUp,
        status,
        error,
        success,
        decision.refusedDelayMs,
        decision.quotaResetAt,
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
    if (decision.uncounted) this.uncountedRetries++;
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
    return onRetry ? this.callHook(ON_RETRY, status, onRetry, event) : this.retry();
  }

  /** A retry, decided and told: the answer is dropped, then the wait. */
  protected retry(): Step {
    this.delayMs = (this.decision as Extract<Decision, { readonly retry: true }>).delayMs;
    // A failure while offline waits until the browser is back online (the driver's wait ends at the
    // `online` event: `untilOnline`).
    if (this.decision!.reason === 'offline') this.aside!.offlineSinceMs = this.options.now();
    const then = this.afterEnd;
    if (then === DECISION) return this.ask(OVER, 'discard');
    if (then === PREPARE_FAILED) return this.fail(this.error);
    this.holding = false;
    return this.ask(DISCARD, 'discard');
  }

  /**
   * Ends the run as `reason`: when it gave up on a failure that is normally retried, `onGiveUp` and
   * `jitterbug:give-up` are told first (with the delay that was not waited).
   */
  protected stop(
    reason: StopReason,
    gaveUp: boolean,
    status: number | undefined,
    error: unknown,
    success: boolean,
    refusedDelayMs: number | undefined,
    quotaResetAt?: number,
  ): Step {
    if (!gaveUp) return this.end(reason, status, error, success, FINISH, quotaResetAt);
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
    if (!onGiveUp) return this.end(reason, status, error, success, FINISH, quotaResetAt);
    this.spare().ending = { reason, status, error, success, quotaResetAt };
    return this.callHook(GIVE_UP, status, onGiveUp, event);
  }

  /**
   * Calls a hook of the caller's with `arg`: what it returns goes on at `stage` (as `done` with it),
   * at once, or once its promise settles (`await`). A throw is the hook's failure.
   */
  protected callHook<A>(stage: number, status: number | undefined, call: (arg: A) => unknown, arg: A): Step {
    let told: unknown;
    try {
      told = call(arg);
    } catch (error) {
      return this.hookFailed(error, status);
    }
    this.stage = stage;
    if (!isThenable(told)) return this.done(told);
    this.spare().hookStatus = status;
    this.pending = told;
    return 'await';
  }

  /**
   * A hook of the caller's threw or rejected: the run ends as `hook-failed`, with the hook's error and
   * the attempt's `status` (so that `onFinish`, the summary and `jitterbug:run:end` see every request;
   * `onFinish` is not waited for), and the request fails with that error.
   */
  protected hookFailed(error: unknown, status: number | undefined): Step {
    if (this.aside) this.aside.ending = undefined;
    this.error = error;
    this.afterEnd = FAIL;
    return this.end('hook-failed', status, error, false, DROPPED);
  }

  /**
   * Ends the run as `reason` (once: a finished run stays as it ended), then `onFinish`, which `mode`
   * waits for or not; then what follows the end (`then`). An `onFinish` that throws fails the request
   * with its error.
   */
  protected end(
    reason: StopReason,
    status: number | undefined,
    error: unknown,
    success: boolean,
    mode: FinishMode,
    quotaResetAt?: number,
  ): Step {
    let told: unknown;
    try {
      told = this.close(reason, status, error, success, quotaResetAt);
    } catch (thrown) {
      return this.fail(thrown);
    }
    if (isThenable(told)) {
      if (mode !== DROPPED) {
        this.pending = told;
        return this.ask(mode, 'await');
      }
      told.then(nothing, nothing);
    }
    const afterEnd = this.afterEnd;
    if (afterEnd === DELIVER) {
      this.stage = DELIVERED;
      return 'deliver';
    }
    if (afterEnd === DECISION) {
      this.stage = OVER;
      return 'deliver';
    }
    return this.ended();
  }

  /** What follows the run's end. */
  protected ended(): Step {
    const then = this.afterEnd;
    if (then === DELIVER) return this.ask(DELIVERED, 'deliver');
    if (then === DECISION) return this.ask(OVER, 'deliver');
    // The request fails: an abort, a refusal, a hook's error, or a failure before the first
    // attempt, whatever was decided on it.
    return this.fail(this.error);
  }

  /**
   * The request fails with `error`: an answer the driver holds is dropped first; the run ends as
   * `error-not-retryable` if nothing ended it before (a request its client refused before any
   * attempt, a step that broke).
   */
  protected fail(error: unknown): Step {
    this.error = error;
    this.afterEnd = FAIL;
    this.race?.end();
    if (!this.holding) return this.failNow();
    this.holding = false;
    return this.ask(FAILING, 'drop');
  }

  /** Ends the request with the decision's failure, now (no feature holds it back). */
  protected failNow(): Step {
    if (this.summary) return this.ask(OVER, 'fail');
    return this.end('error-not-retryable', undefined, this.error, false, QUIET);
  }

  /**
   * Finishes the run (once; later calls do nothing): its summary, the features' part of it,
   * `jitterbug:run:end`; returns what `onFinish` returned. `quotaResetAt`: when a spent quota is
   * back, for a run ended `quota-exceeded`.
   */
  protected close(
    reason: StopReason,
    status: number | undefined,
    error: unknown,
    success: boolean,
    quotaResetAt?: number,
  ): unknown {
    if (this.summary) return undefined;
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
    return o.onFinish ? o.onFinish(summary) : undefined;
  }

  /** Publishes the end of the attempt just counted. */
  protected attemptEnded(status: number | undefined, error: unknown, code: string | undefined): void {
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
   * `wait`, `hold`: whether the wait ends at the browser's `online` event too (a failure while
   * offline: the driver waits with `untilOnline`, at most `delayMs`).
   */
  get untilOnline(): boolean {
    return this.stage === WAIT && (this.aside?.offlineSinceMs ?? -1) >= 0;
  }

  /**
   * The wait asked for is over: its time counted; after one until the browser was back online, the
   * time actually waited, and the failed attempt not counted in `maxAttempts` when it is back.
   */
  protected waited(): void {
    const aside = this.aside!;
    const since = aside.offlineSinceMs;
    if (since < 0) {
      this.totalDelayMs += aside.delayMs;
      return;
    }
    aside.offlineSinceMs = -1;
    this.totalDelayMs += Math.min(aside.delayMs, Math.max(0, this.options.now() - since)) || 0;
    if (!offline()) this.uncountedRetries++;
  }

  /** `drop`, `discard`: the most body bytes to drain (none of an answer dropped as the request fails). */
  get maxBytes(): number {
    return this.stage === FAILING ? 0 : this.options.discardBodyMaxBytes;
  }

  /** `fail`: what the request fails with (kept aside: nearly every request succeeds). */
  get error(): unknown {
    return this.aside?.error;
  }

  protected set error(error: unknown) {
    this.spare().error = error;
  }

  /** `hold`, `wait`: how long, in ms (below 0 before a request that begins with no wait). */
  get delayMs(): number {
    return this.aside?.delayMs ?? -1;
  }

  protected set delayMs(ms: number) {
    this.spare().delayMs = ms;
  }

  /** `send`, `result`, `won`, `drop`, `deliver`: which copy of the attempt (1 unless it races). */
  get copy(): number {
    return this.aside?.race?.copy ?? 1;
  }

  /** `race`, a copy's `send`: tell `due()` after this long with no answer (`undefined`: no other copy follows). */
  get hedgeMs(): number | undefined {
    return this.aside?.race?.hedgeMs;
  }

  /** `await`: the promise; a racing copy's `send`: what it is sent after, if anything. */
  get pending(): PromiseLike<unknown> | undefined {
    const aside = this.aside;
    return this.stage === SEND && aside?.race !== undefined ? aside.race.pending : aside?.pending;
  }

  protected set pending(pending: PromiseLike<unknown> | undefined) {
    this.spare().pending = pending;
  }

  /** The race of the attempt's copies, while a feature races them. */
  protected get race(): RacedSend | undefined {
    return this.aside?.race;
  }

  // --- For the feature that races an attempt's copies (`RaceHost`) --------------------------

  /** The winning copy's `result`: the run decides on it. */
  raceWon(result: AttemptResult): Step {
    this.holding = true;
    this.stage = IDLE;
    return this.decideResult(result);
  }

  /** The edits of a copy about to be sent (`beforeRetry`, the attempt headers), if any: `undefined`, or a promise. */
  raceEdits(): unknown {
    const o = this.options;
    return o.beforeRetry || o.attemptHeaders ? this.edit('hedge') : undefined;
  }

  /** The edits of a copy failed with `error` (the race is over): the request fails with it. */
  raceFailed(error: unknown): Step {
    this.stage = IDLE;
    return hasAttemptHook(this.options, this.port, 'hedge')
      ? this.hookFailed(error, this.lastOutcome?.status)
      : this.fail(error);
  }

  /** The caller's cancellation, once they cancelled. */
  cancelled(): unknown {
    return this.port?.cancellation?.();
  }

  /** The driver's clock, for a race's latencies (`undefined`: the race's own). */
  clock(): number | undefined {
    return this.port?.clock?.();
  }

  /** What only some paths need, made on the first that does. */
  protected spare(): Aside {
    this.aside ??= {
      hookStatus: undefined,
      ending: undefined,
      error: undefined,
      delayMs: -1,
      pending: undefined,
      race: undefined,
      offlineSinceMs: -1,
    };
    return this.aside;
  }

  // --- Compatibility surface -----------------------------------------------------------------
  // The methods adapters drove a run by before it was a sequence: undici's state machine, the
  // features' modules (a resume, a forced retry, ky's hooks) and the core README's hand-written loop
  // use them. Each runs the sequence's own steps to their decision, so the order and the rules stay
  // the sequence's. The undici rewrite removes them. They return plain values when no hook returns a
  // promise, and a promise otherwise; an adapter awaits only an actual `Promise`.

  /**
   * Called by the adapter immediately before it sends each attempt. `undefined`: send it now (and
   * subscribers to `jitterbug:attempt:start` have just been told, synchronously, so they can match it
   * with the client's own request events). A promise: a feature holds the attempt (a server asked the
   * origin to wait); await it and call this again. It rejects with the signal's reason on an abort, or
   * with the feature's refusal (the run is then finished). `signal` may be an object whose `signal()`
   * is called only for a hold, so that an adapter makes no `AbortController` for attempts that are not
   * held.
   */
  beforeAttempt(signal?: HoldSignal): void | Promise<void> {
    const turn = this.options.admitting.length === 0 ? undefined : this.admission();
    if (!turn) {
      if (observed && channels.attemptStart.hasSubscribers) {
        channels.attemptStart.publish({ run: this, attempt: this.attempts + 1 });
      }
      return undefined;
    }
    if ('holdMs' in turn) {
      return this.wait(turn.holdMs, signal && 'aborted' in signal ? signal : signal?.signal());
    }
    this.forDecision();
    try {
      const ended = this.decisionOf(this.refused(turn));
      // A refusal ends in the request's failure: its error, or what a hook failed with.
      return Promise.resolve(ended).then(() => Promise.reject(this.error));
    } catch (error) {
      return Promise.reject(error);
    }
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
    this.afterEnd = DECISION;
    const step = this.settleByStatus(status);
    if (step === undefined) return undefined;
    // Nearly always: no onFinish promise to wait for.
    return (step === 'deliver' ? this.decision : this.decisionOf(step)) as
      | StopDecision
      | Promise<StopDecision>;
  }

  /**
   * Reports how an attempt ended and returns what to do. On `retry: true` the adapter discards the
   * response, waits with {@link RetryRun.wait} and sends again; on `retry: false` it hands the
   * response or error to the caller unchanged (the run is then finished and `summary` is set).
   * Throws (or rejects with) what a user hook throws: the adapter then fails the request with it.
   */
  next(result: AttemptResult): Decision | Promise<Decision> {
    this.forDecision();
    return this.decisionOf(this.decideResult(result));
  }

  /**
   * The decision on `outcome`, of the attempt last counted: `decide`, then each feature's review,
   * innermost first, then `onRetry` or the run's end (for the features' modules: a resume, a forced
   * retry).
   */
  conclude(outcome: AttemptOutcome): Decision | Promise<Decision> {
    this.forDecision();
    return this.decisionOf(this.decideOutcome(outcome));
  }

  /**
   * What a user hook returns, given `arg`; when it throws or rejects, the run is finished first (as
   * `hook-failed`, with the hook's error and the attempt's `status`), so that `onFinish`, the summary
   * and `jitterbug:run:end` see every request, then the error goes on to the caller. For undici's
   * attempt edits (`editAttempt`).
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
    try {
      await this.options.sleep(ms, signal);
      if (signal?.aborted) throw signal.reason;
    } catch (error) {
      // The run is over with the abort; an onFinish that rejects does not replace the reason.
      void quietly(this.finish('aborted', undefined, error, false));
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
   * whose promise it returns if it returned one.
   */
  finish(
    reason: StopReason,
    status: number | undefined,
    error: unknown,
    success: boolean,
  ): void | Promise<void> {
    const told = this.close(reason, status, error, success);
    return isThenable(told) ? Promise.resolve(told).then(nothing) : undefined;
  }

  /**
   * Runs the sequence's steps that need no I/O (the hooks' promises, if any) to the decision they
   * end in; throws (or rejects with) the error the request fails with.
   */
  protected decisionOf(step: Step): Decision | Promise<Decision> {
    for (;;) {
      if (step === 'await') {
        return Promise.resolve(this.pending).then(
          (value) => this.decisionOf(this.done(value)),
          (error: unknown) => this.decisionOf(this.failed(error)),
        );
      }
      if (step === 'fail') throw this.error;
      if (step !== 'drop') return this.decision!;
      step = this.proceed();
    }
  }
}
