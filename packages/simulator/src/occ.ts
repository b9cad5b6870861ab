/**
 * The optimistic-concurrency-control contention experiment from Marc Brooker's "Exponential Backoff
 * And Jitter": N clients each update one row once, with read-then-conditional-write, over a network
 * whose every message takes `|Normal(10, 2)|` ms. A discrete-event model in virtual time.
 *
 * Each client's update is one request of a core `RetryPolicy`: its attempt sequence, the one the
 * HTTP adapters drive, is told each write's answer and says how long to wait (the core's
 * `constant`, `exponential`, `full`, `equal` or `decorrelated` backoff) before the next attempt.
 */
import {
  type BackoffOptions,
  type BackoffParams,
  type BackoffStrategyName,
  createRetryPolicy,
  type RandomSource,
  type RetryPolicy,
  seededBits,
  seededRandom,
} from '@jitterbug/core';
import { backoffStrategies, type RetryRun, type Step } from '@jitterbug/core/adapter';
import { EventHeap } from './heap.ts';
import { createLatency, DEFAULT_LATENCY, type LatencyModel, latencyOf, standardNormal } from './normal.ts';
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
  /**
   * Writes per request of a client (`maxAttempts`), and the default: the core's largest. A client
   * whose request gives up there (with the default settings, only some 2 700 clients or more
   * without backoff get that far) begins its update again at once with a new request, as an
   * application that must make it would.
   */
  maxAttempts: 1000,
});

/** Whether a string names an OCC strategy. */
export const isOccStrategy = (name: string): name is OccStrategyName =>
  (OCC_STRATEGIES as readonly string[]).includes(name);

/**
 * The policy's backoff for a strategy: the core's strategy function, given the blog's numbers. The
 * blog counts the first retry as attempt 1, so its first envelope is `min(cap, 2 · base)`; the core
 * counts the retries already made (0 before the first), so the three exponential strategies are given
 * `2 · base`, which is the blog's envelope exactly (a power of two times a number is exact in floating
 * point). `decorrelated` never reads the attempt: `base` is its floor and first `prev`, as in the
 * blog; `constant` is `base` every time. The policy is given the strategy by name, as a user writes
 * it, so that the core calls its own function (one call a failed write, not two). Where the core
 * would refuse or warn (a base above the cap; a fraction of a millisecond, a fine base in virtual
 * time, draws the warning meant for a unit slip), the policy's `baseMs` is 0 and its strategy calls
 * the core's with the blog's numbers.
 */
const strategyBackoff = (strategy: OccStrategyName, baseMs: number, capMs: number): BackoffOptions => {
  if (strategy === 'none') {
    // "No backoff": the core's constant strategy with a base of 0, i.e. no sleep at all.
    return { strategy: 'constant', baseMs: 0, capMs };
  }
  const exponent = strategy === 'exponential' || strategy === 'full' || strategy === 'equal';
  const blog: BackoffParams = { baseMs: exponent ? 2 * baseMs : baseMs, capMs };
  if (blog.baseMs >= 1 && blog.baseMs <= capMs) return { strategy, ...blog };
  const backoff = backoffStrategies[strategy];
  return { strategy: (state, _params, random) => backoff(state, blog, random), baseMs: 0, capMs };
};

/** A failed conditional write: the version it carried is no longer current (`If-Match` lost). */
const CONFLICT = Object.freeze({ status: 412 });
/** A successful one. */
const UPDATED = Object.freeze({ status: 200 });
const WRITE = Object.freeze({ method: 'PUT', url: 'http://occ.invalid/row' });

/**
 * The clients of one strategy: a core `RetryPolicy` whose clock and random source are the run's,
 * so that one policy serves every run of a sweep (it keeps no state between requests here: no
 * budget, no pacer, no Retry-After, no herd line).
 */
