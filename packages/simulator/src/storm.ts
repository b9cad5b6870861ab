/**
 * The retry-storm experiment: open-loop clients send requests at a steady rate to a server with a
 * fixed capacity; during an outage every attempt fails with 503 (optionally with `Retry-After`), and
 * afterwards the server sheds whatever load exceeds its capacity with 503 again.
 *
 * Every request runs under a real `RetryPolicy` from `@jitterbug/core` (`createRetryPolicy`, with
 * the simulation's virtual clock as `now` and a seeded `random`): its attempt sequence, the one the
 * HTTP adapters drive, is driven here in virtual time — told what the simulated server answered and
 * when a wait is over, it says whether to send, hold (the pacer), wait, hand over or fail. So the
 * step order, the backoff, the `Retry-After` handling, the retry budget, the pacer and the adaptive
 * throttle are the library's own code, not a model of it.
 */
import {
  type AdaptiveThrottle,
  type BackoffStrategyName,
  createAdaptiveThrottle,
  createPacer,
  createRetryBudget,
  createRetryPolicy,
  DEFAULT_THROTTLE,
  DEFAULTS,
  type HeaderGetter,
  type RandomSource,
  type RetryOptions,
  type RetryPolicy,
  seededRandom,
} from '@jitterbug/core';
import type { RetryRun, Step } from '@jitterbug/core/adapter';
import { EventHeap } from './heap.ts';
import { createLatency, DEFAULT_LATENCY, type LatencyModel } from './normal.ts';
import { deriveSeed } from './seeds.ts';
import { percentileOfSorted, type Summary, summarize } from './stats.ts';
import { createWarmThrottle, THROTTLE_WARM_UP_LIMIT } from './storm-throttle.ts';

/** The retry policies compared. */
export type StormPolicyName =
  | 'none'
  | `naive-${BackoffStrategyName}`
  | 'budget'
  | 'retry-after'
  | 'budget+retry-after'
  | 'throttle'
  | 'budget+throttle'
  | 'budget+retry-after+throttle'
  | 'retry-after+pacer'
  | 'budget+retry-after+pacer';

/** Every policy the experiment knows. */
export const STORM_POLICIES: readonly StormPolicyName[] = Object.freeze([
  'none',
  'naive-constant',
  'naive-exponential',
  'naive-full',
  'naive-equal',
  'naive-decorrelated',
  'budget',
  'retry-after',
  'budget+retry-after',
  'throttle',
  'budget+throttle',
  'budget+retry-after+throttle',
  'retry-after+pacer',
  'budget+retry-after+pacer',
]);

/** The policies of a default run (`naive-constant` and `retry-after+pacer` only on request). */
export const DEFAULT_STORM_POLICIES: readonly StormPolicyName[] = Object.freeze(
  STORM_POLICIES.filter((p) => p !== 'naive-constant' && p !== 'retry-after+pacer'),
);

/** Whether a string names a storm policy. */
export const isStormPolicy = (name: string): name is StormPolicyName =>
  (STORM_POLICIES as readonly string[]).includes(name);

/** What each policy is, in words (for tables and the README). */
export const STORM_POLICY_DESCRIPTIONS: Readonly<Record<StormPolicyName, string>> = Object.freeze({
  none: 'one attempt, no retries',
  'naive-constant': 'up to N attempts, constant backoff, no budget, Retry-After ignored',
  'naive-exponential': 'up to N attempts, exponential backoff (no jitter), no budget, Retry-After ignored',
  'naive-full': 'up to N attempts, full jitter, no budget, Retry-After ignored',
  'naive-equal': 'up to N attempts, equal jitter, no budget, Retry-After ignored',
  'naive-decorrelated': 'up to N attempts, decorrelated jitter, no budget, Retry-After ignored',
  budget: "up to N attempts, full jitter, the core's default retry budget, Retry-After ignored",
  'retry-after': 'up to N attempts, full jitter, no budget, Retry-After honoured',
  'budget+retry-after': "the core's defaults: full jitter, default budget, Retry-After honoured",
  throttle: 'up to N attempts, full jitter, adaptive throttle, no budget, Retry-After ignored',
  'budget+throttle':
    "up to N attempts, full jitter, adaptive throttle, the core's default budget, Retry-After ignored",
  'budget+retry-after+throttle':
    "the core's defaults with throttle: adaptive throttle, default budget, Retry-After honoured",
  'retry-after+pacer':
    "up to N attempts, full jitter, no budget, Retry-After honoured, the core's origin-wide pacer",
  'budget+retry-after+pacer': "the core's defaults plus the origin-wide pacer (createPacer())",
});

/** Whether a storm policy runs with the adaptive throttle. */
export const stormPolicyThrottles = (name: StormPolicyName): boolean => name.endsWith('throttle');

/** Whether a storm policy runs with the core's origin-wide pacer. */
export const stormPolicyPaces = (name: StormPolicyName): boolean => name.endsWith('pacer');

