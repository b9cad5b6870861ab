/**
 * The fleet experiment: `processes` processes (default 4), each with its own `RetryPolicy`, against
 * one origin, once with the core's local retry budget, pacer and circuit breaker in each, once with
 * the fleet's (`createRetryBudget({ store })`, `createPacer({ store })`,
 * `createCircuitBreaker({ store })` of `@jitterbug/core/store`) over one in-memory store, which
 * stands for Redis here, on the same virtual clock. Three scenarios, those of issue 35:
 *
 * - `outage`: an origin that is down (503 to everything); each process sends `requests` GETs one
 *   after another. The requests the origin received in all: four budgets retry four bursts.
 * - `pacer`: a token bucket of `limitPerSec` (burst as much) that answers 429 with
 *   `Retry-After: 1`; one process sends 20 GETs at once, and at `lateStartMs` the others send 15 at
 *   once each. The 429s the late processes met: a shared pacer paces them from their first request.
 * - `breaker`: an origin that answers 503 until `downMs`, then 200; each process sends GETs one after
 *   another, `gapMs` apart, one attempt each. The requests that reached the origin during the break
 *   (from the moment every process's circuit had opened to the origin's return), the probes per
 *   half-open period they make, the requests refused at once, and how long after the return every
 *   process had a 200 again.
 */
import {
  createCircuitBreaker,
  createPacer,
  createRetryBudget,
  createRetryPolicy,
  seededRandom,
} from '@jitterbug/core';
import {
  createMemoryStore,
  createCircuitBreaker as fleetBreaker,
  createRetryBudget as fleetBudget,
  createPacer as fleetPacer,
} from '@jitterbug/core/store';
import { type FleetAnswer, type FleetProcess, type FleetTrace, runFleetLoop } from './fleet-loop.ts';
import { createLatency, DEFAULT_LATENCY, type LatencyModel } from './normal.ts';
import { formatTable } from './output.ts';
import { deriveSeed } from './seeds.ts';
import { type Summary, summarize } from './stats.ts';

/** The scenarios. */
export const FLEET_SCENARIOS = Object.freeze(['outage', 'pacer', 'breaker'] as const);
/** A scenario's name. */
export type FleetScenario = (typeof FLEET_SCENARIOS)[number];

/** Each process's state: its own (`local`), or the fleet's over one store (`shared`). */
export const FLEET_MODES = Object.freeze(['local', 'shared'] as const);
/** A mode's name. */
export type FleetMode = (typeof FLEET_MODES)[number];

/** Options of the fleet experiment. */
export interface FleetOptions {
  /** Base seed; run `r` uses `deriveSeed(seed, r)`. */
  readonly seed: number;
  /** Runs per scenario and mode. Default 5. */
  readonly runs?: number;
  /** The scenarios to run. Default all. */
  readonly scenarios?: readonly FleetScenario[];
  /** Processes. Default 4. */
  readonly processes?: number;
  /** `outage`: GETs per process. Default 20. */
  readonly requests?: number;
  /** `pacer`: the limit, requests per second (its burst as much). Default 10. */
  readonly limitPerSec?: number;
  /** `pacer`: when the late processes start, in ms. Default 3000. */
  readonly lateStartMs?: number;
  /** `breaker`: how long the origin is down, in ms. Default 4000. */
  readonly downMs?: number;
  /** `breaker`: the break, in ms. Default 1000. */
  readonly breakMs?: number;
  /** Each message takes `|Normal(meanMs, sdMs)|`. Default 10, 2. */
  readonly latency?: LatencyModel;
  /** Called after each run with the runs done and in all. */
  readonly onProgress?: (done: number, total: number) => void;
}

/** Defaults of {@link FleetOptions}. */
export const FLEET_DEFAULTS = Object.freeze({
  runs: 5,
  processes: 4,
  requests: 20,
  limitPerSec: 10,
  lateStartMs: 3000,
  downMs: 4000,
  breakMs: 1000,
});

/** Bounds of the inputs. */
export const FLEET_LIMITS = Object.freeze({ runs: 1000, processes: 64, requests: 10_000 });

type ResolvedFleetOptions = Required<Omit<FleetOptions, 'onProgress'>>;

/** The breaker's settings: the fleet tests' (`test/fleet/redis-fleet.test.ts`), quorum 2. */
const BREAKER = { failureRatio: 0.5, minimumThroughput: 5, samplingMs: 10_000, quorum: 2 } as const;
/** `pacer`: what the first process and each late one send at once. */
const FIRST_BURST = 20;
const LATE_BURST = 15;
/** `breaker`: the gap between a request's end and the next, and how long each process keeps sending. */
const BREAKER_GAP_MS = 50;
const BREAKER_AFTER_MS = 3000;