interface OccClients {
  readonly policy: RetryPolicy;
  /** The virtual time the next event to a client's request happens at. */
  clock: number;
  /** The run's jitter stream. */
  jitter: RandomSource;
}

const occClients = (
  strategy: OccStrategyName,
  baseMs: number,
  capMs: number,
  maxAttempts: number = OCC_LIMITS.maxAttempts,
): OccClients => {
  const clients: OccClients = {
    policy: undefined as unknown as RetryPolicy,
    clock: 0,
    jitter: () => 0,
  };
  (clients as { policy: RetryPolicy }).policy = createRetryPolicy({
    backoff: strategyBackoff(strategy, baseMs, capMs),
    maxAttempts,
    methods: ['PUT'],
    statusCodes: [CONFLICT.status],
    budget: false,
    retryAfter: false,
    herd: false,
    pacer: false,
    idempotencyKey: false,
    random: () => clients.jitter(),
    now: () => clients.clock,
  });
  return clients;
};

/**
 * The network of the run in progress: its stream, set as the run begins (the core's `seededBits`:
 * the ziggurat takes a draw's 32 bits as they are, and the same stream's uniform numbers in its rare
 * path are `seededRandom`'s), and the message delays of the default model drawn from it by one
 * source made once for the module.
 *
 * One source for every run, not one made per run: the engine then compiles the event loop for
 * the one delay function it calls, with the ziggurat and the stream inlined, where fresh closures
 * for each of a sweep's 9,500 runs left it calls it could not inline (the default sweep took some
 * 25% more CPU time). Runs never overlap: each is synchronous, from its first event to its last.
 */
let network: () => number = () => 0;
const fromNetwork: RandomSource = () => (network() >>> 0) / 4294967296;
const defaultDelay = latencyOf(
  standardNormal(fromNetwork, () => network()),
  DEFAULT_LATENCY,
);

/** The delay of one message under `latency`, drawn from the run's {@link network}. */
const delayOf = (latency: LatencyModel): (() => number) =>
  latency.meanMs === DEFAULT_LATENCY.meanMs && latency.sdMs === DEFAULT_LATENCY.sdMs
    ? defaultDelay
    : createLatency(fromNetwork, latency);

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
  /**
   * Writes per request of a client, from 1 to `OCC_LIMITS.maxAttempts` (the default): a request that
   * gives up is followed at once by a new one, whose backoff starts over.
   */
  readonly maxAttempts?: number;
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
 * Simulates one run: every client reads, writes, and on a failed write its request's attempt
 * sequence (the core's, as every adapter drives it) is told the write's answer, `412`, and asks for
 * the wait its backoff decides; the client then starts again with a read.
 *
 * The event loop only schedules write arrivals. A write succeeds iff the version it carries is still
 * current, i.e. iff no other write succeeded between its read's arrival and its own arrival; since
 * events are handled in time order, every success before the write has been seen, so the check is
 * `lastSuccessAt < readAt`. That is exactly the read/version model with half the events. Each client
 * has one pending write, so the heap holds at most N entries; a client's own steps (receiving the
 * version and sending the write; learning of a failure, waiting and sending a new read) are folded
 * into the times `readAt` and `writeAt`. A request's sequence is told each of its events at the
 * virtual time it happens; the requests share nothing that depends on time, so telling a client's
 * wait as over before another client's earlier event changes nothing.
 */
export const simulateOcc = (options: OccRunOptions): OccRunResult => {
  const { clients, strategy } = options;
  checkCount('clients', clients, OCC_LIMITS.clients);
  if (!isOccStrategy(strategy)) throw new RangeError(`unknown strategy "${strategy}"`);
  const baseMs = options.baseMs ?? OCC_DEFAULTS.baseMs;
  const capMs = options.capMs ?? OCC_DEFAULTS.capMs;
  const latency = options.latency ?? DEFAULT_LATENCY;
  checkSettings(strategy, baseMs, capMs, latency);
  const maxAttempts = options.maxAttempts ?? OCC_LIMITS.maxAttempts;
  checkCount('maxAttempts', maxAttempts, OCC_LIMITS.maxAttempts);
  return simulate(options, latency, occClients(strategy, baseMs, capMs, maxAttempts));
};

