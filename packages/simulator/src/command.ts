/**
 * The `jitterbug-sim` command line: argument parsing, help, and output. `runCli` returns the exit
 * code instead of exiting, so tests can call it in-process; `cli.ts` is the thin executable.
 */
import { parseArgs } from 'node:util';
import { DEFAULT_THROTTLE } from '@jitterbug/core';
import { type Chart, occCharts, stormCharts, tailCharts, writeCharts } from './charts.ts';
import { DEFAULT_LATENCY } from './normal.ts';
import {
  DEFAULT_OCC_STRATEGIES,
  isInstant,
  isOccStrategy,
  OCC_DEFAULTS,
  OCC_LIMITS,
  OCC_STRATEGIES,
  type OccStrategyName,
  occNeverSleeps,
  runOcc,
} from './occ.ts';
import {
  occCsv,
  occJson,
  occTable,
  stormCsv,
  stormJson,
  stormTable,
  tailCsv,
  tailJson,
  tailTable,
  writeText,
} from './output.ts';
import { createProgress, type ProgressStream } from './progress.ts';
import { randomSeed } from './seeds.ts';
import { DEFAULT_SERVICE_TIME } from './service-time.ts';
import {
  DEFAULT_STORM_POLICIES,
  isStormPolicy,
  runStorm,
  STORM_DEFAULTS,
  STORM_LIMITS,
  STORM_POLICIES,
  type StormOptions,
  type StormPolicyName,
  stormLimitProblem,
  stormPolicyThrottles,
} from './storm.ts';
import { runTail } from './tail.ts';
import {
  isTailVariant,
  isTailWindowFeed,
  TAIL_DEFAULTS,
  TAIL_LIMITS,
  TAIL_VARIANTS,
  TAIL_WINDOW_FEEDS,
  type TailOptions,
  type TailVariantName,
  type TailWindowFeed,
  tailLimitProblem,
} from './tail-options.ts';

/** The storm flag that sets each option, for messages about limits. */
const STORM_FLAGS: Partial<Record<keyof StormOptions, string>> = {
  ratePerSec: 'rate',
  durationSec: 'duration',
  runs: 'runs',
  maxAttempts: 'attempts',
  capMs: 'cap',
  binMs: 'bin',
  throttleWindowSec: 'throttle-window',
};

/** Where the command writes. */
export interface CliIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: ProgressStream;
}

