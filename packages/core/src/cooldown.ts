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
}

import { branded, isFeature } from './feature.ts';

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
  };
  return branded(cooldown, 'cooldown');
};

/** Whether a value was made by {@link createCooldown}. */
export const isCooldown = (value: unknown): value is Cooldown => isFeature(value, 'cooldown');
