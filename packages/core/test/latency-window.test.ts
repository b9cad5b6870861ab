import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createLatencyWindow } from '../src/features/latency-window.ts';

/** The nearest-rank percentile of `values`, computed the slow way. */
const nearestRank = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1]!;
};

describe('createLatencyWindow', () => {
  it('gives nearest-rank percentiles of what it holds', () => {
    const window = createLatencyWindow(100);
    for (let ms = 1; ms <= 100; ms++) window.record(ms);
    expect(window.percentile(50)).toBe(50);
    expect(window.percentile(95)).toBe(95);
    expect(window.percentile(100)).toBe(100);
    expect(window.percentile(0)).toBe(1);
  });

  it('drops the oldest latency once full', () => {
    const window = createLatencyWindow(3);
    for (const ms of [100, 1, 2, 3]) window.record(ms);
    expect(window.count).toBe(3);
    expect(window.percentile(100)).toBe(3);
  });

  it('answers undefined while it holds fewer than minSamples, or for a percentile outside 0–100', () => {
    const window = createLatencyWindow();
    expect(window.percentile(95)).toBeUndefined();
    window.record(5);
    expect(window.percentile(95, 20)).toBeUndefined();
    expect(window.percentile(95)).toBe(5);
    expect(window.percentile(101)).toBeUndefined();
    expect(window.percentile(Number.NaN)).toBeUndefined();
  });

  it('ignores latencies that are not finite and non-negative', () => {
    const window = createLatencyWindow();
    for (const ms of [Number.NaN, -1, Number.POSITIVE_INFINITY]) window.record(ms);
    expect(window.count).toBe(0);
  });

  it('matches a sort of the last `size` latencies, for any sequence', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.array(fc.float({ min: 0, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 200 }),
        fc.integer({ min: 0, max: 100 }),
        (size, latencies, p) => {
          const window = createLatencyWindow(size);
          for (const ms of latencies) window.record(ms);
          return window.percentile(p) === nearestRank(latencies.slice(-size), p);
        },
      ),
    );
  });

  it('refuses a size that is not an integer from 1 to 1 000 000', () => {
    for (const size of [0, 1.5, -3, 2_000_000, Number.NaN])
      expect(() => createLatencyWindow(size)).toThrow(TypeError);
  });
});
