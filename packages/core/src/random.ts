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
  // Mix the seed first (murmur3's finaliser): mulberry32's first outputs for neighbouring seeds
  // (1, 2, 3 …) are close to each other, and neighbouring seeds are exactly what callers pass.
  let a = seed >>> 0;
  a = Math.imul(a ^ (a >>> 16), 0x85ebca6b);
  a = Math.imul(a ^ (a >>> 13), 0xc2b2ae35);
  // The state is kept as a signed 32-bit integer (the same bits as mulberry32's unsigned one): a
  // small integer to the engine, which stores it in the closure without a number box per draw.
  a ^= a >>> 16;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};