/** Options of the storm experiment. Times are in seconds unless the name says ms. */
export interface StormOptions {
  /** Base seed; run `r` uses `deriveSeed(seed, r)`, the same for every policy. */
  readonly seed: number;
  /** Runs per policy (the metrics are averaged; the timeline too). Default 10. */
  readonly runs?: number;
  /** Default {@link DEFAULT_STORM_POLICIES}. */
  readonly policies?: readonly StormPolicyName[];
  /** New requests per second (a Poisson process). Default 100. */
  readonly ratePerSec?: number;
  /** Attempts per second the server can serve. Default 120. */
  readonly capacityPerSec?: number;
  /** Depth of the server's admission bucket, in seconds of capacity. Default 0.5. */
  readonly serverBurstSec?: number;
  /** Requests start during `[0, durationSec)`; the run ends when the last one is finished. Default 60. */
  readonly durationSec?: number;
  /** Default 10. */
  readonly outageStartSec?: number;
  /** Default 25. */
  readonly outageEndSec?: number;
  /** `Retry-After` on the outage's 503s, in seconds; `undefined` for none. Default 5. */
  readonly retryAfterSec?: number | undefined;
  /** `Retry-After` on 503s from load shedding after the outage; `undefined` for none. Default 1. */
  readonly overloadRetryAfterSec?: number | undefined;
  /** Attempts per request, counting the first (not used by `none`). Default 3. */
  readonly maxAttempts?: number;
  /** Backoff base. Default 100 ms (the core's default). */
  readonly baseMs?: number;
  /** Backoff cap. Default 20 000 ms (the core's default). */
  readonly capMs?: number;
  /** The adaptive throttle's K (the `*throttle` policies). Default 2 (the core's). */
  readonly throttleK?: number;
  /**
   * The adaptive throttle's sliding window, in seconds. Default 10, scaled to the 15 s outage: the
   * core's default (120 s, the SRE book's two minutes) is made for overloads of minutes, and after a
   * whole healthy window it never refuses anything in an outage this short.
   */
  readonly throttleWindowSec?: number;
  /** Each message (request, response) takes `|Normal(meanMs, sdMs)|`. Default 10, 2. */
  readonly latency?: LatencyModel;
  /** Width of the timeline's bins. Default 250 ms. */
  readonly binMs?: number;
  /** A bin after the outage counts as overloaded when more than this share of its attempts fail. Default 0.01. */
  readonly recoveryThreshold?: number;
  /** Called after every run with (runs done, runs in all). */
  readonly onProgress?: (done: number, total: number) => void;
}

/** Defaults of {@link StormOptions}. */
export const STORM_DEFAULTS = Object.freeze({
  runs: 10,
  ratePerSec: 100,
  capacityPerSec: 120,
  serverBurstSec: 0.5,
  durationSec: 60,
  outageStartSec: 10,
  outageEndSec: 25,
  retryAfterSec: 5,
  overloadRetryAfterSec: 1,
  maxAttempts: 3,
  baseMs: 100,
  capMs: 20_000,
  throttleK: DEFAULT_THROTTLE.k,
  throttleWindowSec: 10,
  binMs: 250,
  recoveryThreshold: 0.01,
});

/**
 * Upper bounds of the inputs: a run keeps a few bytes and one core run per request, and a timeline
 * bin for every `binMs` up to the last attempt, so a typo (`--rate 1e9`, `--bin 1e-6`, `--cap 1e12`)
 * must be refused rather than run out of memory.
 */
export const STORM_LIMITS = Object.freeze({
  /** Requests per run: `ratePerSec × durationSec`. */
  requests: 1_000_000,
  /** Runs per policy. */
  runs: 10_000,
  /** Attempts per request (the core's own limit). */
  maxAttempts: 1000,
  /** Timeline bins: from 0 to the latest time an attempt could be sent, in steps of `binMs`. */
  timelineBins: 1_000_000,
  /** Requests a throttle is warmed up with: `ratePerSec × throttleWindowSec`. */
  throttleWarmUp: THROTTLE_WARM_UP_LIMIT,
});

/** Which setting breaks a {@link STORM_LIMITS} bound, and how. */
export interface StormLimitProblem {
  /** The settings at fault, e.g. `['ratePerSec', 'durationSec']`. */
  readonly options: readonly (keyof StormOptions)[];
  /** What was asked for, e.g. `6e10 requests per run`. */
  readonly asked: string;
  /** The bound, e.g. `at most 1000000`. */
  readonly limit: string;
}

/**
 * The first {@link STORM_LIMITS} bound the settings break, if any. The timeline's length is taken
 * from the latest an attempt could be sent: the end of the run plus, per retry, the longest wait
 * (the backoff's cap, or the core's default `retryAfter.maxMs`, which the storm policies keep) and
 * two messages each way (at mean + 10 sd).
 */