/** A measure of one scenario, local against shared: each a summary over runs. */
export interface FleetRow {
  /** The scenario it measures. */
  readonly scenario: FleetScenario;
  /** What it measures, as the table says it. */
  readonly measure: string;
  /**
   * Which way is better: the shared state should be at most (`lower`) or at least (`higher`) the
   * local one; `neither` for a measure that is a bound, not a comparison.
   */
  readonly better: Better;
  /** Over runs, with each process's own state. */
  readonly local: Summary;
  /** Over runs, with the fleet's over one store. */
  readonly shared: Summary;
}

type Better = 'lower' | 'higher' | 'neither';

/** One run of one scenario in one mode: the measures, by name, and the trace. */
interface FleetRun {
  readonly measures: Readonly<Record<string, number>>;
  readonly trace: FleetTrace;
}

/** The timeline of the first run of a scenario in a mode, for the charts. */
export interface FleetTimeline {
  /** The scenario. */
  readonly scenario: FleetScenario;
  /** Local or shared. */
  readonly mode: FleetMode;
  /** The width of a bin, in ms. */
  readonly binMs: number;
  /** Attempts arriving at the origin, per bin. */
  readonly arrivals: readonly number[];
  /** Those it answered 429 or 503, per bin. */
  readonly refused: readonly number[];
}

/** The result of {@link runFleet}. */
export interface FleetResult {
  /** The base seed. */
  readonly seed: number;
  /** Every option, defaults filled in. */
  readonly settings: Omit<ResolvedFleetOptions, 'seed'>;
  /** One per measure, scenario by scenario. */
  readonly rows: readonly FleetRow[];
  /** Per scenario and mode, the first run's attempts over time (what the charts draw). */
  readonly timelines: readonly FleetTimeline[];
}

const resolve = (options: FleetOptions): ResolvedFleetOptions => {
  const d = FLEET_DEFAULTS;
  const o: ResolvedFleetOptions = {
    seed: options.seed,
    runs: options.runs ?? d.runs,
    scenarios: options.scenarios ?? FLEET_SCENARIOS,
    processes: options.processes ?? d.processes,
    requests: options.requests ?? d.requests,
    limitPerSec: options.limitPerSec ?? d.limitPerSec,
    lateStartMs: options.lateStartMs ?? d.lateStartMs,
    downMs: options.downMs ?? d.downMs,
    breakMs: options.breakMs ?? d.breakMs,
    latency: options.latency ?? DEFAULT_LATENCY,
  };
  const whole = (name: string, value: number, min: number, max: number): void => {
    if (!(Number.isInteger(value) && value >= min && value <= max))
      throw new RangeError(`${name} must be a whole number from ${min} to ${max}`);
  };
  whole('runs', o.runs, 1, FLEET_LIMITS.runs);
  // Two at least: the pacer's late processes and the breaker's quorum need a second.
  whole('processes', o.processes, 2, FLEET_LIMITS.processes);
  whole('requests', o.requests, 1, FLEET_LIMITS.requests);
  for (const [name, value] of [
    ['limitPerSec', o.limitPerSec],
    ['lateStartMs', o.lateStartMs],
    ['downMs', o.downMs],
    ['breakMs', o.breakMs],
  ] as const)
    if (!(value > 0 && Number.isFinite(value))) throw new RangeError(`${name} must be a positive number`);
  return o;
};

const NO_HEADERS = () => undefined;
const OK: FleetAnswer = { status: 200, headers: NO_HEADERS };
const DOWN: FleetAnswer = { status: 503, headers: NO_HEADERS };
const LIMITED: FleetAnswer = {
  status: 429,
  headers: (name) => (name.toLowerCase() === 'retry-after' ? '1' : undefined),
};

/** The features of one process: its own, or the fleet's over `store`. */
const featuresOf = (
  scenario: FleetScenario,
  mode: FleetMode,
  store: ReturnType<typeof createMemoryStore>,
  o: ResolvedFleetOptions,
) => {
  const shared = mode === 'shared';
  if (scenario === 'outage') return { budget: shared ? fleetBudget({ store }) : createRetryBudget() };
  if (scenario === 'pacer') return { pacer: shared ? fleetPacer({ store }) : createPacer() };
  const breaker = { ...BREAKER, breakMs: o.breakMs };
  return {
    maxAttempts: 1,
    breaker: shared ? fleetBreaker({ ...breaker, store }) : createCircuitBreaker(breaker),
  };
};