/** A bad command line: reported on stderr with exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

const MAIN_HELP = `Usage: jitterbug-sim <command> [options]

Simulations run on jitterbug's own backoff and retry-budget code (@jitterbug/core).

Commands:
  occ     Marc Brooker's optimistic-concurrency contention experiment: N clients update one row
  storm   retries during an outage: load amplification, goodput and recovery per retry policy
  tail    hedged requests against a server with a slow tail, under increasing load

Run "jitterbug-sim <command> --help" for the command's options.

Examples:
  jitterbug-sim occ --seed 1 --out out/sim
  jitterbug-sim storm --seed 1 --out out/sim
  jitterbug-sim tail --seed 1 --out out/sim
`;

const COMMON_HELP = `  --seed N               base seed (integer); the same seed gives the same numbers.
                         Default: a new random seed, printed so that the run can be repeated
  --base MS              backoff base
  --cap MS               backoff cap
  --latency-mean MS      mean of each message's delay |Normal(mean, sd)| (default ${DEFAULT_LATENCY.meanMs})
  --latency-sd MS        its standard deviation (default ${DEFAULT_LATENCY.sdMs}; Brooker's article used 4)
  --json FILE            write the results as JSON
  --csv FILE             write the results as CSV
  --out DIR              write SVG charts into DIR
  -h, --help             show this help`;

const OCC_HELP = `Usage: jitterbug-sim occ [options]

N clients each update one database row once under optimistic concurrency control (read the
version, write if it is unchanged, back off and retry on conflict). Measures the writes the server
receives ("calls") and the time until the last client has written, averaged over runs.

Options:
  --clients SPEC         client counts: FROM:TO:STEP, a list 10,50,100, or one number
                         (default ${OCC_DEFAULTS.clients[0]}:${OCC_DEFAULTS.clients.at(-1)}:10)
  --strategies LIST      comma-separated, from ${OCC_STRATEGIES.join(', ')}
                         (default ${DEFAULT_OCC_STRATEGIES.join(',')}); "none" retries at once
  --runs N               runs per point (default ${OCC_DEFAULTS.runs})
  --hist-clients N       client count of the write-time histograms, 0 for none (default ${OCC_DEFAULTS.histogramClients})
${COMMON_HELP.replace('--base MS              backoff base', `--base MS              backoff base (default ${OCC_DEFAULTS.baseMs})`).replace('--cap MS               backoff cap', `--cap MS               backoff cap (default ${OCC_DEFAULTS.capMs})`)}

Examples:
  jitterbug-sim occ                                    # the full sweep, table on stdout
  jitterbug-sim occ --seed 42 --out out/occ --json out/occ/points.json
  jitterbug-sim occ --clients 100 --strategies full,equal,decorrelated --runs 1000
  jitterbug-sim occ --clients 10,50,100 --latency-sd 4 --csv occ.csv
`;

const STORM_HELP = `Usage: jitterbug-sim storm [options]

Open-loop clients send requests at a steady rate (Poisson) to a server that serves at most
--capacity attempts per second. During the outage every attempt fails with 503 (with Retry-After
if set); afterwards load above capacity is shed with 503. Each policy is a real jitterbug
RetryPolicy driven in virtual time; the *throttle policies add the core's adaptive client-side
throttle (Google SRE book), which refuses requests locally, before sending.

Options:
  --policies LIST        comma-separated, from ${STORM_POLICIES.join(', ')}
                         (default: all but naive-constant)
  --rate N               new requests per second (default ${STORM_DEFAULTS.ratePerSec})
  --capacity N           attempts per second the server can serve (default ${STORM_DEFAULTS.capacityPerSec})
  --duration S           seconds during which requests start (default ${STORM_DEFAULTS.durationSec})
  --outage FROM:TO       the outage, in seconds (default ${STORM_DEFAULTS.outageStartSec}:${STORM_DEFAULTS.outageEndSec})
  --retry-after S|off    Retry-After on the outage's 503s (default ${STORM_DEFAULTS.retryAfterSec})
  --overload-retry-after S|off
                         Retry-After on load-shedding 503s (default ${STORM_DEFAULTS.overloadRetryAfterSec})
  --attempts N           attempts per request, counting the first (default ${STORM_DEFAULTS.maxAttempts})
  --throttle-k K         the adaptive throttle's K, >= 1 (default ${STORM_DEFAULTS.throttleK}, the core's)
  --throttle-window S    its sliding window in seconds (default ${STORM_DEFAULTS.throttleWindowSec}, scaled to the
                         outage; the core's default is ${DEFAULT_THROTTLE.windowMs / 1000}). The throttle starts with a
                         whole window of healthy traffic behind it
  --runs N               runs per policy, averaged (default ${STORM_DEFAULTS.runs})
  --bin MS               timeline bin width (default ${STORM_DEFAULTS.binMs})
${COMMON_HELP.replace('--base MS              backoff base', `--base MS              backoff base (default ${STORM_DEFAULTS.baseMs}, the core's)`).replace('--cap MS               backoff cap', `--cap MS               backoff cap (default ${STORM_DEFAULTS.capMs}, the core's)`)}

Examples:
  jitterbug-sim storm --seed 1 --out out/storm
  jitterbug-sim storm --attempts 5 --base 1000 --retry-after off
  jitterbug-sim storm --policies none,naive-full,budget --capacity 150 --csv storm.csv
  jitterbug-sim storm --policies budget,budget+throttle --throttle-window 120
`;

const TAIL_HELP = `Usage: jitterbug-sim tail [options]

Open-loop clients send requests (Poisson) at a share of a server's capacity ("load"). The server
is a FIFO queue in front of --workers workers; each copy of a request takes a service time from a
mixture: most are fast (log-normal), a few hit a slow mode. A hedged copy takes a worker like any
request, and the server serves every copy it gets, so hedges cost capacity. Each variant is a real
jitterbug RetryPolicy with the core's hedge option, driven in virtual time. Prints p50/p99/p99.9
latency and the extra load the hedges added, per variant and load.

Variants: ${TAIL_VARIANTS.join(', ')}
  fixed: a second copy after --delay ms; p95: after the p95 of the core's latency window;
  +budget: within the core's hedge budget (ratio --hedge-ratio, ten tokens held)

Options:
  --variants LIST        comma-separated, from ${TAIL_VARIANTS.join(', ')} (default all)
  --loads SPEC           offered loads, shares of capacity without hedging: FROM:TO:STEP, a list
                         0.3,0.5,0.9, or one number; each above 0 and at most ${TAIL_LIMITS.load}
                         (default ${TAIL_DEFAULTS.loads[0]}:${TAIL_DEFAULTS.loads.at(-1)}:0.1)
  --requests N           requests per run (default ${TAIL_DEFAULTS.requests})
  --runs N               runs per point; their latencies are pooled (default ${TAIL_DEFAULTS.runs})
  --workers N            requests the server works on at once (default ${TAIL_DEFAULTS.workers})
  --delay MS             the fixed variants' hedge delay (default ${TAIL_DEFAULTS.delayMs}, BigTable's)
  --hedge-ratio R        the hedge budget's ratio, 0 to 1 (default ${TAIL_DEFAULTS.hedgeRatio}, the core's)
  --hedge-burst N        give the +budget variants a hedge budget N tokens deep instead of the core's
                         (which holds ten), to measure another depth (default: the core's)
  --window FEED          what the p95 variants' latency window is fed: winner (the answering copy's
                         own time, as the engines did) or request (the request's whole time, hedge
                         delay included, as the engines do) (default ${TAIL_DEFAULTS.windowFeed})
  --slow SHARE           share of copies in the slow mode, 0 to <1 (default ${DEFAULT_SERVICE_TIME.slowShare})
  --slow-ms MIN:MAX      the slow mode, uniform (default ${DEFAULT_SERVICE_TIME.slowMinMs}:${DEFAULT_SERVICE_TIME.slowMaxMs})
  --fast-median MS       the fast mode's median (default ${DEFAULT_SERVICE_TIME.fastMedianMs})
  --fast-sigma S         the fast mode's log-normal σ, 0 to 3 (default ${DEFAULT_SERVICE_TIME.fastSigma})
  --seed N               base seed (integer); the same seed gives the same numbers.
                         Default: a new random seed, printed so that the run can be repeated
  --latency-mean MS      mean of each message's delay |Normal(mean, sd)| (default ${TAIL_DEFAULTS.latency.meanMs})
  --latency-sd MS        its standard deviation (default ${TAIL_DEFAULTS.latency.sdMs})
  --json FILE            write the results as JSON
  --csv FILE             write the results as CSV
  --out DIR              write SVG charts into DIR
  -h, --help             show this help

Examples:
  jitterbug-sim tail --seed 1 --out out/tail
  jitterbug-sim tail --loads 0.5,0.9 --variants none,fixed,fixed+budget
  jitterbug-sim tail --variants p95+budget --hedge-burst 10 --window request --csv tail.csv
`;

/** The tail flag that sets each option, for messages about limits. */
const TAIL_FLAGS: Partial<Record<keyof TailOptions, string>> = {
  requests: 'requests',
  runs: 'runs',
  loads: 'loads',
  variants: 'variants',
};

