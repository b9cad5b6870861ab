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
import { unitRandom } from '../backoff.ts';
import type { ResolvedOptions, StopReason } from '../options.ts';
import { serverDelay } from '../retry-after.ts';
import { branded, isFeature, perRun, type RunFeature } from './feature.ts';

/** The cooldowns of a policy (or of several, shared like a retry budget): a feature of the run. */
export interface Cooldown extends RunFeature {
  /** Whether any origin is, or was recently, held. */
  readonly active: boolean;
}

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

/** Creates the cooldown state of a policy: `cooldown: createCooldown()`. */
export const createCooldown = (): Cooldown => {
  const holds = new Map<string, Hold>();
  // The end of the hold each request was last released from or caused: it does not queue for the
  // same hold twice.
  const served = perRun<number>();
  const cooldown: Cooldown = {
    get active() {
      return holds.size > 0;
    },
    admit(run) {
      if (holds.size === 0) return undefined;
      const o = run.options;
      const origin = originOf(run.url);
      const nowMs = o.now();
      // Drawn while any origin is held, whether or not this one is: the same draws in every client.
      const jitter = o.retryAfter ? unitRandom(o.random) * o.retryAfter.jitterRatio : 0;
      const hold = holds.get(origin);
      if (!hold) return undefined;
      if (nowMs >= hold.last) {
        // Every release handed out has passed: the hold is over.
        holds.delete(origin);
        return undefined;
      }
      if ((served.get(run) ?? 0) >= hold.until) return undefined;
      // Order kept (never before the last release, and a millisecond after it), jittered within the window.
      const release = Math.max(hold.last + 1, hold.until + jitter * hold.length);
      hold.last = release;
      served.set(run, hold.until);
      const ms = release - nowMs;
      const { waitMs, refused } = holdWait(o, run.elapsedMs(), ms);
      return refused
        ? { refuse: refused, error: new CooldownError(origin, ms), refusedDelayMs: ms }
        : { holdMs: waitMs };
    },
    // A 429 or 503 that says when to come back holds the origin.
    review(run, outcome, decision) {
      const { status, responseHeaders } = outcome;
      if ((status !== 429 && status !== 503) || !run.options.retryAfter || !responseHeaders) return decision;
      const server = serverDelay(responseHeaders, outcome.nowMs);
      if (!server) return decision;
      const nowMs = outcome.nowMs;
      const until = nowMs + server.ms;
      served.set(run, until);
      const origin = originOf(run.url);
      const current = holds.get(origin);
      if (until > nowMs && !(current && current.until >= until)) {
        // This request keeps its place in the line: first, at the time it retries (if it does).
        const firstRelease = decision.retry ? nowMs + decision.delayMs : until;
        holds.set(origin, { until, last: Math.max(firstRelease, until), length: until - nowMs });
      }
      return decision;
    },
  };
  return branded(cooldown, 'cooldown');
};

/** Whether a value was made by {@link createCooldown}. */
export const isCooldown = (value: unknown): value is Cooldown => isFeature(value, 'cooldown');
