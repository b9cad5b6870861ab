/**
 * The attempt sequence of one request: its run (attempts, backoff, clock, summary) and the order of
 * its steps, as a state with no I/O, told what happened and saying what to do next (the protocol is
 * `steps.ts`). Every rule that orders the steps or ends a request early is in it, once: check the
 * caller, take the attempt's turn (a feature may hold or refuse it), apply what the attempt carries,
 * send (as hedged copies when a feature races them: it wraps the send; `sequence-attempt.ts`),
 * decide (the pure `decide`, the features' reviews, the caller's hooks; `sequence-decide.ts`), then
 * hand over, or drop and wait; the end is `sequence-end.ts`. This file holds the state and takes the
 * events. Drivers only do the steps: the promise driver (`drive/promise.ts`) for fetch, ky, axios
 * and resume; undici's callbacks; the simulators, in virtual time.
 *
 * A hook of the caller's may return a promise: the sequence hands it over (`await`) and goes on when
 * told what it settled with, so a request whose hooks are synchronous (or absent) runs without one.
 *
 * Its state is in TypeScript fields assigned in the constructor, not in `#private` fields and
 * initialisers: every request makes one, in a client whose caches are cold for this code, and
 * `#private` fields measured about 0.6 µs more per request there (`git show a87c7a9:bench/profiling.md`).
 */

import { channels, observed } from '#diagnostics';
import { offline } from '#offline';
import { type EitherResult, looksFine, outcomeOf } from './attempt-outcome.ts';
import { type BackoffState, initialBackoffState } from './backoff.ts';
import type { BodyKind } from './body.ts';
import type { AttemptOutcome, Decision } from './decide.ts';
import type { ResolvedOptions, RetryInfo, RetryReason } from './options.ts';
import type { HeaderGetter } from './retry-after.ts';
import type { Aside } from './sequence-aside.ts';
import {
  attempt,
  edit,
  editsOf,
  prepared,
  prepareFailed,
  send,
  admission as turnOf,
} from './sequence-attempt.ts';
import { decideOutcome, decideResult, retry, settleByStatus } from './sequence-decide.ts';
import { ask, end, ended, fail, failNow, hookFailed } from './sequence-end.ts';
import {
  DELIVER,
  DELIVERED,
  DISCARD,
  DROPPED,
  EDIT,
  EDIT_HOOK,
  FAIL,
  FAILING,
  FINISH,
  GIVE_UP,
  HOLD,
  IDLE,
  ON_RETRY,
  OVER,
  PREPARE,
  QUIET,
  RESULT,
  SEND,
  VERDICT,
  WAIT,
} from './sequence-stages.ts';
import { raceOf, type SequenceState, spare } from './sequence-state.ts';
import type { AttemptResult, DrivenSequence, RaceHost, SequencePort, Step } from './steps.ts';
import type { Turn } from './types.ts';

/**
 * One request's run and the sequence of its attempts (`steps.ts` is the protocol). Made by
 * `RetryPolicy.begin`, as the `RetryRun` adapters name.
 * Its state fields are written by its steps only; a driver reads what its step needs.
 */
export class AttemptSequence implements DrivenSequence, RaceHost, SequenceState {
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
  declare readonly startMs: number;
  /** Where the backoff stands (decorrelated jitter needs the last delay). */
  declare backoffState: BackoffState;
  /** Why each retry so far was made, in order (the summary's `retries`). */
  declare retries: RetryReason[] | undefined;
  /** Retries of a 429 or 503 whose delay could not be read (the summary's `serverDelaysUnread`). */
  declare unread: number;
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
  declare stalledRetries: number;
  /** The policy's answers counted when this request began or last retried transparently. */
  declare answersSeen: number;
  /** The idempotency key generated for this request, sent from its first attempt on. */
  declare readonly idempotencyKey: string | undefined;
  /** What the last decision looked at (`beforeRetry` shows how the last attempt ended). */
  declare lastOutcome: AttemptOutcome | undefined;

