/**
 * The optimistic-concurrency-control contention experiment from Marc Brooker's "Exponential Backoff
 * And Jitter": N clients each update one row once, with read-then-conditional-write, over a network
 * whose every message takes `|Normal(10, 2)|` ms. A discrete-event model in virtual time.
 *
 * The backoff comes from `@jitterbug/core` (`nextDelay` over `constant`, `exponential`, `full`,
 * `equal`, `decorrelated`): the same functions the HTTP adapters call.
 */
import {
  type Backoff,
  type BackoffParams,
  type BackoffStrategyName,
  backoffStrategies,
  constant,
  nextDelay,
  seededRandom,
} from '@jitterbug/core';
import { EventHeap } from './heap.ts';
import { createLatency, DEFAULT_LATENCY, type LatencyModel } from './normal.ts';
import { deriveSeed } from './seeds.ts';
import { histogram, type Summary, summarize } from './stats.ts';

/** `none` (retry at once, the blog's "no backoff") or one of the core's strategies. */
export type OccStrategyName = 'none' | BackoffStrategyName;

/** Every strategy the experiment knows, in chart order. */
export const OCC_STRATEGIES: readonly OccStrategyName[] = Object.freeze([
  'none',
  'constant',
  'exponential',
  'full',
  'equal',
  'decorrelated',
]);

/** The strategies of a default sweep (the blog's five lines). */
export const DEFAULT_OCC_STRATEGIES: readonly OccStrategyName[] = Object.freeze([
  'none',
  'exponential',
  'full',
  'equal',
  'decorrelated',
]);

/** Defaults of the experiment. */
export const OCC_DEFAULTS = Object.freeze({
  baseMs: 5,
  capMs: 2000,
  runs: 100,
  clients: Object.freeze(Array.from({ length: 19 }, (_, i) => 10 * (i + 1))) as readonly number[],
  histogramClients: 100,
  histogramBinMs: 10,
});

/** Whether a string names an OCC strategy. */
export const isOccStrategy = (name: string): name is OccStrategyName =>
  (OCC_STRATEGIES as readonly string[]).includes(name);

const strategyBackoff = (
  strategy: OccStrategyName,
  baseMs: number,
  capMs: number,
): { backoff: Backoff; params: BackoffParams } =>
  strategy === 'none'
    ? // "No backoff": the core's constant strategy with a base of 0, i.e. no sleep at all.
      { backoff: constant, params: { baseMs: 0, capMs } }
    : { backoff: backoffStrategies[strategy], params: { baseMs, capMs } };

/** One run of the experiment. */
export interface OccRunOptions {
  readonly clients: number;
  readonly strategy: OccStrategyName;
  /** Default 5 ms. */
  readonly baseMs?: number;
  /** Default 2000 ms. */
  readonly capMs?: number;
  /** Default `|Normal(10, 2)|` ms per message. */
  readonly latency?: LatencyModel;
  /** The run's seed: the network and the jitter get separate streams derived from it. */
  readonly seed: number;
  /** Keep the time of every write the server receives (for the clustering histogram). */
  readonly recordWrites?: boolean;
}

/** What one run measured. */
export interface OccRunResult {
  /** Writes received by the server, successful and failed. */
  readonly calls: number;
  /** Virtual time at which the last client learned of its successful write, in ms. */
  readonly timeMs: number;
  /** The row's version at the end: one increment per successful write. */
  readonly finalVersion: number;
  /** Successful writes per client (each must be exactly 1). */
  readonly successes: Uint32Array;
  /** Writes per client. */
  readonly writes: Uint32Array;
  /** Arrival times of all writes at the server, in order, when `recordWrites` was set. */
  readonly writeTimesMs?: Float64Array;
}

const checkPositiveInteger = (name: string, value: number): void => {
  if (!Number.isInteger(value) || value < 1)
    throw new RangeError(`${name} must be a positive integer, got ${value}`);
};