/** The origin of a scenario, as a function of the arrival time. */
const originOf = (scenario: FleetScenario, o: ResolvedFleetOptions): ((t: number) => FleetAnswer) => {
  if (scenario === 'outage') return () => DOWN;
  if (scenario === 'breaker') return (t) => (t < o.downMs ? DOWN : OK);
  const perMs = o.limitPerSec / 1000;
  let tokens = o.limitPerSec;
  let at = 0;
  return (t) => {
    tokens = Math.min(o.limitPerSec, tokens + perMs * (t - at));
    at = t;
    if (tokens < 1) return LIMITED;
    tokens -= 1;
    return OK;
  };
};

/** The processes of a scenario. */
const processesOf = (scenario: FleetScenario, o: ResolvedFleetOptions, make: () => FleetProcess['policy']) =>
  Array.from({ length: o.processes }, (_, i): FleetProcess => {
    const policy = make();
    if (scenario === 'outage')
      return { policy, requests: o.requests, startMs: 0, concurrent: false, gapMs: 0 };
    if (scenario === 'pacer')
      return i === 0
        ? { policy, requests: FIRST_BURST, startMs: 0, concurrent: true, gapMs: 0 }
        : { policy, requests: LATE_BURST, startMs: o.lateStartMs, concurrent: true, gapMs: 0 };
    // Enough one after another to outlast the origin's return by BREAKER_AFTER_MS.
    const requests = Math.ceil((o.downMs + BREAKER_AFTER_MS) / (BREAKER_GAP_MS + 2 * o.latency.meanMs));
    return { policy, requests, startMs: 0, concurrent: false, gapMs: BREAKER_GAP_MS };
  });

/** The measures of a scenario's trace. */
const measuresOf = (
  scenario: FleetScenario,
  trace: FleetTrace,
  o: ResolvedFleetOptions,
): Record<string, number> => {
  const { arrivals, ends } = trace;
  if (scenario === 'outage')
    return {
      'requests the origin received': arrivals.length,
      'requests the budget stopped': ends.filter((e) => e.reason === 'budget-exhausted').length,
    };
  if (scenario === 'pacer') {
    const late = arrivals.filter((a) => a.process > 0);
    return {
      '429s the late processes met': late.filter((a) => a.status === 429).length,
      '429s the first process met': arrivals.filter((a) => a.process === 0 && a.status === 429).length,
      'requests ended 200': ends.filter((e) => e.status === 200).length,
      's until the last request ended': Math.max(...ends.map((e) => e.atMs)) / 1000,
    };
  }
  // The break: from the moment every process has had a request refused by its open circuit.
  const opened = Array.from({ length: o.processes }, (_, p) =>
    Math.min(...ends.filter((e) => e.process === p && e.reason === 'circuit-open').map((e) => e.atMs)),
  );
  const t0 = Math.max(...opened);
  // A process whose circuit never opened (a down time shorter than it takes): no break to count.
  const during = t0 < o.downMs ? arrivals.filter((a) => a.atMs > t0 && a.atMs < o.downMs).length : Number.NaN;
  // Break durations from t0 to the return: one probe each, for the fleet (a local breaker's period
  // is its break and its probe's round trip, so each process probes a little less often than this).
  const periods = Math.max(1, (o.downMs - t0) / o.breakMs);
  const closedAfter = Array.from({ length: o.processes }, (_, p) =>
    Math.min(...ends.filter((e) => e.process === p && e.status === 200).map((e) => e.atMs - o.downMs)),
  );
  return {
    'requests that reached the origin during the break': during,
    'probes per break duration': during / periods,
    'requests refused at once (circuit open)': ends.filter((e) => e.reason === 'circuit-open').length,
    'ms after the return until every process had a 200': Math.max(...closedAfter),
  };
};

/** Which way each measure is better (every measure is listed here). */
const BETTER: Readonly<Record<string, Better>> = {
  'requests the origin received': 'lower',
  'requests the budget stopped': 'higher',
  '429s the late processes met': 'lower',
  '429s the first process met': 'lower',
  'requests ended 200': 'higher',
  // What the line costs: the fleet goes at the pace learned, a tenth under the limit after a 429.
  's until the last request ended': 'neither',
  'requests that reached the origin during the break': 'lower',
  'probes per break duration': 'lower',
  'requests refused at once (circuit open)': 'higher',
  // The bound: within one break duration. The fleet's probe may be a process that waits
  // longer for its turn than its own breaker would have, so this is no comparison.
  'ms after the return until every process had a 200': 'neither',
};

