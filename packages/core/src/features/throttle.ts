/**
 * Adaptive client-side throttling (Google SRE book, ch. 21 "Handling Overload"): a client that sees
 * its requests refused rejects a share of new ones itself, before sending, so that a backend in
 * trouble is not kept busy answering "no". Over a sliding window it counts `requests` (attempts it
 * wanted to send) and `accepts` (attempts the backend answered with something other than
 * overload), and rejects locally with probability `max(0, (requests − K·accepts) / (requests + 1))`.
 *
 * With K = 2 a healthy backend is never throttled (accepts ≈ requests); one that accepts a share a
 * of what it gets is sent about K·a of the requests, and one that accepts nothing little, until its
 * accepts come back. No timers: the window is kept in buckets advanced by the injected clock, so it
 * is deterministic under test.
 *
 * Two changes to the book's throttle give it a way back after an outage. As the book states it, its
 * own refusals count as requests and only what it sends can be accepted: once the window is full of
 * refusals it sends about 1/requests of what comes, and the share it lets through doubles once per
 * window, so a client comes back a minute or more after its backend (the storm simulator measured
 * 30 s after a 15 s outage with a 10 s window, most runs never). So:
 * - the probability is capped at `maxRejectProbability` (default 0.8, as Envoy's admission control
 *   caps it): a fifth of the requests still go, and find out when the backend is back;
 * - a throttle that sees `k + 1` answers in a row accepted while it refuses takes the backend as
 *   answering again, as a circuit breaker closes once its half-open probes succeed: it forgets the
 *   buckets before the newest one, and all of them when it was refusing half or more (an outage).
 *   Under a partial overload the newest bucket still holds the refusals that keep it throttling
 *   (measured: a backend serving 30 of 100 requests a second is sent 62 a second, K times what it
 *   accepts, as without this).
 */
import { type RandomSource, unitRandom } from '../backoff.ts';
import type { StopDecision } from '../decide.ts';
import { checkFields, numberCheck } from '../option-error.ts';
import { branded, isFeature, type RunFeature } from './feature.ts';

/** Options of {@link createAdaptiveThrottle}. */
export interface AdaptiveThrottleOptions {
  /** The multiplier K: how many requests per accept are let through before throttling. Default 2. */
  readonly k?: number;
  /** Length of the sliding window, in ms. Default 120 000 (the SRE book's two minutes). */
  readonly windowMs?: number;
  /**
   * The highest probability of refusing a request, below 1 so that some requests still reach a
   * backend that refused everything and find out when it is back. Default 0.8.
   */
  readonly maxRejectProbability?: number;
}

/** An adaptive throttle. Share one between policies to give them one view of the backend. */
export interface AdaptiveThrottle extends RunFeature {
  /** The settings in force. */
  readonly k: number;
  /** The sliding window's length, in ms. */
  readonly windowMs: number;
  /** The largest share of requests refused locally. */
  readonly maxRejectProbability: number;
  /** The probability that the next request is rejected locally, at `nowMs`. */
  rejectProbability(nowMs: number): number;
  /**
   * Whether to reject the next request locally. Counts it as a request either way (a rejected
   * request still counts, as the SRE book's client does: that is what lets the ratio fall back).
   */
  shouldReject(nowMs: number, random: RandomSource): boolean;
  /** Records that an attempt that was sent got an answer the backend was not overloaded to give. */
  accepted(nowMs: number): void;
  /** Records that an attempt that was sent was refused for overload (429 or 503). */
  refused(): void;
}

/** The error a request fails with, before it is sent, when the adaptive throttle refuses it. */
export class ThrottledError extends Error {
  /** Always `ERR_JITTERBUG_THROTTLED`. */
  readonly code = 'ERR_JITTERBUG_THROTTLED';
  /** The probability with which the throttle was refusing requests. */
  readonly probability: number;
  constructor(probability: number) {
    super(
      `jitterbug: refused locally by the adaptive throttle (refusing ${Math.round(probability * 100)} %)`,
    );
    this.name = 'ThrottledError';
    this.probability = probability;
  }
}

/** Default throttle settings. */
export const DEFAULT_THROTTLE = Object.freeze({ k: 2, windowMs: 120_000, maxRejectProbability: 0.8 });

const BUCKETS = 12;

const THROTTLED: StopDecision = Object.freeze({ retry: false, reason: 'throttled', gaveUp: true });

/**
 * Creates an adaptive throttle.
 *
 * @throws TypeError naming the option when a setting is invalid.
 */
