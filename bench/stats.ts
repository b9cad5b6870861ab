/** The bench's one stats helper: quantiles, and a median with a two-level bootstrap interval. */

export const quantile = (values: readonly number[], q: number): number => {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  return sorted[lo]! + (sorted[Math.ceil(pos)]! - sorted[lo]!) * (pos - lo);
};
export const median = (values: readonly number[]): number => quantile(values, 0.5);

/** An estimate and its 95 % interval, from `n` values. */
export type Estimate = Readonly<Record<'n' | 'value' | 'lo' | 'hi', number>>;

/**
 * The median of `groups` (sessions of per-cycle values), with a 95 % interval from a bootstrap that
 * draws sessions first, then cycles within each: what differs from one set of processes to the next
 * stays in the interval, where a bootstrap over pooled cycles would take it for resolution. Seeded
 * (mulberry32), so that the same data give the same interval.
 */
export const medianWithInterval = (groups: readonly (readonly number[])[], draws = 2000): Estimate => {
  const full = groups.filter((g) => g.length > 0);
  const n = full.reduce((a, g) => a + g.length, 0);
  let s = n * 7919 + full.length;
  const pick = <T>(items: readonly T[]): T => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return items[Math.floor((((t ^ (t >>> 14)) >>> 0) / 2 ** 32) * items.length)]!;
  };
  const medians = Array.from({ length: n ? draws : 0 }, () =>
    median(full.flatMap(() => pick(full).map((_, __, group) => pick(group)))),
  );
  return { n, value: median(full.flat()), lo: quantile(medians, 0.025), hi: quantile(medians, 0.975) };
};
