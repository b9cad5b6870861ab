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
  constant,
  nextDelay,
  seededRandom,
} from '@jitterbug/core';
import { backoffStrategies } from '@jitterbug/core/adapter';
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

/**
 * Upper bounds of the inputs. A run keeps a few typed arrays per client and, for the histograms,
 * every write time, and the writes grow faster than the clients (about N^1.7 without backoff), so
 * a typo like 1e9 clients must be refused rather than run out of memory.
 */
export const OCC_LIMITS = Object.freeze({
  /** Clients per run (the blog went to 190). At 10 000, one run without backoff takes ~1 s. */
  clients: 10_000,
  /** Runs per point. */
  runs: 100_000,
  /** The histograms' bins: beyond this many, the bin widens (see {@link OccHistogram}). */
  histogramBins: 10_000,
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
  /** Clients that each must make one successful write. */
  readonly clients: number;
  /** How a client waits after a conflict. */
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

const checkCount = (name: string, value: number, max: number): void => {
  if (!Number.isInteger(value) || value < 1 || value > max)
    throw new RangeError(`${name} must be an integer from 1 to ${max}, got ${value}`);
};

/** Whether every sleep of `strategy` is 0 ms (`none`, or a base or cap of 0). */
export const occNeverSleeps = (strategy: OccStrategyName, baseMs: number, capMs: number): boolean =>
  strategy === 'none' || baseMs === 0 || capMs === 0;

/** Whether every message is delivered at once (`|Normal(0, 0)|`). */
export const isInstant = (latency: LatencyModel): boolean => latency.meanMs === 0 && latency.sdMs === 0;

const checkSettings = (
  strategy: OccStrategyName,
  baseMs: number,
  capMs: number,
  latency: LatencyModel,
): void => {
  const nonNegative = (name: string, v: number): void => {
    if (!(Number.isFinite(v) && v >= 0))
      throw new RangeError(`${name} must be a finite number >= 0, got ${v}`);
  };
  nonNegative('baseMs', baseMs);
  nonNegative('capMs', capMs);
  nonNegative('latency.meanMs', latency.meanMs);
  nonNegative('latency.sdMs', latency.sdMs);
  // A write loses when a success happened at or after its read. With no network delay and no sleep,
  // every loser reads again at the very instant of that success and loses again, forever: the run
  // could never end, so refuse it instead of hanging.
  if (isInstant(latency) && occNeverSleeps(strategy, baseMs, capMs)) {
    throw new RangeError(
      `strategy "${strategy}" never sleeps${strategy === 'none' ? '' : ' with a base or cap of 0'}, and with zero latency no simulated time would ever pass: give the network a latency or use a backoff that sleeps`,
    );
  }
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
  checkCount('clients', clients, OCC_LIMITS.clients);
  if (!isOccStrategy(strategy)) throw new RangeError(`unknown strategy "${strategy}"`);
  const baseMs = options.baseMs ?? OCC_DEFAULTS.baseMs;
  const capMs = options.capMs ?? OCC_DEFAULTS.capMs;
  const latency = options.latency ?? DEFAULT_LATENCY;
  checkSettings(strategy, baseMs, capMs, latency);
  const { backoff, params } = strategyBackoff(strategy, baseMs, capMs);
  const delay = createLatency(seededRandom(deriveSeed(seed, 'network')), latency);
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

/**
 * The histograms' bin width: `requestedMs`, or the smallest 1-2-5 multiple of it that keeps the
 * longest run within {@link OCC_LIMITS}.histogramBins bins. A huge `capMs` can stretch a run to
 * years of virtual time, and one array slot per 10 ms would not fit in memory.
 */
export const histogramBin = (requestedMs: number, lastWriteMs: number): number => {
  const needed = lastWriteMs / OCC_LIMITS.histogramBins;
  if (needed < requestedMs) return requestedMs;
  for (let scale = 1; ; scale *= 10) {
    for (const step of [1, 2, 5]) {
      const binMs = requestedMs * step * scale;
      if (Math.floor(lastWriteMs / binMs) < OCC_LIMITS.histogramBins) return binMs;
    }
  }
};

/** A sweep: every strategy at every client count, `runs` times each. */
export interface OccSweepOptions {
  /** Client counts. Default 10, 20, …, 190. */
  readonly clients?: readonly number[];
  /** Default {@link DEFAULT_OCC_STRATEGIES}. */
  readonly strategies?: readonly OccStrategyName[];
  /** Runs per point. Default 100. */
  readonly runs?: number;
  /** The strategies' `baseMs`. Default 5 ms. */
  readonly baseMs?: number;
  /** The strategies' `capMs`. Default 2000 ms. */
  readonly capMs?: number;
  /** One message's delay. Default `|Normal(10, 2)|` ms. */
  readonly latency?: LatencyModel;
  /** Base seed; run `r` at `n` clients uses `deriveSeed(seed, n, r)` for every strategy. */
  readonly seed: number;
  /** Client count of the write-time histograms (one run per strategy). Default 100; 0 for none. */
  readonly histogramClients?: number;
  /** Histogram bin width. Default 10 ms; widened when a run would need more than 10 000 bins. */
  readonly histogramBinMs?: number;
  /** Called after every run with (runs done, runs in all). */
  readonly onProgress?: (done: number, total: number) => void;
}

/** One point of the sweep: means and spreads over the runs. */
export interface OccPoint {
  /** The strategy measured. */
  readonly strategy: OccStrategyName;
  /** At this many clients. */
  readonly clients: number;
  /** Over this many runs. */
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
  /** The strategy of the run. */
  readonly strategy: OccStrategyName;
  /** Its client count. */
  readonly clients: number;
  /** The requested width, or wider if the longest run would need more than 10 000 bins. */
  readonly binMs: number;
  /** `counts[k]` writes arrived in `[k·binMs, (k+1)·binMs)`. */
  readonly counts: readonly number[];
  /** Writes received by the server in the run. */
  readonly calls: number;
  /** Time until the last client knew it succeeded, in ms. */
  readonly timeMs: number;
}

/** The result of {@link runOcc}. */
export interface OccSweepResult {
  /** The base seed. */
  readonly seed: number;
  /** Runs per point. */
  readonly runs: number;
  /** The strategies' `baseMs`. */
  readonly baseMs: number;
  /** The strategies' `capMs`. */
  readonly capMs: number;
  /** One message's delay. */
  readonly latency: LatencyModel;
  /** The strategies compared. */
  readonly strategies: readonly OccStrategyName[];
  /** The client counts swept. */
  readonly clients: readonly number[];
  /** One per strategy and client count. */
  readonly points: readonly OccPoint[];
  /** The write-time histograms, one per strategy (none with `histogramClients: 0`). */
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
  checkCount('runs', runs, OCC_LIMITS.runs);
  for (const n of clients) checkCount('clients', n, OCC_LIMITS.clients);
  if (histogramClients !== 0) checkCount('histogramClients', histogramClients, OCC_LIMITS.clients);
  if (!(Number.isFinite(histogramBinMs) && histogramBinMs > 0))
    throw new RangeError(`histogramBinMs must be a positive number, got ${histogramBinMs}`);
  // Checked for every strategy before the first run, so a bad setting fails at once, not mid-sweep.
  for (const s of strategies) {
    if (!isOccStrategy(s)) throw new RangeError(`unknown strategy "${s}"`);
    checkSettings(s, baseMs, capMs, latency);
  }

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
    // Run 0's seed: the histogram is one of the sweep's own runs when that client count is swept.
    const runsForHistogram = strategies.map((strategy) => ({
      strategy,
      result: simulateOcc({
        clients: histogramClients,
        strategy,
        baseMs,
        capMs,
        latency,
        seed: deriveSeed(seed, histogramClients, 0),
        recordWrites: true,
      }),
    }));
    const lastWrite = Math.max(...runsForHistogram.map(({ result }) => result.writeTimesMs!.at(-1) ?? 0));
    const binMs = histogramBin(histogramBinMs, lastWrite);
    for (const { strategy, result } of runsForHistogram) {
      histograms.push({
        strategy,
        clients: histogramClients,
        binMs,
        counts: histogram(result.writeTimesMs!, binMs),
        calls: result.calls,
        timeMs: result.timeMs,
      });
    }
  }
  return { seed, runs, baseMs, capMs, latency, strategies, clients, points, histograms };
};
