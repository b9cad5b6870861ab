/**
 * The tail experiment's settings: its variants, options, defaults, limits and their validation, and
 * the core policy each variant runs. The simulation itself is in `tail.ts`.
 */
import {
  createHedging,
  createRetryPolicy,
  type Hedging,
  type RandomSource,
  type RetryPolicy,
} from '@jitterbug/core';
import type { LatencyModel } from './normal.ts';
import { DEFAULT_SERVICE_TIME, type ServiceTimeModel, serviceTimeProblem } from './service-time.ts';

/** The hedging variants compared. */
export type TailVariantName = 'none' | 'fixed' | 'fixed+budget' | 'p95' | 'p95+budget';

/** Every variant, in table and chart order. */
export const TAIL_VARIANTS: readonly TailVariantName[] = Object.freeze([
  'none',
  'fixed',
  'fixed+budget',
  'p95',
  'p95+budget',
]);

/** Whether a string names a tail variant. */
export const isTailVariant = (name: string): name is TailVariantName =>
  (TAIL_VARIANTS as readonly string[]).includes(name);

/** What each variant is, in words. */
export const TAIL_VARIANT_DESCRIPTIONS: Readonly<Record<TailVariantName, string>> = Object.freeze({
  none: 'one copy per request',
  fixed: 'a second copy after a fixed delay, no hedge budget',
  'fixed+budget': "a second copy after a fixed delay, within the core's hedge budget",
  p95: 'a second copy after the p95 of recent latencies, no hedge budget',
  'p95+budget': "a second copy after the p95 of recent latencies, within the core's hedge budget",
});

/**
 * What the core's latency window (behind a `'p95'` delay) is fed with. `winner`: what the fetch
 * engine and undici record, the answering copy's own time from its send. `request`: the request's
 * time from its first copy's send to its first answer, hedge delay included; no engine does this,
 * the simulator offers it to measure what the window misses.
 */
export type TailWindowFeed = 'winner' | 'request';

/** Every window feed. */
export const TAIL_WINDOW_FEEDS: readonly TailWindowFeed[] = Object.freeze(['winner', 'request']);

/** Whether a string names a window feed. */
export const isTailWindowFeed = (name: string): name is TailWindowFeed =>
  (TAIL_WINDOW_FEEDS as readonly string[]).includes(name);

/** Copies of a request in all (the core's default `hedge.maxCopies`). */
export const TAIL_COPIES = 2;

/** Options of the tail experiment. */
export interface TailOptions {
  /** Base seed; run `r` uses `deriveSeed(seed, r)` at every load and for every variant. */
  readonly seed: number;
  /** Default {@link TAIL_VARIANTS}. */
  readonly variants?: readonly TailVariantName[];
  /** Offered loads, as shares of the server's capacity without hedging (1 is saturation). */
  readonly loads?: readonly number[];
  /** Requests per run. Default 20 000. */
  readonly requests?: number;
  /** Runs per point; their latencies are pooled for the percentiles. Default 2. */
  readonly runs?: number;
  /** Requests the server works on at once; the others wait in its queue. Default 32. */
  readonly workers?: number;
  /** Default {@link DEFAULT_SERVICE_TIME}. */
  readonly service?: ServiceTimeModel;
  /** Each message (request, response) takes `|Normal(meanMs, sdMs)|`. Default 0.5, 0.1 (one data centre). */
  readonly latency?: LatencyModel;
  /** The fixed variants' hedge delay. Default 10 ms (BigTable's in "The Tail at Scale"). */
  readonly delayMs?: number;
  /** The budget variants' `hedge.ratio`. Default 0.05 (the core's). */
  readonly hedgeRatio?: number;
  /**
   * The hedge budget's depth in tokens. Unset (the default): the core's own hedge budget, which
   * holds ten tokens (`Hedging.start`). A number: the budget variants ask a
   * `createRetryBudget({ ratio: hedgeRatio, burst })` of their own instead, to show what another
   * depth does (the core does not let a policy set it; it held one until this experiment).
   */
  readonly hedgeBurst?: number | undefined;
  /** What the p95 variants' latency window is fed with. Default `'request'`, as the engines do. */
  readonly windowFeed?: TailWindowFeed;
  /** Called after every run with (runs done, runs in all). */
  readonly onProgress?: (done: number, total: number) => void;
}

