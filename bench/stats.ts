/** Small statistics for the pair ratios. */

/** The `q`-quantile (0…1) of `values`, linear between neighbours. */
export const quantile = (values: readonly number[], q: number): number => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
};

export const median = (values: readonly number[]): number => quantile(values, 0.5);

export interface Spread {
  readonly n: number;
  readonly median: number;
  readonly q1: number;
  readonly q3: number;
  readonly min: number;
  readonly max: number;
}

export const spread = (values: readonly number[]): Spread => ({
  n: values.length,
  median: median(values),
  q1: quantile(values, 0.25),
  q3: quantile(values, 0.75),
  min: Math.min(...values),
  max: Math.max(...values),
});

/** A ratio as a signed percentage: 1.034 → "+3.4 %". */
export const pct = (ratio: number): string =>
  Number.isFinite(ratio) ? `${ratio >= 1 ? '+' : '−'}${Math.abs((ratio - 1) * 100).toFixed(1)} %` : '—';

/** "+3.4 % (IQR +1.0 … +5.2, min −2.0, max +8.1)" */
export const describeRatio = (s: Spread): string =>
  s.n === 0
    ? '—'
    : `${pct(s.median)} (IQR ${pct(s.q1)} … ${pct(s.q3)}; min ${pct(s.min)}, max ${pct(s.max)})`;
