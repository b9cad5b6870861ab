import type { RandomSource } from './backoff.ts';

/**
 * A seeded source of 32-bit integers (mulberry32), each draw the 32 bits that
 * {@link seededRandom}`(seed)` divides by 2^32, as a signed integer: `seededBits(s)() >>> 0` is
 * `seededRandom(s)() * 2 ** 32`, draw for draw. For a simulation that wants the bits themselves (a
 * ziggurat's layer and value), without a division and a multiplication back.
 *
 * @param seed - any finite number; its low 32 bits are used.
 */
export const seededBits = (seed: number): (() => number) => mulberry32(seed, 'seededBits');

/** mulberry32 over the mixed seed; `name` is the export a bad seed's `TypeError` names. */
const mulberry32 = (seed: number, name: string): (() => number) => {
  if (!Number.isFinite(seed)) throw new TypeError(`${name}: seed must be a finite number, got ${seed}`);
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
    return t ^ (t >>> 14);
  };
};

/**
 * A seeded pseudo-random source (mulberry32) for deterministic tests and reproducible simulations.
 * Never share one seed across real clients: identical seeds mean identical "random" delays, which
 * brings back the very clustering that jitter exists to break.
 *
 * @param seed - any finite number; its low 32 bits are used.
 */
export const seededRandom = (seed: number): RandomSource => {
  const bits = mulberry32(seed, 'seededRandom');
  return () => (bits() >>> 0) / 4294967296;
};