/** The options of every command. */
const SHARED_OPTIONS = {
  seed: { type: 'string' },
  runs: { type: 'string' },
  'latency-mean': { type: 'string' },
  'latency-sd': { type: 'string' },
  json: { type: 'string' },
  csv: { type: 'string' },
  out: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The options of the commands that back off (occ, storm): the shared ones and the backoff's. */
const COMMON_OPTIONS = {
  ...SHARED_OPTIONS,
  base: { type: 'string' },
  cap: { type: 'string' },
} as const;

/** Parses a number option; `undefined` stays `undefined`. */
const num = (
  name: string,
  text: string | undefined,
  { min = Number.NEGATIVE_INFINITY, max = Number.POSITIVE_INFINITY, integer = false, positive = false } = {},
): number | undefined => {
  if (text === undefined) return undefined;
  const value = text.trim() === '' ? Number.NaN : Number(text);
  const ok =
    Number.isFinite(value) &&
    value >= min &&
    value <= max &&
    (!positive || value > 0) &&
    (!integer || Number.isInteger(value));
  if (!ok) {
    const what = integer
      ? positive
        ? 'a positive integer'
        : 'an integer'
      : positive
        ? 'a positive number'
        : 'a number';
    const low = min > Number.NEGATIVE_INFINITY ? ` >= ${min}` : '';
    const high = max < Number.POSITIVE_INFINITY ? `${low ? ' and' : ''} <= ${max}` : '';
    throw new UsageError(`--${name} must be ${what}${low}${high}, got "${text}"`);
  }
  return value;
};

/** Loads as `FROM:TO:STEP`, `a,b,c` or `n`: each above 0 and at most {@link TAIL_LIMITS.load}. */
export const parseLoads = (text: string): number[] => {
  const bad = (why: string): never => {
    throw new UsageError(
      `--loads ${why}, got "${text}" (use FROM:TO:STEP, a list like 0.3,0.5,0.9, or one number)`,
    );
  };
  const load = (part: string): number => {
    const x = Number(part);
    if (part.trim() === '' || !(Number.isFinite(x) && x > 0 && x <= TAIL_LIMITS.load))
      bad(`takes numbers above 0 and at most ${TAIL_LIMITS.load}`);
    return x;
  };
  let loads: number[];
  if (text.includes(':')) {
    const parts = text.split(':');
    if (parts.length !== 3) bad('range needs three parts');
    const [from, to, step] = parts.map(load) as [number, number, number];
    if (to < from) bad('range must not end before it starts');
    // Counted before it is made, so that a tiny step is refused instead of filling memory; the
    // epsilon keeps 0.1:0.9:0.1 from losing its last point to rounding.
    const count = Math.floor((to - from) / step + 1e-9) + 1;
    if (count > TAIL_LIMITS.loads) bad(`holds at most ${TAIL_LIMITS.loads} loads`);
    loads = Array.from({ length: count }, (_, i) => Number((from + i * step).toFixed(10)));
  } else {
    loads = text.split(',').map(load);
    if (loads.length > TAIL_LIMITS.loads) bad(`holds at most ${TAIL_LIMITS.loads} loads`);
  }
  return loads;
};

/** `FROM:TO:STEP`, `a,b,c` or `n`. */
export const parseClients = (text: string): number[] => {
  const bad = (why: string): never => {
    throw new UsageError(
      `--clients ${why}, got "${text}" (use FROM:TO:STEP, a list like 10,50,100, or one number)`,
    );
  };
  const count = (part: string): number => {
    const n = Number(part);
    if (part.trim() === '' || !Number.isInteger(n) || n < 1 || n > OCC_LIMITS.clients)
      bad(`takes whole numbers from 1 to ${OCC_LIMITS.clients}`);
    return n;
  };
  if (text.includes(':')) {
    const parts = text.split(':');
    if (parts.length !== 3) bad('range needs three parts');
    const [from, to, step] = parts.map(count) as [number, number, number];
    if (to < from) bad('range must not end before it starts');
    const out: number[] = [];
    for (let n = from; n <= to; n += step) out.push(n);
    return out;
  }
  return text.split(',').map(count);
};

const list = <T extends string>(
  name: string,
  text: string | undefined,
  valid: (s: string) => s is T,
  known: readonly string[],
): T[] | undefined => {
  if (text === undefined) return undefined;
  const items = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (items.length === 0) throw new UsageError(`--${name} needs at least one name (${known.join(', ')})`);
  for (const item of items) {
    if (!valid(item))
      throw new UsageError(`--${name}: unknown name "${item}"; choose from ${known.join(', ')}`);
  }
  return [...new Set(items)] as T[];
};

const seedOf = (text: string | undefined): { seed: number; given: boolean } => {
  if (text === undefined) return { seed: randomSeed(), given: false };
  const seed = num('seed', text, { min: 0, integer: true })!;
  if (seed > Number.MAX_SAFE_INTEGER) throw new UsageError(`--seed is too large, got "${text}"`);
  return { seed, given: true };
};

const retryAfterOf = (name: string, text: string | undefined, fallback: number): number | undefined => {
  if (text === undefined) return fallback;
  if (text === 'off' || text === 'none') return undefined;
  return num(name, text, { min: 0 });
};

const latencyOf = (values: { 'latency-mean'?: string | undefined; 'latency-sd'?: string | undefined }) => ({
  meanMs: num('latency-mean', values['latency-mean'], { min: 0 }) ?? DEFAULT_LATENCY.meanMs,
  sdMs: num('latency-sd', values['latency-sd'], { min: 0 }) ?? DEFAULT_LATENCY.sdMs,
});

const checkBaseCap = (base: number, cap: number): void => {
  if (cap < base) throw new UsageError(`--cap (${cap}) must not be smaller than --base (${base})`);
};

interface Outputs {
  readonly json?: string | undefined;
  readonly csv?: string | undefined;
  readonly out?: string | undefined;
}

const writeOutputs = async (
  io: CliIo,
  outputs: Outputs,
  json: () => string,
  csv: () => string,
  charts: () => Promise<Chart[]>,
): Promise<void> => {
  if (outputs.json) {
    await writeText(outputs.json, json());
    io.stdout.write(`wrote ${outputs.json}\n`);
  }
  if (outputs.csv) {
    await writeText(outputs.csv, csv());
    io.stdout.write(`wrote ${outputs.csv}\n`);
  }
  if (outputs.out) {
    for (const path of await writeCharts(outputs.out, await charts())) io.stdout.write(`wrote ${path}\n`);
  }
};

const seedLine = (seed: number, given: boolean): string =>
  given ? `seed ${seed}` : `seed ${seed} (random; repeat this run with --seed ${seed})`;

const occCommand = async (args: string[], io: CliIo): Promise<number> => {
  const { values } = parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: {
      ...COMMON_OPTIONS,
      clients: { type: 'string' },
      strategies: { type: 'string' },
      'hist-clients': { type: 'string' },
    },
  });
  if (values.help) {
    io.stdout.write(OCC_HELP);
    return 0;
  }
  const clients = values.clients === undefined ? OCC_DEFAULTS.clients : parseClients(values.clients);
  const strategies =
    list<OccStrategyName>('strategies', values.strategies, isOccStrategy, OCC_STRATEGIES) ??
    DEFAULT_OCC_STRATEGIES;
  const runs =
    num('runs', values.runs, { integer: true, positive: true, max: OCC_LIMITS.runs }) ?? OCC_DEFAULTS.runs;
  const baseMs = num('base', values.base, { min: 0 }) ?? OCC_DEFAULTS.baseMs;
  const capMs = num('cap', values.cap, { min: 0 }) ?? OCC_DEFAULTS.capMs;
  checkBaseCap(baseMs, capMs);
  const histogramClients =
    num('hist-clients', values['hist-clients'], { min: 0, integer: true, max: OCC_LIMITS.clients }) ??
    OCC_DEFAULTS.histogramClients;
  const latency = latencyOf(values);
  if (isInstant(latency)) {
    const stuck = strategies.filter((s) => occNeverSleeps(s, baseMs, capMs));
    if (stuck.length > 0) {
      throw new UsageError(
        `--latency-mean 0 with --latency-sd 0 lets no simulated time pass for ${stuck.join(', ')}, which never sleep${baseMs === 0 || capMs === 0 ? ' (--base or --cap is 0)' : ''}: the run would never end; give the network a latency or choose strategies that sleep`,
      );
    }
  }
  const { seed, given } = seedOf(values.seed);

  const progress = createProgress('occ', io.stderr);
  const started = performance.now();
  const result = runOcc({
    clients,
    strategies,
    runs,
    baseMs,
    capMs,
    latency,
    seed,
    histogramClients,
    onProgress: (done, total) => progress.update(done, total),
  });
  progress.done();
  const seconds = (performance.now() - started) / 1000;
  io.stdout.write(`${occTable(result)}\n\n`);
  io.stdout.write(
    `${strategies.length * clients.length * runs} runs in ${seconds.toFixed(2)} s · base ${baseMs} ms · cap ${capMs} ms · latency |N(${latency.meanMs}, ${latency.sdMs})| ms · ${seedLine(seed, given)}\n`,
  );
  await writeOutputs(
    io,
    values,
    () => occJson(result),
    () => occCsv(result),
    () => occCharts(result),
  );
  return 0;
};