export const stormLimitProblem = (
  options: Pick<
    ResolvedStormOptions,
    'ratePerSec' | 'durationSec' | 'runs' | 'maxAttempts' | 'capMs' | 'binMs' | 'latency'
  > &
    Partial<Pick<ResolvedStormOptions, 'policies' | 'throttleWindowSec'>>,
): StormLimitProblem | undefined => {
  const requests = options.ratePerSec * options.durationSec;
  if (requests > STORM_LIMITS.requests) {
    return {
      options: ['ratePerSec', 'durationSec'],
      asked: `${requests} requests per run`,
      limit: `at most ${STORM_LIMITS.requests}`,
    };
  }
  if (options.runs > STORM_LIMITS.runs) {
    return { options: ['runs'], asked: `${options.runs} runs`, limit: `at most ${STORM_LIMITS.runs}` };
  }
  if (options.maxAttempts > STORM_LIMITS.maxAttempts) {
    return {
      options: ['maxAttempts'],
      asked: `${options.maxAttempts} attempts`,
      limit: `at most ${STORM_LIMITS.maxAttempts}`,
    };
  }
  const warmUp = options.ratePerSec * (options.throttleWindowSec ?? STORM_DEFAULTS.throttleWindowSec);
  if (
    (options.policies ?? DEFAULT_STORM_POLICIES).some(stormPolicyThrottles) &&
    !(warmUp <= THROTTLE_WARM_UP_LIMIT)
  ) {
    return {
      options: ['ratePerSec', 'throttleWindowSec'],
      asked: `a throttle warmed up with ${warmUp} requests (a whole window of them)`,
      limit: `at most ${THROTTLE_WARM_UP_LIMIT}`,
    };
  }
  const message = options.latency.meanMs + 10 * options.latency.sdMs;
  const perRetry = Math.max(options.capMs, DEFAULTS.retryAfter.maxMs) + 4 * message;
  const horizonMs = options.durationSec * 1000 + (options.maxAttempts - 1) * perRetry + 2 * message;
  const bins = horizonMs / options.binMs;
  if (!(bins <= STORM_LIMITS.timelineBins)) {
    return {
      options: ['binMs', 'capMs', 'durationSec'],
      asked: `a timeline of ${Math.ceil(bins)} bins (up to ${Math.ceil(horizonMs)} ms in steps of ${options.binMs} ms)`,
      limit: `at most ${STORM_LIMITS.timelineBins}`,
    };
  }
  return undefined;
};

type ResolvedStormOptions = Required<
  Omit<StormOptions, 'onProgress' | 'retryAfterSec' | 'overloadRetryAfterSec'>
> & {
  readonly retryAfterSec: number | undefined;
  readonly overloadRetryAfterSec: number | undefined;
};

/** Counts per timeline bin of one run. */
export interface StormTimeline {
  /** Each bin's width, in ms: bin `k` covers `[k·binMs, (k+1)·binMs)`. */
  readonly binMs: number;
  /** Attempts arriving at the server. */
  readonly attempts: number[];
  /** First attempts the adaptive throttle refused locally (never sent), by the time they were due. */
  readonly throttled: number[];
  /** Attempts the origin-wide pacer held, by the time they were due (once per attempt). */
  readonly held: number[];
  /** Requests the pacer refused before sending them (a wait too long, an unavailable origin), by the time they were due. */
  readonly paceRefused: number[];
  /** Requests waiting in the pacer's line at the end of each bin (a level, not a count per bin). */
  readonly waiting: number[];
  /** Of those, rejected with 503 (outage or load shedding). */
  readonly rejected: number[];
  /** Of those, served (200). */
  readonly served: number[];
  /** New requests started. */
  readonly started: number[];
}

/** What one run of one policy measured. */
export interface StormRunResult {
  /** The policy run. */
  readonly policy: StormPolicyName;
  /** Requests started. */
  readonly requests: number;
  /** Attempts that reached the server; always `requests − throttled − paceRefused + retries`. */
  readonly attempts: number;
  /** Retries the policy decided to make. */
  readonly retries: number;
  /** Requests whose first attempt the adaptive throttle refused locally (so never sent). */
  readonly throttled: number;
  /** Attempts the origin-wide pacer held (once per attempt, however often it asked again). */
  readonly held: number;
  /** Requests the pacer ended before an attempt was sent (a wait past `retryAfter.maxMs`, an unavailable origin). */
  readonly paceRefused: number;
  /** Time attempts spent held, in ms. */
  readonly heldMs: number;
  /** Requests that finally succeeded. */
  readonly succeeded: number;
  /** Requests that finally failed. */
  readonly failed: number;
  /** Requests started during the outage. */
  readonly outageRequests: number;
  /** Attempts that arrived during the outage. */
  readonly outageAttempts: number;
  /**
   * Time from the outage's end to the end of the last bin in which more than the recovery threshold
   * of the attempts wanted (sent, refused locally by the throttle or the pacer, or held by the
   * pacer) were shed, refused or held; `null` if that was still so when requests stopped.
   */
  readonly recoveryMs: number | null;
  /** When the last request finished, in ms. */
  readonly endMs: number;
  /**
   * Latency of the requests that succeeded (start to final answer, waits and holds included), in
   * ms: its median and 99th percentile (nearest rank); `NaN` when none succeeded.
   */
  readonly latencyP50Ms: number;
  /** See `latencyP50Ms`: the 99th percentile. */
  readonly latencyP99Ms: number;
  /** Why requests stopped, as the core reports it (`success`, `max-attempts`, `budget-exhausted`, …). */
  readonly stopReasons: Readonly<Record<string, number>>;
  /** The run, bin by bin. */
  readonly timeline: StormTimeline;
}

