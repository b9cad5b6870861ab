/** Summary statistics over runs, and histograms. */

/** Mean and spread of one measure over several runs. */
export interface Summary {
  /** The arithmetic mean. */
  readonly mean: number;
  /** Sample standard deviation (n − 1); 0 for a single value. */
  readonly sd: number;
  /** The smallest value. */
  readonly min: number;
  /** The largest value. */
  readonly max: number;
  /** How many values. */
  readonly n: number;
}

/** Summarises values (Welford's algorithm, so large sums do not lose precision). */
export const summarize = (values: ArrayLike<number>): Summary => {
  const n = values.length;
  if (n === 0) return { mean: Number.NaN, sd: Number.NaN, min: Number.NaN, max: Number.NaN, n: 0 };
  let mean = 0;
  let m2 = 0;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < n; i++) {
    const x = values[i]!;
    const delta = x - mean;
    mean += delta / (i + 1);
    m2 += delta * (x - mean);
    if (x < min) min = x;
    if (x > max) max = x;
  }
  return { mean, sd: n > 1 ? Math.sqrt(m2 / (n - 1)) : 0, min, max, n };
};

/** Counts of values in bins `[k·binMs, (k+1)·binMs)` starting at 0. */
export const histogram = (values: ArrayLike<number>, binMs: number): number[] => {
  const counts: number[] = [];
  for (let i = 0; i < values.length; i++) {
    const bin = Math.floor(values[i]! / binMs);
    while (counts.length <= bin) counts.push(0);
    counts[bin]!++;
  }
  return counts;
};

/**
 * The `p`-th percentile (0–100) of values sorted ascending, by nearest rank (the definition the
 * core's latency window uses): the smallest value with at least `p` % of the values at or below it.
 * `NaN` for no values.
 */
export const percentileOfSorted = (sorted: ArrayLike<number>, p: number): number => {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const rank = Math.min(n, Math.max(1, Math.ceil((p / 100) * n)));
  return sorted[rank - 1]!;
};
