/**
 * The targets and the rule for findings: a difference is a finding only when it is larger
 * than the A/A spread of the same run (how far the raw/raw and peer/peer intervals reach from zero).
 * A verdict near a target needs a spread no wider than {@link RESOLUTION}: with a wider one, only a
 * ratio farther from the target than the spread gets a verdict, the rest is "not resolved".
 */
import type { Estimate } from './stats.ts';

/** jitterbug against the raw client, success path, 50-byte response. */
export const OVERHEAD_TARGET = 1.02;
/** jitterbug against the peer: no dearer (success path, and retry path). */
export const PEER_TARGET = 1;

export const isFinding = (e: Estimate, spread: number): boolean =>
  e.n > 0 && Number.isFinite(spread) && Math.abs(e.value - 1) > spread;

/** The widest A/A spread that still decides a target of this size (2 % is the target's own size). */
export const RESOLUTION = 0.02;

export const verdict = (e: Estimate, target: number, spread: number): string => {
  if (e.n === 0) return 'not run';
  const s = Number.isFinite(spread) ? spread : Number.POSITIVE_INFINITY;
  const resolved = s <= RESOLUTION;
  if (e.value <= target - s) return 'met';
  if (e.value > target + s) return '**missed**';
  if (!resolved) return `not resolved (A/A ±${(s * 100).toFixed(1)} %)`;
  return e.value <= target ? 'met' : 'met within the A/A spread';
};

/**
 * A verdict from an interval of exact instruction counts (`counts.ts`): met when the whole interval
 * is at or under the target, missed when it is all above (by how much the estimate exceeds it),
 * otherwise not resolved. `show` formats a difference from the target.
 */
export const countVerdict = (
  value: number,
  lo: number,
  hi: number,
  target: number,
  show: (x: number) => string,
): string => {
  if (!Number.isFinite(value)) return 'not run';
  if (hi <= target) return 'met';
  if (lo > target) return `**missed** by ${show(value - target)}`;
  return `not resolved (${show(lo - target)} … ${show(hi - target)} against the target)`;
};