const resolve = (options: StormOptions): ResolvedStormOptions => {
  const d = STORM_DEFAULTS;
  const o: ResolvedStormOptions = {
    seed: options.seed,
    runs: options.runs ?? d.runs,
    policies: options.policies ?? DEFAULT_STORM_POLICIES,
    ratePerSec: options.ratePerSec ?? d.ratePerSec,
    capacityPerSec: options.capacityPerSec ?? d.capacityPerSec,
    serverBurstSec: options.serverBurstSec ?? d.serverBurstSec,
    durationSec: options.durationSec ?? d.durationSec,
    outageStartSec: options.outageStartSec ?? d.outageStartSec,
    outageEndSec: options.outageEndSec ?? d.outageEndSec,
    retryAfterSec: 'retryAfterSec' in options ? options.retryAfterSec : d.retryAfterSec,
    overloadRetryAfterSec:
      'overloadRetryAfterSec' in options ? options.overloadRetryAfterSec : d.overloadRetryAfterSec,
    maxAttempts: options.maxAttempts ?? d.maxAttempts,
    baseMs: options.baseMs ?? d.baseMs,
    capMs: options.capMs ?? d.capMs,
    throttleK: options.throttleK ?? d.throttleK,
    throttleWindowSec: options.throttleWindowSec ?? d.throttleWindowSec,
    latency: options.latency ?? DEFAULT_LATENCY,
    binMs: options.binMs ?? d.binMs,
    recoveryThreshold: options.recoveryThreshold ?? d.recoveryThreshold,
  };
  const positive = (name: string, v: number): void => {
    if (!(Number.isFinite(v) && v > 0)) throw new RangeError(`${name} must be a positive number, got ${v}`);
  };
  positive('ratePerSec', o.ratePerSec);
  positive('capacityPerSec', o.capacityPerSec);
  positive('serverBurstSec', o.serverBurstSec);
  positive('durationSec', o.durationSec);
  positive('binMs', o.binMs);
  // The core's throttle takes a window of at least 1 ms.
  if (!(Number.isFinite(o.throttleWindowSec) && o.throttleWindowSec >= 0.001))
    throw new RangeError(`throttleWindowSec must be a number >= 0.001, got ${o.throttleWindowSec}`);
  if (!(Number.isFinite(o.throttleK) && o.throttleK >= 1))
    throw new RangeError(`throttleK must be a number >= 1, got ${o.throttleK}`);
  if (!Number.isInteger(o.runs) || o.runs < 1)
    throw new RangeError(`runs must be a positive integer, got ${o.runs}`);
  if (!Number.isInteger(o.maxAttempts) || o.maxAttempts < 1) {
    throw new RangeError(`maxAttempts must be a positive integer, got ${o.maxAttempts}`);
  }
  if (!(o.outageStartSec >= 0 && o.outageEndSec >= o.outageStartSec && o.outageEndSec <= o.durationSec)) {
    throw new RangeError(
      `the outage must lie within the run: 0 <= start <= end <= duration, got ${o.outageStartSec}..${o.outageEndSec} of ${o.durationSec}`,
    );
  }
  for (const p of o.policies) if (!isStormPolicy(p)) throw new RangeError(`unknown policy "${p}"`);
  const problem = stormLimitProblem(o);
  if (problem) throw new RangeError(`${problem.options.join(' / ')}: ${problem.asked}, ${problem.limit}`);
  return o;
};

/** What {@link createStormPolicy} reads of the storm's settings. */
export interface StormPolicySettings {
  /** The policies' `maxAttempts`. */
  readonly maxAttempts: number;
  /** Their backoff's `baseMs`. */
  readonly baseMs: number;
  /** Their backoff's `capMs`. */
  readonly capMs: number;
  /** For the `*throttle` policies: this throttle, or else a new one with these settings (default the core's). */
  readonly throttle?: AdaptiveThrottle;
  /** The new throttle's `k`. */
  readonly throttleK?: number;
  /** The new throttle's window, in seconds. */
  readonly throttleWindowSec?: number;
}

/**
 * The core policy for a named storm policy. `now` is the virtual clock and `random` the run's seeded
 * source, so every decision is reproducible.
 *
 * The origin-wide pacer (off by default in the core) is off (`pacer: false`) in every policy but the
 * `*pacer` ones, which have one of their own (`pacer: createPacer()`): the others measure each
 * request's own waits, the budget and the throttle, without a hold shared by all requests.
 */
