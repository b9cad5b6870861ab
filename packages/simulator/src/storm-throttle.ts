/**
 * The storm's adaptive throttle: the core's own `createAdaptiveThrottle`, warmed up before the run.
 */
import { type AdaptiveThrottle, createAdaptiveThrottle } from '@jitterbug/core';

/** Largest number of warm-up requests (`ratePerSec × throttleWindowSec`), so a warm-up always ends. */
export const THROTTLE_WARM_UP_LIMIT = 10_000_000;

const NO_RANDOM = (): number => {
  throw new Error('storm: the throttle drew a random number while warming up on accepted requests');
};

/**
 * A throttle that has seen one whole window of healthy traffic before the run starts: `ratePerSec`
 * requests per second over `[-windowMs, 0)`, every one accepted.
 *
 * Why: a client that has been running has a full window behind it, and that history is what the
 * SRE book's `requests − K·accepts` weighs a new failure against. A throttle starting empty at the
 * run's start would remember only the seconds before the outage, and react to it far sooner than
 * one in production does.
 */
export const createWarmThrottle = (k: number, windowMs: number, ratePerSec: number): AdaptiveThrottle => {
  const throttle = createAdaptiveThrottle({ k, windowMs });
  const gapMs = 1000 / ratePerSec;
  const count = Math.round((windowMs / 1000) * ratePerSec);
  for (let i = 0; i < count; i++) {
    const t = -windowMs + i * gapMs;
    // Every request so far was accepted, so the probability is 0 and no random number is drawn.
    throttle.shouldReject(t, NO_RANDOM);
    throttle.accepted(t);
  }
  return throttle;
};