/**
 * Simulates one run: every client reads, writes, and on a failed write sleeps `backoff(attempt)`
 * (attempt 1 for the first retry) and starts again with a read.
 *
 * The event loop only schedules write arrivals. A write succeeds iff the version it carries is still
 * current, i.e. iff no other write succeeded between its read's arrival and its own arrival; since
 * events are handled in time order, every success before the write has been seen, so the check is
 * `lastSuccessAt < readAt`. That is exactly the read/version model with half the events. Each client
 * has one pending write, so the heap holds at most N entries; a client's own steps (receiving the
 * version and sending the write; learning of a failure, sleeping and sending a new read) are folded
 * into the times `readAt` and `writeAt`.
 */
export const simulateOcc = (options: OccRunOptions): OccRunResult => {
  const { clients, strategy, seed, recordWrites = false } = options;
  checkPositiveInteger('clients', clients);
  const baseMs = options.baseMs ?? OCC_DEFAULTS.baseMs;
  const capMs = options.capMs ?? OCC_DEFAULTS.capMs;
  const { backoff, params } = strategyBackoff(strategy, baseMs, capMs);
  const delay = createLatency(seededRandom(deriveSeed(seed, 'network')), options.latency ?? DEFAULT_LATENCY);
  const jitter = seededRandom(deriveSeed(seed, 'jitter'));

  const heap = new EventHeap(clients);
  const readAt = new Float64Array(clients);
  const attempt = new Uint32Array(clients);
  const prevMs = new Float64Array(clients).fill(Number.NaN);
  const successes = new Uint32Array(clients);
  const writes = new Uint32Array(clients);
  let writeTimes = recordWrites ? new Float64Array(clients * 4) : undefined;

  // Time 0: every client sends its read; the server answers; the client sends its write.
  for (let c = 0; c < clients; c++) {
    const read = delay();
    readAt[c] = read;
    heap.push(c, read + delay() + delay());
  }

  let version = 0;
  let lastSuccessAt = Number.NEGATIVE_INFINITY;
  let calls = 0;
  let timeMs = 0;
  while (heap.size > 0) {
    const c = heap.peek();
    const t = heap.peekTime();
    if (writeTimes) {
      if (calls === writeTimes.length) {
        const grown = new Float64Array(calls * 2);
        grown.set(writeTimes);
        writeTimes = grown;
      }
      writeTimes[calls] = t;
    }
    calls++;
    writes[c]!++;
    const learnedAt = t + delay();
    if (lastSuccessAt < readAt[c]!) {
      // The version read is still current: the write succeeds and the version increments.
      version++;
      lastSuccessAt = t;
      successes[c]!++;
      if (learnedAt > timeMs) timeMs = learnedAt;
      heap.pop();
      continue;
    }
    // Failed: the client learns it, increments its attempt counter, sleeps, and sends a new read.
    const a = ++attempt[c]!;
    const prev = prevMs[c]!;
    const step = nextDelay(
      backoff,
      { attempt: a, prevMs: Number.isNaN(prev) ? undefined : prev },
      params,
      jitter,
    );
    const sleepMs = step[0];
    prevMs[c] = step[1].prevMs ?? sleepMs;
    const read = learnedAt + sleepMs + delay();
    readAt[c] = read;
    heap.replaceTop(read + delay() + delay());
  }

  return {
    calls,
    timeMs,
    finalVersion: version,
    successes,
    writes,
    ...(writeTimes ? { writeTimesMs: writeTimes.subarray(0, calls) } : {}),
  };
};

/** A sweep: every strategy at every client count, `runs` times each. */
export interface OccSweepOptions {
  /** Client counts. Default 10, 20, …, 190. */
  readonly clients?: readonly number[];
  /** Default {@link DEFAULT_OCC_STRATEGIES}. */
  readonly strategies?: readonly OccStrategyName[];
  /** Runs per point. Default 100. */
  readonly runs?: number;
  readonly baseMs?: number;
  readonly capMs?: number;
  readonly latency?: LatencyModel;
  /** Base seed; run `r` at `n` clients uses `deriveSeed(seed, n, r)` for every strategy. */
  readonly seed: number;
  /** Client count of the write-time histograms (one run per strategy). Default 100; 0 for none. */
  readonly histogramClients?: number;
  /** Histogram bin width. Default 10 ms. */
  readonly histogramBinMs?: number;
  /** Called after every run with (runs done, runs in all). */
  readonly onProgress?: (done: number, total: number) => void;
}