/** Defaults of {@link TailOptions}. */
export const TAIL_DEFAULTS = Object.freeze({
  runs: 2,
  requests: 20_000,
  workers: 32,
  delayMs: 10,
  hedgeRatio: 0.05,
  windowFeed: 'request' as TailWindowFeed,
  loads: Object.freeze([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]) as readonly number[],
  latency: Object.freeze({ meanMs: 0.5, sdMs: 0.1 }) as LatencyModel,
});

/**
 * Upper bounds of the inputs. A run keeps a few typed arrays and, at worst, a core run per request;
 * a point pools `requests × runs` latencies; the sweep's time grows with requests × runs × loads ×
 * variants (about 1.5 µs per request), so a typo must be refused rather than run out of memory or
 * for hours.
 */
export const TAIL_LIMITS = Object.freeze({
  /** Requests per run. */
  requests: 1_000_000,
  runs: 1000,
  /** Latencies pooled per point (requests × runs): 8 bytes each. */
  pooled: 5_000_000,
  workers: 100_000,
  loads: 100,
  /** The highest offered load: beyond it every variant only measures the length of the run. */
  load: 10,
  /** Requests simulated by the whole sweep (requests × runs × loads × variants). */
  sweepRequests: 50_000_000,
  /** The hedge budget's depth (the core's own bound for a budget's burst). */
  hedgeBurst: 1e9,
});

/** {@link TailOptions} with every default filled in. */
export type ResolvedTailOptions = Required<Omit<TailOptions, 'onProgress' | 'hedgeBurst'>> & {
  /** See {@link TailOptions.hedgeBurst}: `undefined` for the core's own depth. */
  readonly hedgeBurst: number | undefined;
};

/** Which setting breaks a {@link TAIL_LIMITS} bound, and how. */
export interface TailLimitProblem {
  /** The settings at fault, e.g. `['requests', 'runs']`. */
  readonly options: readonly (keyof TailOptions)[];
  /** What was asked for and the bound. */
  readonly message: string;
}

/** The first {@link TAIL_LIMITS} bound the counts break, if any. */
export const tailLimitProblem = (
  o: Pick<ResolvedTailOptions, 'requests' | 'runs' | 'loads' | 'variants'>,
): TailLimitProblem | undefined => {
  const pooled = o.requests * o.runs;
  if (pooled > TAIL_LIMITS.pooled) {
    return {
      options: ['requests', 'runs'],
      message: `${pooled} latencies pooled per point (requests × runs), at most ${TAIL_LIMITS.pooled}`,
    };
  }
  const sweep = pooled * o.loads.length * o.variants.length;
  if (sweep > TAIL_LIMITS.sweepRequests) {
    return {
      options: ['requests', 'runs', 'loads', 'variants'],
      message: `${sweep} requests in all (requests × runs × loads × variants), at most ${TAIL_LIMITS.sweepRequests}`,
    };
  }
  return undefined;
};

