/**
 * An origin-wide cooldown: a 429 or 503 whose `Retry-After` (or rate-limit reset) says "not before
 * T" is taken as the server's word for every request of the policy to that origin, not only the one
 * that got it (GitHub's Octokit does this for GitHub alone). Requests that come during the hold wait
 * until T, then go out in the order they came, at jittered, increasing times within
 * `[T, T + jitterRatio · hold]`, so that they do not all arrive at the reset instant.
 *
 * No timers: the state is a time per origin and the last release handed out, so it is deterministic
 * under an injected clock and random source.
 */
import { unitRandom } from './backoff.ts';
import type { AttemptOutcome, Decision } from './decide.ts';
import { branded, isFeature } from './feature.ts';
import type { ResolvedOptions, StopReason } from './options.ts';
import type { RetryRun } from './policy.ts';
import { refuse } from './refuse.ts';
import { serverDelay } from './retry-after.ts';

/** The cooldowns of a policy (or of several, shared like a retry budget). */
export interface Cooldown {
  /** Whether any origin is, or was recently, held (cheap: asked before every attempt). */
  readonly active: boolean;
  /**
   * Records the server's word: nothing to `origin` before `untilMs`. `firstRelease` is when the
   * request that got the answer goes again (it keeps its place, first in line).
   */
  hold(origin: string, nowMs: number, untilMs: number, firstRelease: number): void;
  /**
   * When a request to `origin` may be sent: `undefined` at once, else the time to release it at,
   * after every request that came before it. `servedUntil` is the hold a request was already
   * released from (it does not queue for the same hold twice); `jitter`, a random fraction of the
   * hold's length (up to `retryAfter.jitterRatio`), places the release in the window.
   */
  releaseAt(origin: string, nowMs: number, servedUntil: number, jitter: number): number | undefined;
  /** The end of the hold on `origin` now (0 when none). */
  until(origin: string): number;
  /**
   * For `RetryRun.beforeAttempt`: `undefined` when the run's attempt may be sent now; else the hold
   * (a wait in line, or a refusal with a {@link CooldownError} when it is longer than
   * `retryAfter.maxMs` allows or passes the deadline).
   */
  admit(run: CooldownRun, signal: HoldSignal | undefined): Promise<void> | undefined;
  /** For the run's decision on a 429 or 503: one that says when to come back holds the origin. */
  heed(run: CooldownRun, outcome: AttemptOutcome, decision: Decision): void;
}

/**
 * What the cooldown asks of a run: public members only (a structural type, so that a `Cooldown`
 * from another copy of the package type-checks against this copy's runs).
 */
export type CooldownRun = Pick<
  RetryRun,
  'url' | 'method' | 'attempts' | 'options' | 'servedUntil' | 'elapsedMs' | 'finish' | 'hook' | 'wait'
>;

/** What `beforeAttempt` is given: the signal, or an object that makes one only for a hold. */
type HoldSignal = AbortSignal | { holdSignal(): AbortSignal };

/** The origin of a request's URL (a relative one's is the page's, in a browser). */
const originOf = (url: string): string => {
  try {
    return new URL(url, (globalThis as { location?: { href?: string } }).location?.href).origin;
  } catch {
    return '';
  }
};

/**
 * How long a run `elapsedMs` into its request waits for a hold of `ms`, or why it may not: a hold
 * past `retryAfter.maxMs` is what the request would get as a retry (refused, or cut to `maxMs` with
 * `whenLonger: 'cap'`), and one past `deadlineMs` is refused.
 */
export const holdWait = (
  o: ResolvedOptions,
  elapsedMs: number,
  ms: number,
): { readonly waitMs: number; readonly refused: StopReason | undefined } => {
  const limit = o.retryAfter ? o.retryAfter.maxMs : Number.POSITIVE_INFINITY;
  const waitMs = ms > limit && o.retryAfter && o.retryAfter.whenLonger === 'cap' ? limit : ms;
  const refused: StopReason | undefined =
    waitMs > limit
      ? 'retry-after-too-long'
      : o.deadlineMs !== undefined && !(elapsedMs + waitMs <= o.deadlineMs)
        ? 'deadline'
        : undefined;
  return { waitMs, refused };
};

