/**
 * The anchor the core's pacer is measured against: the AWS SDK's adaptive retry mode, modelled here
 * after its client-side rate limiter (`DefaultRateLimiter` in smithy-typescript's util-retry), in
 * virtual time. A model, not the SDK's code: the simulator has no AWS client to drive.
 *
 * What it does, as the SDK describes and implements it:
 * - nothing until the first throttling answer (here a 429);
 * - then a token bucket: a request takes a token, and when there is less than one it waits until one
 *   has been refilled at the bucket's rate — each waiting request computes that wait alone, so those
 *   that ask at the same moment all wait the same and go together;
 * - the rate is adjusted on every answer along CUBIC: after a throttle to 0.7 times the lesser of the
 *   measured sending rate and the bucket's rate, then growing back along `0.4 (t − K)³ + max`, never
 *   above twice the measured sending rate, never below half a request a second;
 * - the sending rate is measured per half second, smoothed (0.8 for the new measure);
 * - `Retry-After` is ignored: a retry waits its backoff (full jitter), within a retry quota.
 */

const BETA = 0.7;
const SCALE = 0.4;
const SMOOTH = 0.8;
const MIN_FILL_RATE = 0.5;
const MIN_CAPACITY = 1;

/** The model's rate limiter, in seconds as the SDK keeps it; times in and out are in ms. */
export interface AdaptiveLimiterModel {
  /** How long an attempt asked at `nowMs` waits for its token, in ms (0: it takes one now). */
  waitMs(nowMs: number): number;
  /** The attempt takes its token (after its wait). */
  take(): void;
  /** An answer came at `nowMs`: a throttling one or not. */
  answered(nowMs: number, throttled: boolean): void;
}

/** A new model of the SDK's adaptive rate limiter. */
export const createAdaptiveLimiterModel = (): AdaptiveLimiterModel => {
  let enabled = false;
  let capacity = 0;
  let maxCapacity = MIN_CAPACITY;
  let fillRate = MIN_FILL_RATE;
  let lastRefill = Number.NaN;
  let lastMaxRate = 0;
  let lastThrottle = 0;
  let timeWindow = 0;
  let measuredTxRate = 0;
  let requestCount = 0;
  let lastTxBucket = 0;
  let started = false;

  const refill = (now: number): void => {
    if (Number.isNaN(lastRefill)) {
      lastRefill = now;
      return;
    }
    capacity = Math.min(maxCapacity, capacity + (now - lastRefill) * fillRate);
    lastRefill = now;
  };

  return {
    waitMs(nowMs) {
      if (!enabled) return 0;
      refill(nowMs / 1000);
      return capacity >= 1 ? 0 : ((1 - capacity) / fillRate) * 1000;
    },
    take() {
      if (enabled) capacity -= 1;
    },
    answered(nowMs, throttled) {
      const now = nowMs / 1000;
      if (!started) {
        started = true;
        lastThrottle = now;
        lastTxBucket = Math.floor(now);
      }
      const bucket = Math.floor(now * 2) / 2;
      requestCount++;
      if (bucket > lastTxBucket) {
        measuredTxRate = (requestCount / (bucket - lastTxBucket)) * SMOOTH + measuredTxRate * (1 - SMOOTH);
        requestCount = 0;
        lastTxBucket = bucket;
      }
      let rate: number;
      if (throttled) {
        const use = enabled ? Math.min(measuredTxRate, fillRate) : measuredTxRate;
        lastMaxRate = use;
        timeWindow = Math.cbrt((lastMaxRate * (1 - BETA)) / SCALE);
        lastThrottle = now;
        rate = use * BETA;
        enabled = true;
      } else {
        timeWindow = Math.cbrt((lastMaxRate * (1 - BETA)) / SCALE);
        rate = SCALE * (now - lastThrottle - timeWindow) ** 3 + lastMaxRate;
      }
      const next = Math.min(rate, 2 * measuredTxRate);
      refill(now);
      fillRate = Math.max(next, MIN_FILL_RATE);
      maxCapacity = Math.max(next, MIN_CAPACITY);
      capacity = Math.min(capacity, maxCapacity);
    },
  };
};