export const createStormPolicy = (
  name: StormPolicyName,
  settings: StormPolicySettings,
  random: RandomSource,
  now: () => number,
): RetryPolicy => {
  const common: RetryOptions = { random, now, pacer: false, maxAttempts: settings.maxAttempts };
  const backoff = (strategy: BackoffStrategyName) => ({
    strategy,
    baseMs: settings.baseMs,
    capMs: settings.capMs,
  });
  const throttle = () =>
    settings.throttle ??
    createAdaptiveThrottle({
      k: settings.throttleK ?? DEFAULT_THROTTLE.k,
      windowMs: (settings.throttleWindowSec ?? DEFAULT_THROTTLE.windowMs / 1000) * 1000,
    });
  switch (name) {
    case 'none':
      return createRetryPolicy({ ...common, maxAttempts: 1, budget: false, retryAfter: false });
    case 'budget':
      return createRetryPolicy({
        ...common,
        backoff: backoff('full'),
        budget: createRetryBudget(),
        retryAfter: false,
      });
    case 'retry-after':
      return createRetryPolicy({ ...common, backoff: backoff('full'), budget: false });
    case 'budget+retry-after':
      return createRetryPolicy({ ...common, backoff: backoff('full'), budget: createRetryBudget() });
    case 'throttle':
      return createRetryPolicy({
        ...common,
        backoff: backoff('full'),
        budget: false,
        retryAfter: false,
        throttle: throttle(),
      });
    case 'budget+throttle':
      return createRetryPolicy({
        ...common,
        backoff: backoff('full'),
        budget: createRetryBudget(),
        retryAfter: false,
        throttle: throttle(),
      });
    case 'budget+retry-after+throttle':
      return createRetryPolicy({
        ...common,
        backoff: backoff('full'),
        budget: createRetryBudget(),
        throttle: throttle(),
      });
    case 'retry-after+pacer':
      return createRetryPolicy({
        ...common,
        backoff: backoff('full'),
        budget: false,
        pacer: createPacer(),
      });
    case 'budget+retry-after+pacer':
      return createRetryPolicy({
        ...common,
        backoff: backoff('full'),
        budget: createRetryBudget(),
        pacer: createPacer(),
      });
    default: {
      const strategy = name.slice('naive-'.length) as BackoffStrategyName;
      return createRetryPolicy({ ...common, backoff: backoff(strategy), budget: false, retryAfter: false });
    }
  }
};

const START = 0;
const ARRIVE = 1;
const RESPOND = 2;
/** An attempt about to be sent, after a retry's wait or a wait in the pacer's line. */
const READY = 3;
const NO_HEADERS: HeaderGetter = () => undefined;
const retryAfterHeaders = (seconds: number | undefined): HeaderGetter => {
  if (seconds === undefined) return NO_HEADERS;
  const value = String(seconds);
  return (name) => (name.toLowerCase() === 'retry-after' ? value : undefined);
};
const REQUEST = Object.freeze({ method: 'GET', url: 'http://server.invalid/item' });
const SERVED = Object.freeze({ status: 200 });

/** Poisson arrivals in `[0, durationMs)` at `ratePerSec` (the storm's, and the pacing experiment's). */
export const arrivals = (random: RandomSource, ratePerSec: number, durationMs: number): Float64Array => {
  const meanGap = 1000 / ratePerSec;
  const times: number[] = [];
  for (let t = -Math.log(1 - random()) * meanGap; t < durationMs; t += -Math.log(1 - random()) * meanGap) {
    times.push(t);
  }
  return Float64Array.from(times);
};

const bump = (bins: number[], bin: number): void => {
  // stormLimitProblem bounds the timeline from the settings; pacer holds chained one after the
  // other could in principle run past that, so the bins themselves are bounded too.
  if (bin >= STORM_LIMITS.timelineBins)
    throw new RangeError(`storm: the run went past ${STORM_LIMITS.timelineBins} timeline bins`);
  while (bins.length <= bin) bins.push(0);
  bins[bin]!++;
};

/**
 * Simulates one run of one policy. The arrivals depend only on `seed`, so every policy faces the
 * same requests.
 */