  /** Where in the order of one attempt's steps the sequence is (`sequence-stages.ts`). */
  declare stage: number;
  /** What the driver's client offers the sequence (cancellation, edits), given at `start`. */
  declare port: SequencePort | undefined;
  /** The decision being carried out, across the hooks' promises. */
  declare decision: Decision | undefined;
  /** What follows the run's end (`sequence-stages.ts`). */
  declare afterEnd: number;
  /** Whether the driver holds an answer, which it drops (unread) when the request fails instead. */
  declare holding: boolean;
  /** What only some paths need (a race won, a hook's promise out), made when one does. */
  declare aside: Aside | undefined;

  constructor(options: ResolvedOptions, method: string, url: string, headers: HeaderGetter, body: BodyKind) {
    this.options = options;
    this.method = method;
    this.url = url;
    this.attempts = 0;
    this.totalDelayMs = 0;
    this.summary = undefined;
    this.body = body;
    const key = options.feature.idempotencyKey?.key(options, method, headers);
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
    if (preparing) return ask(this, PREPARE, 'prepare');
    return waitFirstMs === undefined ? attempt(this) : prepared(this);
  }

  done(value?: unknown): Step {
    // Left first, so that a throw from what follows (a feature's, a custom backoff's) is the
    // request's failure, not the step's.
    const stage = this.stage;
    this.stage = IDLE;
    switch (stage) {
      case PREPARE:
        return prepared(this);
      case HOLD:
      case WAIT:
        this.waited();
        return attempt(this);
      case EDIT:
      case EDIT_HOOK:
        return send(this);
      case RESULT:
        return decideResult(this, value as AttemptResult);
      case SEND: {
        const race = raceOf(this);
        // A racing copy's result.
        if (race !== undefined) {
          this.stage = SEND;
          return race.done(value as AttemptResult);
        }
        // A driver that has the attempt's result as it ends (a callback driver) tells it at once:
        // what `answered` then `result` would.
        this.holding = true;
        return decideResult(this, value as AttemptResult);
      }
      case VERDICT: {
        const outcome = this.lastOutcome!;
        return decideOutcome(this, {
          ...outcome,
          verdict:
            typeof value === 'boolean' && (value || !looksFine(outcome.status, this.options))
              ? value
              : undefined,
        });
      }
      case ON_RETRY:
        return retry(this);
      case DISCARD:
        // A retry: what follows the run's end is the next attempt's answer again (after a send
        // that failed with no answer, `failed` at SEND).
        this.afterEnd = DELIVER;
        return ask(this, WAIT, 'wait');
      case GIVE_UP: {
        const { reason, status, error, success } = this.aside!.ending!;
        this.aside!.ending = undefined;
        return end(this, reason, status, error, success, FINISH);
      }
      case FINISH:
      case QUIET:
        return ended(this);
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
        return prepareFailed(this, error);
      case HOLD:
      case WAIT:
        // The caller's abort ends the wait, and the run with it (its onFinish is not waited for).
        this.error = error;
        this.afterEnd = FAIL;
        return end(this, 'aborted', undefined, error, false, DROPPED);
      case SEND: {
        const race = raceOf(this);
        // The edit of a racing copy failed.
        if (race !== undefined) {
          this.stage = SEND;
          return race.failed(error);
        }
        // The send failed with no answer to hold (a dispatch that threw): an attempt that failed,
        // which the request fails with, should the run end on it (there is no answer to deliver).
        this.error = error;
        this.afterEnd = FAIL;
        return decideResult(this, { error });
      }
      case EDIT_HOOK:
      case VERDICT:
      case ON_RETRY:
      case GIVE_UP:
        return hookFailed(this, error, this.aside!.hookStatus);
      case QUIET:
        return ended(this);
      case OVER:
        this.stage = stage;
        return 'idle';
      case DELIVERED:
        this.holding = false;
        return fail(this, error);
      default:
        // `onFinish` rejected (FINISH), or a step broke (an edit, a discard, a result).
        return fail(this, error);
    }
  }

  answered(copy: number, status: number | undefined): Step {
    // The copies of a race are its feature's to judge (a late one's answer is dropped).
    const race = raceOf(this);
    if (race !== undefined) return race.answered(copy, status);
    this.holding = true;
    // A single attempt settles by its status alone whenever it can (a success, nearly always).
    const step = status === undefined ? undefined : settleByStatus(this, status);
    return step ?? ask(this, RESULT, 'result');
  }

