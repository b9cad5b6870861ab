/**
 * The server's service time in the tail experiment: a mixture of a fast, log-normal body and a rare
 * slow mode (a garbage-collection pause, a cold cache, a compaction, a lock: "The Tail at Scale"'s
 * causes). Each copy of a request draws its own time, so a hedged copy is fast again with the
 * fast mode's probability: the premise that makes hedging work.
 */
import type { RandomSource } from '@jitterbug/core';
import { createStandardNormal } from './normal.ts';

/** How long the server works on one copy of a request. */
export interface ServiceTimeModel {
  /** Median of the fast mode (log-normal), in ms. */
  readonly fastMedianMs: number;
  /** σ of the fast mode's logarithm: 0.4 puts its 99th percentile at 2.5 × the median. */
  readonly fastSigma: number;
  /** Share of copies that take the slow mode, in `[0, 1)`. */
  readonly slowShare: number;
  /** The slow mode is uniform in `[slowMinMs, slowMaxMs]`. */
  readonly slowMinMs: number;
  /** The slow mode's upper bound, in ms. */
  readonly slowMaxMs: number;
}

/**
 * 98 % fast (median 3 ms), 2 % slow (0.1–2 s): the mixture's 99.9th percentile, the slow mode's
 * 95th, is 1.9 s, about BigTable's 1.8 s in "The Tail at Scale". 2 % rather than 1 %: with exactly
 * 1 % slow, the 99th percentile sits on the border between the modes and says nothing.
 */
export const DEFAULT_SERVICE_TIME: ServiceTimeModel = Object.freeze({
  fastMedianMs: 3,
  fastSigma: 0.4,
  slowShare: 0.02,
  slowMinMs: 100,
  slowMaxMs: 2000,
});

/** The mean service time (what sets the server's capacity): `E[lognormal] = median · e^(σ²/2)`. */
export const meanServiceMs = (m: ServiceTimeModel): number =>
  (1 - m.slowShare) * m.fastMedianMs * Math.exp((m.fastSigma * m.fastSigma) / 2) +
  m.slowShare * ((m.slowMinMs + m.slowMaxMs) / 2);

/** Why a model cannot be used, or `undefined` when it can. */
export const serviceTimeProblem = (m: ServiceTimeModel): string | undefined => {
  const finite = (v: number) => Number.isFinite(v) && v >= 0;
  if (!(finite(m.fastMedianMs) && m.fastMedianMs > 0))
    return `the fast median must be a positive number of ms, got ${m.fastMedianMs}`;
  // Beyond σ = 3 the mean is dominated by draws no run of a few thousand requests would see.
  if (!(finite(m.fastSigma) && m.fastSigma <= 3)) return `σ must be from 0 to 3, got ${m.fastSigma}`;
  if (!(finite(m.slowShare) && m.slowShare < 1))
    return `the slow share must be in [0, 1), got ${m.slowShare}`;
  if (!(finite(m.slowMinMs) && finite(m.slowMaxMs) && m.slowMinMs <= m.slowMaxMs))
    return `the slow mode must be MIN:MAX ms with 0 <= MIN <= MAX, got ${m.slowMinMs}:${m.slowMaxMs}`;
  return undefined;
};

/**
 * A service-time source: each call draws one copy's time. Two uniform draws decide the mode and the
 * uniform slow time; the fast time takes one normal draw.
 */
export const createServiceTime = (random: RandomSource, m: ServiceTimeModel): (() => number) => {
  const normal = createStandardNormal(random);
  const { fastMedianMs, fastSigma, slowShare, slowMinMs, slowMaxMs } = m;
  return () =>
    random() < slowShare
      ? slowMinMs + random() * (slowMaxMs - slowMinMs)
      : fastMedianMs * Math.exp(fastSigma * normal());
};