export const simulateStorm = (policyName: StormPolicyName, options: StormOptions): StormRunResult => {
  const o = resolve(options);
  const durationMs = o.durationSec * 1000;
  const outageStart = o.outageStartSec * 1000;
  const outageEnd = o.outageEndSec * 1000;
  const starts = arrivals(seededRandom(deriveSeed(o.seed, 'arrivals')), o.ratePerSec, durationMs);
  const delay = createLatency(seededRandom(deriveSeed(o.seed, 'network')), o.latency);
  let clock = 0;
  const throttle = stormPolicyThrottles(policyName)
    ? createWarmThrottle(o.throttleK, o.throttleWindowSec * 1000, o.ratePerSec)
    : undefined;
  const jitter = seededRandom(deriveSeed(o.seed, 'jitter'));
  const policy = createStormPolicy(policyName, throttle ? { ...o, throttle } : o, jitter, () => clock);
  const pacer = policy.options.feature.pacer;
  const outageHeaders = retryAfterHeaders(o.retryAfterSec);
  const overloadHeaders = retryAfterHeaders(o.overloadRetryAfterSec);

  const n = starts.length;
  const heap = new EventHeap(Math.max(1, n));
  const kind = new Uint8Array(n);
  // 0: served; 1: rejected by the outage; 2: rejected by load shedding.
  const outcome = new Uint8Array(n);
  const runs: (RetryRun | undefined)[] = new Array(n);
  // Which requests wait in a hold now, how many, and that level over time.
  const waitingNow = new Uint8Array(pacer ? n : 0);
  let waiting = 0;
  const setWaiting = (bin: number, level: number): void => {
    const series = timeline.waiting;
    if (bin >= STORM_LIMITS.timelineBins)
      throw new RangeError(`storm: the run went past ${STORM_LIMITS.timelineBins} timeline bins`);
    // Events come in time order; bins without one keep the level before them.
    while (series.length < bin) series.push(waiting);
    series[bin] = level;
    waiting = level;
  };
  const latencies = new Float64Array(n);
  for (let i = 0; i < n; i++) heap.push(i, starts[i]!);

  const ratePerMs = o.capacityPerSec / 1000;
  const depth = o.capacityPerSec * o.serverBurstSec;
  let tokens = depth;
  let refilledAt = 0;
  const timeline: StormTimeline = {
    binMs: o.binMs,
    attempts: [],
    throttled: [],
    held: [],
    paceRefused: [],
    waiting: [],
    rejected: [],
    served: [],
    started: [],
  };
  let attempts = 0;
  let retries = 0;
  let throttled = 0;
  let held = 0;
  let heldMs = 0;
  let paceRefused = 0;
  let succeeded = 0;
  let failed = 0;
  let outageRequests = 0;
  let outageAttempts = 0;
  let endMs = 0;
  const stopReasons: Record<string, number> = {};

  // The network delay of a retry is drawn when it is decided, as when the storm drove the run by
  // hand: the same draws in the same order, so seeded runs give the same numbers (NaN: none drawn).
  const drawn = new Float64Array(pacer ? 0 : n).fill(Number.NaN);
  const outageResult = { status: 503, headers: outageHeaders };
  const overloadResult = { status: 503, headers: overloadHeaders };

  while (heap.size > 0) {
    const id = heap.peek();
    const t = heap.peekTime();
    clock = t;
    const k = kind[id];
    if (k === ARRIVE) {
      attempts++;
      const bin = Math.floor(t / o.binMs);
      bump(timeline.attempts, bin);
      tokens = Math.min(depth, tokens + (t - refilledAt) * ratePerMs);
      refilledAt = t;
      if (t >= outageStart && t < outageEnd) {
        outageAttempts++;
        outcome[id] = 1;
        bump(timeline.rejected, bin);
      } else if (tokens >= 1) {
        tokens -= 1;
        outcome[id] = 0;
        bump(timeline.served, bin);
      } else {
        outcome[id] = 2;
        bump(timeline.rejected, bin);
      }
      kind[id] = RESPOND;
      heap.replaceTop(t + delay());
      continue;
    }
    // The request's attempt sequence is told what happened, and says what comes next.
    const bin = Math.floor(t / o.binMs);
    let run: RetryRun;
    let step: Step;
    if (k === RESPOND) {
      run = runs[id]!;
      const result = outcome[id]!;
      step = run.answered(1, result === 0 ? 200 : 503);
      if (step === 'result')
        step = run.done(result === 0 ? SERVED : result === 1 ? outageResult : overloadResult);
    } else {
      if (k === START) {
        runs[id] = policy.begin(REQUEST);
        bump(timeline.started, bin);
        if (t >= outageStart && t < outageEnd) outageRequests++;
        step = runs[id]!.start(undefined, false);
      } else {
        step = runs[id]!.done();
      }
      run = runs[id]!;
      // Before an attempt the features take its turn (the pacer's line): a request in line waits
      // and asks again, perhaps several times, counted once.
      const holding = step === 'hold';
      if (pacer && holding !== (waitingNow[id] === 1)) {
        waitingNow[id] = holding ? 1 : 0;
        setWaiting(bin, waiting + (holding ? 1 : -1));
        if (holding) {
          held++;
          bump(timeline.held, bin);
        }
      }
    }
    if (step === 'discard') {
      // A retry: nothing to drain here, and its wait (with a pacer, the line asked after it).
      retries++;
      step = run.done();
      if (!pacer) drawn[id] = delay();
    }
    switch (step) {
      case 'hold':
        heldMs += run.delayMs;
        kind[id] = READY;
        heap.replaceTop(t + run.delayMs);
        break;
      case 'wait':
        kind[id] = READY;
        heap.replaceTop(t + run.delayMs);
        break;
      case 'send': {
        const latency = pacer || Number.isNaN(drawn[id]!) ? delay() : drawn[id]!;
        if (!pacer) drawn[id] = Number.NaN;
        kind[id] = ARRIVE;
        heap.replaceTop(t + latency);
        break;
      }
      case 'deliver': {
        heap.pop();
        runs[id] = undefined;
        if (outcome[id] === 0) latencies[succeeded++] = t - starts[id]!;
        else failed++;
        const reason = run.summary!.reason;
        stopReasons[reason] = (stopReasons[reason] ?? 0) + 1;
        endMs = t;
        break;
      }
      case 'fail': {
        // A feature refused the attempt: nothing was sent.
        const reason = run.summary!.reason;
        if (reason === 'throttled') {
          throttled++;
          bump(timeline.throttled, bin);
        } else {
          paceRefused++;
          bump(timeline.paceRefused, bin);
        }
        failed++;
        stopReasons[reason] = (stopReasons[reason] ?? 0) + 1;
        endMs = Math.max(endMs, t);
        runs[id] = undefined;
        heap.pop();
        break;
      }
      default:
        // The storm's policies have no hooks: nothing is ever awaited.
        throw new Error(`storm: the attempt sequence asked for '${step}'`);
    }
  }

  // Recovery: the last bin at or after the outage's end in which more than the threshold share of
  // the attempts the clients wanted to make failed, shed by the server, refused by the throttle or
  // the pacer, or waited in the pacer's line. Without either that is the server's shedding alone;
  // with one, a client still refusing or holding locally after the server is well again has not
  // recovered either.
  const bins = Math.max(
    timeline.attempts.length,
    timeline.throttled.length,
    timeline.held.length,
    timeline.paceRefused.length,
    timeline.waiting.length,
    timeline.started.length,
  );
  for (const series of [
    timeline.attempts,
    timeline.throttled,
    timeline.held,
    timeline.paceRefused,
    timeline.waiting,
    timeline.rejected,
    timeline.served,
    timeline.started,
  ])
    while (series.length < bins) series.push(0);
  let lastOverloaded = -1;
  for (let b = Math.ceil(outageEnd / o.binMs); b < bins; b++) {
    const local = timeline.throttled[b]! + timeline.held[b]! + timeline.paceRefused[b]!;
    const wanted = timeline.attempts[b]! + local;
    // Requests still in the pacer's line at the bin's end count too, however long ago they joined it.
    const refused = timeline.rejected[b]! + local + timeline.waiting[b]!;
    if (wanted > 0 && refused > o.recoveryThreshold * wanted) lastOverloaded = b;
  }
  const overloadEnd = (lastOverloaded + 1) * o.binMs;
  const served = latencies.subarray(0, succeeded).sort();
  const recoveryMs = lastOverloaded < 0 ? 0 : overloadEnd >= durationMs ? null : overloadEnd - outageEnd;

  return {
    policy: policyName,
    requests: n,
    attempts,
    retries,
    throttled,
    held,
    heldMs,
    paceRefused,
    succeeded,
    failed,
    outageRequests,
    outageAttempts,
    recoveryMs,
    endMs,
    latencyP50Ms: percentileOfSorted(served, 50),
    latencyP99Ms: percentileOfSorted(served, 99),
    stopReasons,
    timeline,
  };
};