export const createAdaptiveThrottle = (options: AdaptiveThrottleOptions = {}): AdaptiveThrottle => {
  const { k, windowMs, maxRejectProbability } = checkFields(options, 'throttle', DEFAULT_THROTTLE, {
    k: numberCheck(1),
    windowMs: numberCheck(1),
    maxRejectProbability: numberCheck(0, 1),
  }) as Required<AdaptiveThrottleOptions>;
  const span = windowMs / BUCKETS;
  const requests = new Float64Array(BUCKETS);
  const accepts = new Float64Array(BUCKETS);
  let head = 0;
  let headStart = Number.NEGATIVE_INFINITY;
  // Answers accepted in a row, since the last refusal for overload.
  let streak = 0;

  /** Moves the window to `nowMs`, emptying the buckets that fell out of it. */
  const advance = (nowMs: number): void => {
    if (!Number.isFinite(nowMs)) return;
    if (headStart === Number.NEGATIVE_INFINITY) {
      headStart = nowMs;
      return;
    }
    // A clock that went backwards stays in the current bucket.
    const steps = Math.floor((nowMs - headStart) / span);
    if (steps <= 0) return;
    for (let i = 0; i < Math.min(steps, BUCKETS); i++) {
      head = (head + 1) % BUCKETS;
      requests[head] = 0;
      accepts[head] = 0;
    }
    headStart += steps * span;
  };

  const sum = (buckets: Float64Array): number => {
    let total = 0;
    for (const n of buckets) total += n;
    return total;
  };

  const probability = (): number => {
    const r = sum(requests);
    return Math.min(maxRejectProbability, Math.max(0, (r - k * sum(accepts)) / (r + 1)));
  };

  const throttle: AdaptiveThrottle = {
    k,
    windowMs,
    maxRejectProbability,
    rejectProbability(nowMs) {
      advance(nowMs);
      return probability();
    },
    shouldReject(nowMs, random) {
      advance(nowMs);
      const p = probability();
      requests[head] = (requests[head] ?? 0) + 1;
      if (p <= 0) return false;
      return unitRandom(random) < p;
    },
    accepted(nowMs) {
      advance(nowMs);
      accepts[head] = (accepts[head] ?? 0) + 1;
      if (++streak > k && probability() > 0) {
        // The backend answers again: what the window remembers from before this bucket is an
        // overload that is over (all of it, when it was refusing half or more: an outage).
        const all = probability() >= Math.min(0.5, maxRejectProbability);
        for (let i = 0; i < BUCKETS; i++) {
          if (!all && i === head) continue;
          requests[i] = 0;
          accepts[i] = 0;
        }
      }
    },
    refused() {
      streak = 0;
    },
    // A first attempt it refuses fails with a ThrottledError; a retry it refuses is not made (the
    // last answer is handed over).
    admit(run) {
      const o = run.options;
      if (run.attempts > 0 || !throttle.shouldReject(o.now(), o.random)) return undefined;
      return { refuse: 'throttled', error: new ThrottledError(throttle.rejectProbability(o.now())) };
    },
    review: (run, outcome, decision) =>
      decision.retry && throttle.shouldReject(outcome.nowMs, run.options.random) ? THROTTLED : decision,
    // What the server answered without refusing for overload is an accept; errors are neither.
    observe(_run, { status, nowMs }) {
      if (status === 429 || status === 503) throttle.refused();
      else if (status !== undefined) throttle.accepted(nowMs);
    },
  };
  return branded(throttle, 'throttle');
};

/** Whether a value was made by {@link createAdaptiveThrottle}. */
export const isAdaptiveThrottle = (value: unknown): value is AdaptiveThrottle => isFeature(value, 'throttle');

/** The `throttle` option, as the feature table's row puts it in the public options. */
export interface ThrottleOption {
  /**
   * Adaptive client-side throttling (Google SRE book, ch. 21): over a sliding window the policy counts
   * the attempts it wanted to send and those the server accepted (answered with anything but 429 or
   * 503), and refuses a share `max(0, (requests − k·accepts) / (requests + 1))` locally: a first
   * attempt fails with a `ThrottledError`, a retry is not made (the last answer is handed over).
   * Default `false`; `createAdaptiveThrottle()` for `{ k: 2, windowMs: 120_000 }`, or with options.
   * Give one `AdaptiveThrottle` to several policies to share it.
   */
  readonly throttle?: AdaptiveThrottle | false;
}
