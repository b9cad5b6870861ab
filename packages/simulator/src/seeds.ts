/**
 * Seeds for reproducible runs. One base seed (`--seed`) fans out into an independent seed per run
 * and per random stream, so that a run's numbers do not depend on which other runs were made.
 */

/** Mixes any number of integers (or strings) into one 32-bit seed. Pure and stable across versions. */
export const deriveSeed = (...parts: readonly (number | string)[]): number => {
  let h = 0x9e3779b9;
  const mix = (value: number): void => {
    h = Math.imul(h ^ (value >>> 0), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    h ^= h >>> 16;
  };
  for (const part of parts) {
    if (typeof part === 'number') {
      mix(part);
      // Keep the high bits of large seeds too.
      mix(Math.floor(part / 4294967296));
    } else {
      for (let i = 0; i < part.length; i++) mix(part.charCodeAt(i));
      mix(part.length);
    }
  }
  return h >>> 0;
};

/** A fresh seed from the platform's cryptographic random source (the default when no seed is given). */
export const randomSeed = (): number => crypto.getRandomValues(new Uint32Array(1))[0]!;