/** One policy's results over all runs. */
export interface StormPolicyResult {
  /** The policy. */
  readonly policy: StormPolicyName;
  /** What it is, in a few words. */
  readonly description: string;
  /** Runs made. */
  readonly runs: number;
  /** Requests, over all runs. */
  readonly requests: number;
  /** Attempts that reached the server, over all runs. */
  readonly attempts: number;
  /** Retries decided, over all runs. */
  readonly retries: number;
  /** Requests that finally failed, over all runs. */
  readonly failed: number;
  /** Requests whose first attempt the throttle refused locally. */
  readonly throttled: number;
  /** Holds of an attempt by the origin-wide pacer. */
  readonly held: number;
  /** Requests the pacer ended before an attempt was sent. */
  readonly paceRefused: number;
  /** Mean time an attempt spent in a hold, in ms (0 without holds). */
  readonly meanHoldMs: number;
  /** Attempts ÷ requests over the whole run. */
  readonly amplification: Summary;
  /** Attempts arriving during the outage ÷ requests started during it. */
  readonly outageAmplification: Summary;
  /** Requests that finally succeeded, per second of the run. */
  readonly goodputPerSec: Summary;
  /** Each run's median and 99th percentile latency of the requests that succeeded, in ms. */
  readonly latencyP50Ms: Summary;
  /** See `latencyP50Ms`: the 99th percentile. */
  readonly latencyP99Ms: Summary;
  /** Requests that finally failed ÷ requests. */
  readonly failedShare: Summary;
  /** Requests refused locally by the throttle (first attempt never sent) ÷ requests. */
  readonly throttledShare: Summary;
  /** Holds by the origin-wide pacer ÷ requests. */
  readonly heldPerRequest: Summary;
  /** Over the runs that recovered before requests stopped. */
  readonly recoveryMs: Summary;
  /** Runs that were still overloaded when requests stopped. */
  readonly notRecovered: number;
  /** Highest attempts per second in any bin of the mean timeline. */
  readonly peakAttemptsPerSec: number;
  /** Stop reasons summed over runs. */
  readonly stopReasons: Readonly<Record<string, number>>;
  /** Mean over runs, per bin, in per-second rates. Bin `k` covers `[k·binMs, (k+1)·binMs)`. */
  readonly timeline: {
    /** Each bin's width, in ms. */
    readonly binMs: number;
    /** Attempts arriving at the server, per second. */
    readonly attemptsPerSec: readonly number[];
    /** First attempts refused locally by the throttle, per second. */
    readonly throttledPerSec: readonly number[];
    /** Attempts held by the origin-wide pacer, per second (when they were due). */
    readonly heldPerSec: readonly number[];
    /** Requests waiting in a hold at the end of each bin (a level). */
    readonly waiting: readonly number[];
    /** Attempts rejected with 503, per second. */
    readonly rejectedPerSec: readonly number[];
    /** Attempts served (200), per second. */
    readonly servedPerSec: readonly number[];
    /** New requests started, per second. */
    readonly startedPerSec: readonly number[];
  };
}