/** One point of the sweep: means and spreads over the runs. */
export interface OccPoint {
  readonly strategy: OccStrategyName;
  readonly clients: number;
  readonly runs: number;
  /** Writes received by the server per run. */
  readonly calls: Summary;
  /** Time until the last client knows it succeeded, per run, in ms. */
  readonly timeMs: Summary;
  /** `calls.mean / clients`: writes per client. */
  readonly callsPerClient: number;
}

/** Writes arriving at the server over time in one run: the "clustering" picture. */
export interface OccHistogram {
  readonly strategy: OccStrategyName;
  readonly clients: number;
  readonly binMs: number;
  /** `counts[k]` writes arrived in `[k·binMs, (k+1)·binMs)`. */
  readonly counts: readonly number[];
  readonly calls: number;
  readonly timeMs: number;
}

/** The result of {@link runOcc}. */
export interface OccSweepResult {
  readonly seed: number;
  readonly runs: number;
  readonly baseMs: number;
  readonly capMs: number;
  readonly latency: LatencyModel;
  readonly strategies: readonly OccStrategyName[];
  readonly clients: readonly number[];
  readonly points: readonly OccPoint[];
  readonly histograms: readonly OccHistogram[];
}

/**
 * Runs the contention experiment over every strategy and client count.
 *
 * Runs are independent and seeded by (base seed, client count, run index), so the same seed gives
 * the same numbers whatever else the sweep contains; every strategy sees the same seeds.
 *
 * @example
 * ```ts
 * const { points } = runOcc({ seed: 1, clients: [50, 100], runs: 20 });
 * ```
 */
export const runOcc = (options: OccSweepOptions): OccSweepResult => {
  const clients = options.clients ?? OCC_DEFAULTS.clients;
  const strategies = options.strategies ?? DEFAULT_OCC_STRATEGIES;
  const runs = options.runs ?? OCC_DEFAULTS.runs;
  const baseMs = options.baseMs ?? OCC_DEFAULTS.baseMs;
  const capMs = options.capMs ?? OCC_DEFAULTS.capMs;
  const latency = options.latency ?? DEFAULT_LATENCY;
  const histogramClients = options.histogramClients ?? OCC_DEFAULTS.histogramClients;
  const histogramBinMs = options.histogramBinMs ?? OCC_DEFAULTS.histogramBinMs;
  const { seed, onProgress } = options;
  checkPositiveInteger('runs', runs);
  for (const n of clients) checkPositiveInteger('clients', n);
  for (const s of strategies) if (!isOccStrategy(s)) throw new RangeError(`unknown strategy "${s}"`);

  const total = strategies.length * clients.length * runs;
  let done = 0;
  const points: OccPoint[] = [];
  const calls = new Float64Array(runs);
  const times = new Float64Array(runs);
  for (const strategy of strategies) {
    for (const n of clients) {
      for (let r = 0; r < runs; r++) {
        const result = simulateOcc({
          clients: n,
          strategy,
          baseMs,
          capMs,
          latency,
          seed: deriveSeed(seed, n, r),
        });
        calls[r] = result.calls;
        times[r] = result.timeMs;
        onProgress?.(++done, total);
      }
      const callSummary = summarize(calls);
      points.push({
        strategy,
        clients: n,
        runs,
        calls: callSummary,
        timeMs: summarize(times),
        callsPerClient: callSummary.mean / n,
      });
    }
  }

  const histograms: OccHistogram[] = [];
  if (histogramClients > 0) {
    for (const strategy of strategies) {
      // Run 0's seed: the histogram is one of the sweep's own runs when that client count is swept.
      const result = simulateOcc({
        clients: histogramClients,
        strategy,
        baseMs,
        capMs,
        latency,
        seed: deriveSeed(seed, histogramClients, 0),
        recordWrites: true,
      });
      histograms.push({
        strategy,
        clients: histogramClients,
        binMs: histogramBinMs,
        counts: histogram(result.writeTimesMs!, histogramBinMs),
        calls: result.calls,
        timeMs: result.timeMs,
      });
    }
  }
  return { seed, runs, baseMs, capMs, latency, strategies, clients, points, histograms };
};