const stormCommand = async (args: string[], io: CliIo): Promise<number> => {
  const { values } = parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: {
      ...COMMON_OPTIONS,
      policies: { type: 'string' },
      rate: { type: 'string' },
      capacity: { type: 'string' },
      duration: { type: 'string' },
      outage: { type: 'string' },
      'retry-after': { type: 'string' },
      'overload-retry-after': { type: 'string' },
      attempts: { type: 'string' },
      bin: { type: 'string' },
      'throttle-k': { type: 'string' },
      'throttle-window': { type: 'string' },
    },
  });
  if (values.help) {
    io.stdout.write(STORM_HELP);
    return 0;
  }
  const d = STORM_DEFAULTS;
  const policies =
    list<StormPolicyName>('policies', values.policies, isStormPolicy, STORM_POLICIES) ??
    DEFAULT_STORM_POLICIES;
  const durationSec = num('duration', values.duration, { positive: true }) ?? d.durationSec;
  let outageStartSec: number = d.outageStartSec;
  let outageEndSec: number = d.outageEndSec;
  if (values.outage !== undefined) {
    const parts = values.outage.split(':');
    if (parts.length !== 2)
      throw new UsageError(`--outage must be FROM:TO in seconds, got "${values.outage}"`);
    outageStartSec = num('outage', parts[0], { min: 0 })!;
    outageEndSec = num('outage', parts[1], { min: 0 })!;
  }
  if (!(outageStartSec <= outageEndSec && outageEndSec <= durationSec)) {
    throw new UsageError(
      `--outage ${outageStartSec}:${outageEndSec} must start before it ends and end within --duration (${durationSec} s)`,
    );
  }
  const baseMs = num('base', values.base, { min: 0 }) ?? d.baseMs;
  const capMs = num('cap', values.cap, { min: 0 }) ?? d.capMs;
  checkBaseCap(baseMs, capMs);
  const options = {
    policies,
    durationSec,
    outageStartSec,
    outageEndSec,
    baseMs,
    capMs,
    ratePerSec: num('rate', values.rate, { positive: true }) ?? d.ratePerSec,
    capacityPerSec: num('capacity', values.capacity, { positive: true }) ?? d.capacityPerSec,
    retryAfterSec: retryAfterOf('retry-after', values['retry-after'], d.retryAfterSec),
    overloadRetryAfterSec: retryAfterOf(
      'overload-retry-after',
      values['overload-retry-after'],
      d.overloadRetryAfterSec,
    ),
    maxAttempts:
      num('attempts', values.attempts, { integer: true, positive: true, max: STORM_LIMITS.maxAttempts }) ??
      d.maxAttempts,
    runs: num('runs', values.runs, { integer: true, positive: true, max: STORM_LIMITS.runs }) ?? d.runs,
    binMs: num('bin', values.bin, { positive: true }) ?? d.binMs,
    throttleK: num('throttle-k', values['throttle-k'], { min: 1 }) ?? d.throttleK,
    // The core's throttle takes a window of at least 1 ms.
    throttleWindowSec:
      num('throttle-window', values['throttle-window'], { min: 0.001 }) ?? d.throttleWindowSec,
    latency: latencyOf(values),
  };
  const problem = stormLimitProblem(options);
  if (problem) {
    const flags = problem.options.map((o) => `--${STORM_FLAGS[o] ?? o}`).join(' / ');
    throw new UsageError(`${flags}: ${problem.asked}, ${problem.limit}`);
  }
  const { seed, given } = seedOf(values.seed);
  const progress = createProgress('storm', io.stderr);
  const started = performance.now();
  const result = runStorm({ ...options, seed, onProgress: (done, total) => progress.update(done, total) });
  progress.done();
  const seconds = (performance.now() - started) / 1000;
  const s = result.settings;
  io.stdout.write(`${stormTable(result)}\n\n`);
  io.stdout.write(
    `${s.ratePerSec} req/s for ${s.durationSec} s · capacity ${s.capacityPerSec}/s · outage ${s.outageStartSec}-${s.outageEndSec} s · ` +
      `Retry-After ${s.retryAfterSec ?? 'off'} / ${s.overloadRetryAfterSec ?? 'off'} s · ${s.maxAttempts} attempts · ` +
      `base ${s.baseMs} ms · cap ${s.capMs} ms · ${policies.some(stormPolicyThrottles) ? `throttle K ${s.throttleK}, window ${s.throttleWindowSec} s · ` : ''}` +
      `${s.runs} runs in ${seconds.toFixed(2)} s · ${seedLine(seed, given)}\n`,
  );
  await writeOutputs(
    io,
    values,
    () => stormJson(result),
    () => stormCsv(result),
    () => stormCharts(result),
  );
  return 0;
};