/** Simulates one run of one scenario in one mode. */
export const simulateFleet = async (
  scenario: FleetScenario,
  mode: FleetMode,
  options: FleetOptions,
): Promise<FleetRun> => {
  const o = resolve(options);
  const clock = { now: 0 };
  const now = () => clock.now;
  const store = createMemoryStore({ now });
  const jitter = seededRandom(deriveSeed(o.seed, 'jitter'));
  const processes = processesOf(scenario, o, () =>
    createRetryPolicy({ random: jitter, now, ...featuresOf(scenario, mode, store, o) }),
  );
  const delay = createLatency(seededRandom(deriveSeed(o.seed, 'network')), o.latency);
  const trace = await runFleetLoop(processes, originOf(scenario, o), delay, clock);
  return { measures: measuresOf(scenario, trace, o), trace };
};

const TIMELINE_BIN_MS = 250;

const timelineOf = (scenario: FleetScenario, mode: FleetMode, trace: FleetTrace): FleetTimeline => {
  const bins = Math.max(
    1,
    Math.ceil((Math.max(0, ...trace.arrivals.map((a) => a.atMs)) + 1) / TIMELINE_BIN_MS),
  );
  const arrivals = new Array<number>(bins).fill(0);
  const refused = new Array<number>(bins).fill(0);
  for (const a of trace.arrivals) {
    const bin = Math.floor(a.atMs / TIMELINE_BIN_MS);
    arrivals[bin]!++;
    if (a.status !== 200) refused[bin]!++;
  }
  return { scenario, mode, binMs: TIMELINE_BIN_MS, arrivals, refused };
};

/** Runs every scenario in both modes, `runs` times each (run `r` seeded alike in both modes). */
export const runFleet = async (options: FleetOptions): Promise<FleetResult> => {
  const o = resolve(options);
  const total = o.scenarios.length * FLEET_MODES.length * o.runs;
  let done = 0;
  const rows: FleetRow[] = [];
  const timelines: FleetTimeline[] = [];
  for (const scenario of o.scenarios) {
    const byMode: Record<FleetMode, Record<string, number>[]> = { local: [], shared: [] };
    for (const mode of FLEET_MODES)
      for (let r = 0; r < o.runs; r++) {
        const run = await simulateFleet(scenario, mode, { ...o, seed: deriveSeed(o.seed, r) });
        byMode[mode].push(run.measures);
        if (r === 0) timelines.push(timelineOf(scenario, mode, run.trace));
        options.onProgress?.(++done, total);
      }
    for (const measure of Object.keys(byMode.local[0]!))
      rows.push({
        scenario,
        measure,
        better: BETTER[measure]!,
        local: summarize(byMode.local.map((m) => m[measure]!)),
        shared: summarize(byMode.shared.map((m) => m[measure]!)),
      });
  }
  const { seed, ...settings } = o;
  return { seed, settings, rows, timelines };
};

const fixed = (value: number, digits: number): string =>
  Number.isFinite(value) ? value.toFixed(digits) : '-';
/** A mean and, in brackets, the worst run (the highest where lower is better). */
const cell = (s: Summary, better: Better): string => {
  const worst = better === 'higher' ? s.min : s.max;
  const digits = Number.isInteger(s.mean) && Number.isInteger(worst) ? 0 : 1;
  return `${fixed(s.mean, digits)} (${fixed(worst, digits)})`;
};

/** The results as a table: one row per measure, local against shared, means over runs (the worst run in brackets). */
export const fleetTable = (result: FleetResult): string =>
  formatTable(
    ['scenario', 'measure', 'local', 'shared', 'shared/local'],
    result.rows.map((r) => [
      r.scenario,
      r.measure,
      cell(r.local, r.better),
      cell(r.shared, r.better),
      Number.isFinite(r.shared.mean / r.local.mean) ? `${fixed(r.shared.mean / r.local.mean, 2)}x` : '-',
    ]),
  );

/** The results as CSV, one row per measure. */
export const fleetCsv = (result: FleetResult): string => {
  const header = ['scenario', 'measure', 'better', 'runs', 'local_mean', 'local_min', 'local_max'];
  header.push('shared_mean', 'shared_min', 'shared_max');
  const rows = result.rows.map((r) =>
    [
      r.scenario,
      `"${r.measure}"`,
      r.better,
      r.local.n,
      r.local.mean,
      r.local.min,
      r.local.max,
      r.shared.mean,
      r.shared.min,
      r.shared.max,
    ].join(','),
  );
  return `${[header.join(','), ...rows].join('\n')}\n`;
};

/** The whole result as JSON. */
export const fleetJson = (result: FleetResult): string => `${JSON.stringify(result, null, 2)}\n`;
