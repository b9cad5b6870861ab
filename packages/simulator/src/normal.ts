/**
 * Normally distributed numbers from a uniform source: the simulated network's message delays.
 *
 * The sweep draws tens of millions of delays, so this is Marsaglia and Tsang's ziggurat (2000,
 * 128 layers) rather than Box–Muller: one uniform draw, a table lookup and a multiply in ~99% of
 * the cases, a logarithm only in the rare tail. Each 32-bit draw is split into disjoint bits, 7 for
 * the layer and 25 for the signed value, so the layer and the value are independent (the
 * correlation Doornik (2005) found in the original RNOR comes from reusing the same bits).
 */
import type { RandomSource } from '@jitterbug/core';

const LAYERS = 128;
const R = 3.442619855899;
const AREA = 9.91256303526217e-3;
const SCALE = 2 ** 24;

const kn = new Float64Array(LAYERS);
const wn = new Float64Array(LAYERS);
const fn = new Float64Array(LAYERS);
{
  let dn = R;
  let tn = dn;
  const q = AREA / Math.exp(-0.5 * dn * dn);
  kn[0] = (dn / q) * SCALE;
  kn[1] = 0;
  wn[0] = q / SCALE;
  wn[LAYERS - 1] = dn / SCALE;
  fn[0] = 1;
  fn[LAYERS - 1] = Math.exp(-0.5 * dn * dn);
  for (let i = LAYERS - 2; i >= 1; i--) {
    dn = Math.sqrt(-2 * Math.log(AREA / dn + Math.exp(-0.5 * dn * dn)));
    kn[i + 1] = (dn / tn) * SCALE;
    tn = dn;
    fn[i] = Math.exp(-0.5 * dn * dn);
    wn[i] = dn / SCALE;
  }
}

/**
 * A standard normal source driven by `random` (which must return multiples of 2^-32 or finer,
 * as the core's `seededRandom` and `Math.random` do).
 *
 * @param random - a uniform source in `[0, 1)`.
 */
export const createStandardNormal = (random: RandomSource): (() => number) =>
  standardNormal(random, () => (random() * 4294967296) | 0);

/**
 * The ziggurat over a stream that gives both its 32 bits (`bits`, a signed integer, for the layer and
 * the value) and uniform numbers (`random`, for the rare path): the core's `seededBits` gives the
 * bits without the division and the multiplication back that `random` then `* 2^32` cost at every
 * draw, where `random` is the same stream's `(bits() >>> 0) / 2^32`.
 */
export const standardNormal = (random: RandomSource, bits: () => number): (() => number) => {
  // 1 − u is in (0, 1], so the logarithm is finite.
  const uniformOpen = (): number => 1 - random();
  const slow = (layer: number, value: number): number => {
    for (;;) {
      const x = value * wn[layer]!;
      if (layer === 0) {
        // The tail beyond R.
        let tx: number;
        let ty: number;
        do {
          tx = -Math.log(uniformOpen()) / R;
          ty = -Math.log(uniformOpen());
        } while (ty + ty < tx * tx);
        return value > 0 ? R + tx : -R - tx;
      }
      if (fn[layer]! + random() * (fn[layer - 1]! - fn[layer]!) < Math.exp(-0.5 * x * x)) return x;
      const drawn = bits();
      layer = drawn & (LAYERS - 1);
      value = drawn >> 7;
      if (Math.abs(value) < kn[layer]!) return value * wn[layer]!;
    }
  };
  return () => {
    // A signed 32-bit integer: its low 7 bits pick the layer, the other 25 the value.
    const drawn = bits();
    const layer = drawn & (LAYERS - 1);
    const value = drawn >> 7;
    if (Math.abs(value) < kn[layer]!) return value * wn[layer]!;
    // `+`: a number to the engine too, so that where this is inlined the fast path's result stays a
    // raw double; merged with a call's result, which could be anything, it was boxed on the heap at
    // every draw (16 B each, four a write).
    return +slow(layer, value);
  };
};

/** How long one message takes: `|Normal(meanMs, sdMs)|`. */
export interface LatencyModel {
  /** Mean of the normal distribution before the absolute value, in ms. Default 10. */
  readonly meanMs: number;
  /** Its standard deviation, in ms. Default 2 (Brooker's article used 4). */
  readonly sdMs: number;
}

/** The defaults of issue 4: mean 10 ms, sd 2 ms. */
export const DEFAULT_LATENCY: LatencyModel = Object.freeze({ meanMs: 10, sdMs: 2 });

/**
 * A message-delay source: each call returns `|Normal(meanMs, sdMs)|` milliseconds.
 *
 * @param random - a uniform source; give the network its own stream so that the delays do not
 *   shift when a backoff strategy draws more or fewer numbers.
 */
export const createLatency = (random: RandomSource, latency: LatencyModel): (() => number) =>
  latencyOf(createStandardNormal(random), latency);

/** `|Normal(meanMs, sdMs)|` from a standard normal source. */
export const latencyOf =
  (normal: () => number, { meanMs, sdMs }: LatencyModel): (() => number) =>
  () =>
    Math.abs(meanMs + sdMs * normal());