/** The result of {@link runStorm}. */
export interface StormResult {
  /** The base seed. */
  readonly seed: number;
  /** The settings the runs used, every default filled in. */
  readonly settings: Omit<ResolvedStormOptions, 'seed' | 'policies'>;
  /** One result per policy, in the order asked. */
  readonly policies: readonly StormPolicyResult[];
}

const meanSeries = (
  runs: readonly StormRunResult[],
  pick: (t: StormTimeline) => number[],
  binMs: number,
): number[] => {
  const length = Math.max(...runs.map((r) => pick(r.timeline).length));
  const out = new Array<number>(length).fill(0);
  const scale = 1000 / binMs / runs.length;
  for (const r of runs) {
    const series = pick(r.timeline);
    for (let b = 0; b < series.length; b++) out[b]! += series[b]! * scale;
  }
  return out;
};

/**
 * Runs the storm experiment: every policy, `runs` times, each run with the same arrivals for every
 * policy.
 *
 * @example
 * ```ts
 * const { policies } = runStorm({ seed: 1, runs: 3 });
 * for (const p of policies) console.log(p.policy, p.amplification.mean);
 * ```
 */
export const runStorm = (options: StormOptions): StormResult => {
  const o = resolve(options);
  const total = o.runs * o.policies.length;
  let done = 0;
  const results: StormPolicyResult[] = [];
  for (const policy of o.policies) {
    const runs: StormRunResult[] = [];
    for (let r = 0; r < o.runs; r++) {
      runs.push(simulateStorm(policy, { ...o, seed: deriveSeed(o.seed, r) }));
      options.onProgress?.(++done, total);
    }
    const stopReasons: Record<string, number> = {};
    for (const run of runs) {
      for (const [reason, count] of Object.entries(run.stopReasons))
        stopReasons[reason] = (stopReasons[reason] ?? 0) + count;
    }
    const attemptsPerSec = meanSeries(runs, (t) => t.attempts, o.binMs);
    const sum = (pick: (r: StormRunResult) => number): number => runs.reduce((s, r) => s + pick(r), 0);
    const recovered = runs.filter((r) => r.recoveryMs !== null).map((r) => r.recoveryMs as number);
    results.push({
      policy,
      description: STORM_POLICY_DESCRIPTIONS[policy].replace('N attempts', `${o.maxAttempts} attempts`),
      runs: o.runs,
      requests: sum((r) => r.requests),
      attempts: sum((r) => r.attempts),
      retries: sum((r) => r.retries),
      failed: sum((r) => r.failed),
      throttled: sum((r) => r.throttled),
      held: sum((r) => r.held),
      paceRefused: sum((r) => r.paceRefused),
      meanHoldMs: sum((r) => r.held) > 0 ? sum((r) => r.heldMs) / sum((r) => r.held) : 0,
      amplification: summarize(runs.map((r) => r.attempts / r.requests)),
      outageAmplification: summarize(
        runs.map((r) => (r.outageRequests ? r.outageAttempts / r.outageRequests : 0)),
      ),
      goodputPerSec: summarize(runs.map((r) => r.succeeded / o.durationSec)),
      latencyP50Ms: summarize(runs.map((r) => r.latencyP50Ms)),
      latencyP99Ms: summarize(runs.map((r) => r.latencyP99Ms)),
      failedShare: summarize(runs.map((r) => r.failed / r.requests)),
      throttledShare: summarize(runs.map((r) => r.throttled / r.requests)),
      heldPerRequest: summarize(runs.map((r) => r.held / r.requests)),
      recoveryMs: summarize(recovered),
      notRecovered: runs.length - recovered.length,
      peakAttemptsPerSec: Math.max(0, ...attemptsPerSec),
      stopReasons,
      timeline: {
        binMs: o.binMs,
        attemptsPerSec,
        throttledPerSec: meanSeries(runs, (t) => t.throttled, o.binMs),
        heldPerSec: meanSeries(runs, (t) => t.held, o.binMs),
        // A level, not a rate: the mean over runs, without the per-second scale.
        waiting: meanSeries(runs, (t) => t.waiting, 1000),
        rejectedPerSec: meanSeries(runs, (t) => t.rejected, o.binMs),
        servedPerSec: meanSeries(runs, (t) => t.served, o.binMs),
        startedPerSec: meanSeries(runs, (t) => t.started, o.binMs),
      },
    });
  }
  const { seed, policies: _policies, ...settings } = o;
  return { seed, settings, policies: results };
};