/** Waits out the origin's hold, or refuses a wait the run's options do not allow. */
const holdFor = (
  run: CooldownRun,
  origin: string,
  ms: number,
  signal: AbortSignal | undefined,
): Promise<void> => {
  const { waitMs, refused } = holdWait(run.options, run.elapsedMs(), ms);
  return refused ? refuse(run, refused, new CooldownError(origin, ms), ms) : run.wait(waitMs, signal);
};

/**
 * The error a request fails with, before it is sent, when its origin is held (see the `cooldown`
 * option) for longer than `retryAfter.maxMs` or past its deadline.
 */
export class CooldownError extends Error {
  /** Always `ERR_JITTERBUG_COOLDOWN`. */
  readonly code = 'ERR_JITTERBUG_COOLDOWN';
  /** The origin the server asked to wait for. */
  readonly origin: string;
  /** How long the request would have had to wait, in ms. */
  readonly retryAfterMs: number;
  constructor(origin: string, retryAfterMs: number) {
    super(`jitterbug: ${origin} asked for ${Math.ceil(retryAfterMs)} ms without requests`);
    this.name = 'CooldownError';
    this.origin = origin;
    this.retryAfterMs = retryAfterMs;
  }
}

interface Hold {
  /** Not before this time. */
  until: number;
  /** The latest release handed out: later requests go after it. */
  last: number;
  /** How long the hold is (for the jitter window). */
  length: number;
}

/** Creates the cooldown state of a policy. */
export const createCooldown = (): Cooldown => {
  const holds = new Map<string, Hold>();
  const cooldown: Cooldown = {
    get active() {
      return holds.size > 0;
    },
    hold(origin, nowMs, untilMs, firstRelease) {
      if (!(untilMs > nowMs)) return;
      const current = holds.get(origin);
      if (current && current.until >= untilMs) return;
      holds.set(origin, { until: untilMs, last: Math.max(firstRelease, untilMs), length: untilMs - nowMs });
    },
    releaseAt(origin, nowMs, servedUntil, jitter) {
      const hold = holds.get(origin);
      if (!hold) return undefined;
      if (nowMs >= hold.last) {
        // Every release handed out has passed: the hold is over.
        holds.delete(origin);
        return undefined;
      }
      if (servedUntil >= hold.until) return undefined;
      // Order kept (never before the last release, and a millisecond after it), jittered within the window.
      const release = Math.max(hold.last + 1, hold.until + jitter * hold.length);
      hold.last = release;
      return release;
    },
    until(origin) {
      return holds.get(origin)?.until ?? 0;
    },
    admit(run, signal) {
      if (!cooldown.active) return undefined;
      const o = run.options;
      const origin = originOf(run.url);
      const nowMs = o.now();
      const jitter = o.retryAfter ? unitRandom(o.random) * o.retryAfter.jitterRatio : 0;
      const release = cooldown.releaseAt(origin, nowMs, run.servedUntil, jitter);
      if (release === undefined) return undefined;
      run.servedUntil = cooldown.until(origin);
      const source = signal as { holdSignal?: () => AbortSignal } | undefined;
      return holdFor(
        run,
        origin,
        release - nowMs,
        source?.holdSignal ? source.holdSignal() : (signal as AbortSignal),
      );
    },
    heed(run, outcome, decision) {
      const server = outcome.responseHeaders && serverDelay(outcome.responseHeaders, outcome.nowMs);
      if (!server) return;
      const until = outcome.nowMs + server.ms;
      // This request keeps its place in the line: first, at the time it retries (if it does).
      cooldown.hold(
        originOf(run.url),
        outcome.nowMs,
        until,
        decision.retry ? outcome.nowMs + decision.delayMs : until,
      );
      run.servedUntil = until;
    },
  };
  return branded(cooldown, 'cooldown');
};

/** Whether a value was made by {@link createCooldown}. */
export const isCooldown = (value: unknown): value is Cooldown => isFeature(value, 'cooldown');