/** Fills in the defaults and validates every setting. */
export const resolveTail = (options: TailOptions): ResolvedTailOptions => {
  const d = TAIL_DEFAULTS;
  const o: ResolvedTailOptions = {
    seed: options.seed,
    variants: options.variants ?? TAIL_VARIANTS,
    loads: options.loads ?? d.loads,
    requests: options.requests ?? d.requests,
    runs: options.runs ?? d.runs,
    workers: options.workers ?? d.workers,
    service: options.service ?? DEFAULT_SERVICE_TIME,
    latency: options.latency ?? d.latency,
    delayMs: options.delayMs ?? d.delayMs,
    hedgeRatio: options.hedgeRatio ?? d.hedgeRatio,
    hedgeBurst: options.hedgeBurst,
    windowFeed: options.windowFeed ?? d.windowFeed,
  };
  const count = (name: string, v: number, max: number): void => {
    if (!(Number.isInteger(v) && v >= 1 && v <= max))
      throw new RangeError(`${name} must be an integer from 1 to ${max}, got ${v}`);
  };
  count('requests', o.requests, TAIL_LIMITS.requests);
  count('runs', o.runs, TAIL_LIMITS.runs);
  count('workers', o.workers, TAIL_LIMITS.workers);
  if (o.loads.length === 0 || o.loads.length > TAIL_LIMITS.loads)
    throw new RangeError(`loads must hold 1 to ${TAIL_LIMITS.loads} values, got ${o.loads.length}`);
  for (const load of o.loads) {
    if (!(Number.isFinite(load) && load > 0 && load <= TAIL_LIMITS.load))
      throw new RangeError(`a load must be above 0 and at most ${TAIL_LIMITS.load}, got ${load}`);
  }
  if (o.variants.length === 0) throw new RangeError('variants must name at least one variant');
  for (const v of o.variants) if (!isTailVariant(v)) throw new RangeError(`unknown variant "${v}"`);
  if (!isTailWindowFeed(o.windowFeed)) throw new RangeError(`unknown window feed "${o.windowFeed}"`);
  const problem = tailLimitProblem(o);
  if (problem) throw new RangeError(`${problem.options.join(' / ')}: ${problem.message}`);
  const service = serviceTimeProblem(o.service);
  if (service) throw new RangeError(`service: ${service}`);
  if (!(Number.isFinite(o.delayMs) && o.delayMs >= 0))
    throw new RangeError(`delayMs must be a number >= 0, got ${o.delayMs}`);
  if (!(Number.isFinite(o.hedgeRatio) && o.hedgeRatio >= 0 && o.hedgeRatio <= 1))
    throw new RangeError(`hedgeRatio must be from 0 to 1, got ${o.hedgeRatio}`);
  if (
    o.hedgeBurst !== undefined &&
    !(Number.isFinite(o.hedgeBurst) && o.hedgeBurst >= 1 && o.hedgeBurst <= TAIL_LIMITS.hedgeBurst)
  )
    throw new RangeError(`hedgeBurst must be from 1 to ${TAIL_LIMITS.hedgeBurst}, got ${o.hedgeBurst}`);
  for (const [name, v] of [
    ['latency.meanMs', o.latency.meanMs],
    ['latency.sdMs', o.latency.sdMs],
  ] as const) {
    if (!(Number.isFinite(v) && v >= 0)) throw new RangeError(`${name} must be a number >= 0, got ${v}`);
  }
  return o;
};

/**
 * The core policy of a variant: hedging as the core does it (`hedge: createHedging({ delayMs,
 * maxCopies: 2, ratio })`), or none. The server never fails, so nothing is retried; budget and pacer are off.
 * `wrap`: the hedging as a simulation runs it (its budget and its window's feed as the variant says).
 */
export const createTailPolicy = (
  variant: TailVariantName,
  settings: { readonly delayMs: number; readonly hedgeRatio: number },
  random: RandomSource,
  now: () => number,
  wrap: (hedging: Hedging) => Hedging = (hedging) => hedging,
): RetryPolicy =>
  createRetryPolicy({
    random,
    now,
    budget: false,
    pacer: false,
    hedge:
      variant === 'none'
        ? false
        : wrap(
            createHedging({
              delayMs: variant.startsWith('p95') ? 'p95' : settings.delayMs,
              maxCopies: TAIL_COPIES,
              ratio: settings.hedgeRatio,
            }),
          ),
  });