/** One run, its settings checked, with `occ`'s policy (one per strategy serves a whole sweep). */
const simulate = (options: OccRunOptions, latency: LatencyModel, occ: OccClients): OccRunResult => {
  const { clients, seed, recordWrites = false } = options;
  network = seededBits(deriveSeed(seed, 'network'));
  const delay = delayOf(latency);
  occ.jitter = seededRandom(deriveSeed(seed, 'jitter'));
  occ.clock = 0;
  const { policy } = occ;

  const heap = new EventHeap(clients);
  const readAt = new Float64Array(clients);
  const requests: RetryRun[] = new Array(clients);
  const successes = new Uint32Array(clients);
  const writes = new Uint32Array(clients);
  let writeTimes = recordWrites ? new Float64Array(clients * 4) : undefined;

  // Time 0: every client begins its request and sends its read; the server answers; the client
  // sends its write.
  for (let c = 0; c < clients; c++) {
    const request = policy.begin(WRITE);
    expectStep(request.start(undefined, false), 'send');
    requests[c] = request;
    heap.push(c, sendRead(delay, 0, readAt, c));
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
    occ.clock = learnedAt;
    let request = requests[c]!;
    // The write's result is at hand as it ends, so it is told at the send, as a callback driver
    // tells one (`done(result)`): one call where `answered` and then `done` would be two.
    if (lastSuccessAt < readAt[c]!) {
      // The version read is still current: the write succeeds and the version increments.
      version++;
      lastSuccessAt = t;
      successes[c]!++;
      if (learnedAt > timeMs) timeMs = learnedAt;
      expectStep(request.done(UPDATED), 'deliver');
      heap.pop();
      continue;
    }
    // Failed: the client's request is told; it drops the answer and waits its backoff.
    let step = request.done(CONFLICT);
    let sleepMs = 0;
    if (step === 'discard') {
      expectStep(request.done(), 'wait');
      sleepMs = request.delayMs;
      occ.clock = learnedAt + sleepMs;
      step = request.done();
    } else {
      // It gave up (`maxAttempts`): the client begins its update again at once.
      expectStep(step, 'deliver');
      request = policy.begin(WRITE);
      requests[c] = request;
      step = request.start(undefined, false);
    }
    expectStep(step, 'send');
    heap.replaceTop(sendRead(delay, learnedAt + sleepMs, readAt, c));
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
 * Client `c` sends a read at `at`: the time it arrives (the version it reads) goes in `readAt`; the
 * time its write, sent on the answer, arrives is returned. Three messages, drawn in turn. A function
 * of its own, so that the engine inlines the three draws here: in the event loop, with the heap's
 * steps, it ran out of what it inlines after one or two, and called the rest.
 */
const sendRead = (delay: () => number, at: number, readAt: Float64Array, c: number): number => {
  const read = at + delay();
  readAt[c] = read;
  return read + delay() + delay();
};

/**
 * A step other than the one the experiment's requests can ask for is a broken model: said at once.
 * The message is made in a function of its own, so that this check is small enough for the engine
 * to inline at each of its calls without using up what the event loop may inline (the delays).
 */
const expectStep = (step: Step, expected: Step): void => {
  if (step !== expected) unexpected(step, expected);
};
const unexpected = (step: Step, expected: Step): never => {
  throw new Error(`occ: the attempt sequence asked for '${step}', not '${expected}'`);
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
    const occ = occClients(strategy, baseMs, capMs);
    for (const n of clients) {
      for (let r = 0; r < runs; r++) {
        const result = simulate({ clients: n, strategy, seed: deriveSeed(seed, n, r) }, latency, occ);
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
