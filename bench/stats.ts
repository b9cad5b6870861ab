/** Small statistics for the comparisons: medians, a two-level bootstrap, signed percentages. */

import { seededRandom } from '@jitterbug/core';

/** The `q`-quantile (0…1) of the finite `values`, linear between neighbours. */
export const quantile = (values: readonly number[], q: number): number => {
  // A NaN would make the sort's order undefined, and with it every quantile.
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
};

export const median = (values: readonly number[]): number => quantile(values, 0.5);

/** An estimate with its 95 % interval. */
export interface Estimate {
  /** Units the estimate is made of (cycles, over all sessions). */
  readonly n: number;
  readonly value: number;
  readonly lo: number;
  readonly hi: number;
}

export const NO_ESTIMATE: Estimate = { n: 0, value: Number.NaN, lo: Number.NaN, hi: Number.NaN };

/**
 * `estimate(groups)` with a 95 % interval from a two-level bootstrap: groups (sessions: fresh sets
 * of processes) are drawn with replacement, then units (cycles) within each drawn group. Drawing the
 * groups first keeps in the interval what differs from one set of processes to the next (a process
 * whose garbage collector settled into a costlier rhythm for its whole life, say); a bootstrap over
 * the pooled cycles would take that for resolution it does not have.
 */
export const withInterval = <T>(
  groups: readonly (readonly T[])[],
  estimate: (groups: readonly (readonly T[])[]) => number,
  iterations = 2000,
): Estimate => {
  const nonEmpty = groups.filter((g) => g.length > 0);
  const units = nonEmpty.reduce((a, g) => a + g.length, 0);
  if (units === 0) return NO_ESTIMATE;
  // Seeded (the core's mulberry32): the same data give the same intervals in every run.
  const next = seededRandom(units * 7919 + nonEmpty.length);
  const draws: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const sample = nonEmpty.map(() => {
      const group = nonEmpty[Math.floor(next() * nonEmpty.length)]!;
      return group.map(() => group[Math.floor(next() * group.length)]!);
    });
    draws.push(estimate(sample));
  }
  return { n: units, value: estimate(nonEmpty), lo: quantile(draws, 0.025), hi: quantile(draws, 0.975) };
};

/** An estimate of log-ratios as ratios. */
export const asRatio = (e: Estimate): Estimate => ({
  n: e.n,
  value: Math.exp(e.value),
  lo: Math.exp(e.lo),
  hi: Math.exp(e.hi),
});

/** A ratio as a signed percentage: 1.034 → "+3.4 %". */
export const pct = (ratio: number, digits = 1): string =>
  Number.isFinite(ratio) ? `${ratio >= 1 ? '+' : '−'}${Math.abs((ratio - 1) * 100).toFixed(digits)} %` : '—';

/** "+3.4 % (+1.0 … +5.2)": a ratio with its 95 % interval. */
export const describe = (e: Estimate): string =>
  e.n === 0 ? '—' : `${pct(e.value)} (${pct(e.lo)} … ${pct(e.hi)})`;

/** How far from no difference an A/A interval reaches: the larger of its two bounds, as a fraction. */
export const reach = (e: Estimate): number =>
  e.n === 0 ? Number.NaN : Math.max(Math.abs(e.lo - 1), Math.abs(e.hi - 1));
