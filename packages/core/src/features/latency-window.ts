/**
 * The latencies of the last N requests, kept sorted so that a percentile is one index away: hedged
 * requests ("The Tail at Scale") send a second copy once a request has taken longer than, say, the
 * 95th percentile of recent ones, and every request asks for that number.
 */

/** A window over the most recent latencies. */
export interface LatencyWindow {
  /** How many latencies the window holds now (at most its size). */
  readonly count: number;
  /** Adds one latency in ms (a negative, `NaN` or infinite value is ignored), dropping the oldest when full. */
  record(ms: number): void;
  /**
   * The `p`-th percentile (0–100, nearest rank) of the latencies held, or `undefined` while fewer
   * than `minSamples` are held.
   */
  percentile(p: number, minSamples?: number): number | undefined;
}

/** Index of the first element of `sorted` that is `>= value`. */
const lowerBound = (sorted: number[], value: number): number => {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (sorted[mid]! < value) low = mid + 1;
    else high = mid;
  }
  return low;
};

/**
 * Creates a latency window holding the last `size` latencies (default 1000).
 *
 * @throws TypeError when `size` is not an integer from 1 to 1 000 000.
 */
export const createLatencyWindow = (size = 1000): LatencyWindow => {
  if (!Number.isInteger(size) || size < 1 || size > 1_000_000) {
    throw new TypeError(
      `jitterbug: a latency window's size must be an integer from 1 to 1000000, got ${size}`,
    );
  }
  // Arrival order (a ring) and the same values sorted: one insert and one removal per record.
  const ring: number[] = [];
  const sorted: number[] = [];
  let next = 0;
  return {
    get count() {
      return sorted.length;
    },
    record(ms) {
      if (!(ms >= 0 && ms < Number.POSITIVE_INFINITY)) return;
      if (ring.length === size) {
        const oldest = ring[next]!;
        sorted.splice(lowerBound(sorted, oldest), 1);
        ring[next] = ms;
        next = (next + 1) % size;
      } else {
        ring.push(ms);
      }
      sorted.splice(lowerBound(sorted, ms), 0, ms);
    },
    percentile(p, minSamples = 1) {
      const n = sorted.length;
      if (n === 0 || n < minSamples || !(p >= 0 && p <= 100)) return undefined;
      const rank = Math.max(1, Math.ceil((p / 100) * n));
      return sorted[rank - 1];
    },
  };
};