const tailCommand = async (args: string[], io: CliIo): Promise<number> => {
  const { values } = parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: {
      ...SHARED_OPTIONS,
      variants: { type: 'string' },
      loads: { type: 'string' },
      requests: { type: 'string' },
      workers: { type: 'string' },
      delay: { type: 'string' },
      'hedge-ratio': { type: 'string' },
      'hedge-burst': { type: 'string' },
      window: { type: 'string' },
      slow: { type: 'string' },
      'slow-ms': { type: 'string' },
      'fast-median': { type: 'string' },
      'fast-sigma': { type: 'string' },
    },
  });
  if (values.help) {
    io.stdout.write(TAIL_HELP);
    return 0;
  }
  const d = TAIL_DEFAULTS;
  const sd = DEFAULT_SERVICE_TIME;
  const variants =
    list<TailVariantName>('variants', values.variants, isTailVariant, TAIL_VARIANTS) ?? TAIL_VARIANTS;
  const loads = values.loads === undefined ? d.loads : parseLoads(values.loads);
  let window: TailWindowFeed = d.windowFeed;
  if (values.window !== undefined) {
    if (!isTailWindowFeed(values.window))
      throw new UsageError(`--window must be one of ${TAIL_WINDOW_FEEDS.join(', ')}, got "${values.window}"`);
    window = values.window;
  }
  let slowMinMs = sd.slowMinMs;
  let slowMaxMs = sd.slowMaxMs;
  if (values['slow-ms'] !== undefined) {
    const parts = values['slow-ms'].split(':');
    if (parts.length !== 2)
      throw new UsageError(`--slow-ms must be MIN:MAX in ms, got "${values['slow-ms']}"`);
    slowMinMs = num('slow-ms', parts[0], { min: 0 })!;
    slowMaxMs = num('slow-ms', parts[1], { min: 0 })!;
    if (slowMaxMs < slowMinMs)
      throw new UsageError(`--slow-ms must not end before it starts, got "${values['slow-ms']}"`);
  }
  const hedgeBurst = num('hedge-burst', values['hedge-burst'], { min: 1, max: TAIL_LIMITS.hedgeBurst });
  const options = {
    variants,
    loads,
    requests:
      num('requests', values.requests, { integer: true, positive: true, max: TAIL_LIMITS.requests }) ??
      d.requests,
    runs: num('runs', values.runs, { integer: true, positive: true, max: TAIL_LIMITS.runs }) ?? d.runs,
    workers:
      num('workers', values.workers, { integer: true, positive: true, max: TAIL_LIMITS.workers }) ??
      d.workers,
    delayMs: num('delay', values.delay, { min: 0 }) ?? d.delayMs,
    hedgeRatio: num('hedge-ratio', values['hedge-ratio'], { min: 0, max: 1 }) ?? d.hedgeRatio,
    ...(hedgeBurst === undefined ? {} : { hedgeBurst }),
    windowFeed: window,
    service: {
      fastMedianMs: num('fast-median', values['fast-median'], { positive: true }) ?? sd.fastMedianMs,
      fastSigma: num('fast-sigma', values['fast-sigma'], { min: 0, max: 3 }) ?? sd.fastSigma,
      slowShare: num('slow', values.slow, { min: 0, max: 0.999_999 }) ?? sd.slowShare,
      slowMinMs,
      slowMaxMs,
    },
    latency: {
      meanMs: num('latency-mean', values['latency-mean'], { min: 0 }) ?? d.latency.meanMs,
      sdMs: num('latency-sd', values['latency-sd'], { min: 0 }) ?? d.latency.sdMs,
    },
  };
  const problem = tailLimitProblem(options);
  if (problem) {
    const flags = problem.options.map((o) => `--${TAIL_FLAGS[o] ?? o}`).join(' / ');
    throw new UsageError(`${flags}: ${problem.message}`);
  }
  const { seed, given } = seedOf(values.seed);
  const progress = createProgress('tail', io.stderr);
  const started = performance.now();
  const result = runTail({ ...options, seed, onProgress: (done, total) => progress.update(done, total) });
  progress.done();
  const seconds = (performance.now() - started) / 1000;
  const s = result.settings;
  io.stdout.write(`${tailTable(result)}\n\n`);
  io.stdout.write(
    `capacity ${s.capacityPerSec.toFixed(0)} req/s (${s.workers} workers, mean service ${s.meanServiceMs.toFixed(1)} ms) · ` +
      `${100 * s.service.slowShare}% slow ${s.service.slowMinMs}-${s.service.slowMaxMs} ms · fixed delay ${s.delayMs} ms · ` +
      `hedge budget ratio ${s.hedgeRatio}, ${s.hedgeBurst === undefined ? "the core's (10 tokens)" : `${s.hedgeBurst} tokens deep`} · ` +
      `window fed ${s.windowFeed} · ${s.runs} × ${s.requests} requests per point in ${seconds.toFixed(2)} s · ${seedLine(seed, given)}\n`,
  );
  await writeOutputs(
    io,
    values,
    () => tailJson(result),
    () => tailCsv(result),
    () => tailCharts(result),
  );
  return 0;
};

/**
 * Runs `jitterbug-sim` with `argv` (without the node and script paths).
 *
 * @returns the exit code: 0 on success, 2 on a bad command line, 1 on any other failure.
 */
export const runCli = async (
  argv: readonly string[],
  io: CliIo = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> => {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'occ':
        return await occCommand(rest, io);
      case 'storm':
        return await stormCommand(rest, io);
      case 'tail':
        return await tailCommand(rest, io);
      case undefined:
      case '-h':
      case '--help':
      case 'help':
        io.stdout.write(MAIN_HELP);
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(`unknown command "${command}"; the commands are occ, storm and tail`);
    }
  } catch (error) {
    const usage =
      error instanceof UsageError ||
      (error instanceof Error && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'));
    if (usage) {
      const hint =
        command === 'occ' || command === 'storm' || command === 'tail'
          ? `jitterbug-sim ${command} --help`
          : 'jitterbug-sim --help';
      io.stderr.write(`jitterbug-sim: ${(error as Error).message}\nRun "${hint}" for usage.\n`);
      return 2;
    }
    io.stderr.write(
      `jitterbug-sim: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 1;
  }
};
