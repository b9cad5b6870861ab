import type { RandomSource } from './backoff.ts';

/**
 * A seeded pseudo-random source (mulberry32) for deterministic tests and reproducible simulations.
 * Never share one seed across real clients: identical seeds mean identical "random" delays, which
 * brings back the very clustering that jitter exists to break.
 *
 * @param seed - any finite number; its low 32 bits are used.
 */
export const seededRandom = (seed: number): RandomSource => {
  if (!Number.isFinite(seed)) throw new TypeError(`seededRandom: seed must be a finite number, got ${seed}`);
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};