  due(): Step {
    return raceOf(this)?.due() ?? 'idle';
  }

  proceed(): Step {
    const stage = this.stage;
    if (stage === FAILING) {
      this.stage = IDLE;
      return failNow(this);
    }
    const race = raceOf(this);
    return stage === SEND && race !== undefined ? race.proceed() : 'idle';
  }

  cancel(reason: unknown): Step {
    if (this.stage === OVER || this.stage === DELIVERED) return 'idle';
    raceOf(this)?.end();
    this.holding = false;
    this.error = reason;
    this.afterEnd = FAIL;
    return end(this, 'aborted', undefined, reason, false, DROPPED);
  }

  // --- What a step needs (steps.ts' StepFields) ----------------------------------------------

  /** `drop`, `discard`: the most body bytes to drain (none of an answer dropped as the request fails). */
  get maxBytes(): number {
    return this.stage === FAILING ? 0 : this.options.discardBodyMaxBytes;
  }

  /** `fail`: what the request fails with (kept aside: nearly every request succeeds). */
  get error(): unknown {
    return this.aside?.error;
  }

  set error(error: unknown) {
    spare(this).error = error;
  }

  /** `hold`, `wait`: how long, in ms (below 0 before a request that begins with no wait). */
  get delayMs(): number {
    return this.aside?.delayMs ?? -1;
  }

  set delayMs(ms: number) {
    spare(this).delayMs = ms;
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

  set pending(pending: PromiseLike<unknown> | undefined) {
    spare(this).pending = pending;
  }

  // --- For the features and their modules ----------------------------------------------------

  /**
   * What the features say about the attempt about to be sent, outermost first: `undefined` lets it
   * go. For a simulation too, which takes the same turn in virtual time.
   */
  admission(): Turn | undefined {
    return turnOf(this);
  }

  /**
   * Whether the attempt about to be sent may carry edits: a retry may (`beforeRetry`), a first
   * attempt only a generated key or the attempt headers. Asked first, so that nearly every request's
   * first attempt makes no call for nothing.
   */
  edits(): boolean {
    return (
      this.attempts > 0 ||
      this.idempotencyKey !== undefined ||
      this.options.feature.attemptHeaders !== undefined
    );
  }

  /**
   * What the decision looks at, for `r`, the result of the attempt just counted (for the features'
   * modules too). Either kind of result is read as one: what the other kind lacks reads as `undefined`.
   */
  outcome(r: EitherResult): AttemptOutcome {
    return outcomeOf(this, r);
  }

  /** Time since the run began, by the policy's clock. */
  elapsedMs(): number {
    return Math.max(0, this.options.now() - this.startMs);
  }

  /**
   * `wait`: whether the wait ends at the browser's `online` event too (a failure while offline: the
   * driver waits with `untilOnline`, at most `delayMs`).
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

  // --- For the feature that races an attempt's copies (`RaceHost`) --------------------------

  /** The winning copy's `result`: the run decides on it. */
  raceWon(result: AttemptResult): Step {
    this.holding = true;
    this.stage = IDLE;
    return decideResult(this, result);
  }

  /** The edits of a copy about to be sent (`beforeRetry`, the attempt headers), if any: `undefined`, or a promise. */
  raceEdits(): unknown {
    const o = this.options;
    return o.beforeRetry || o.feature.attemptHeaders ? edit(this, 'hedge') : undefined;
  }

  /** The edits of a copy failed with `error` (the race is over): the request fails with it. */
  raceFailed(error: unknown): Step {
    this.stage = IDLE;
    return editsOf(this)?.hooked(this.options, this.port, 'hedge')
      ? hookFailed(this, error, this.lastOutcome?.status)
      : fail(this, error);
  }

  /** The caller's cancellation, once they cancelled. */
  cancelled(): unknown {
    return this.port?.cancellation?.();
  }

  /** The driver's clock, for a race's latencies (`undefined`: the race's own). */
  clock(): number | undefined {
    return this.port?.clock?.();
  }
}
