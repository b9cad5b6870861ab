/**
 * The `jitterbug-sim` command line: one flag table per experiment (see `flags.ts`), what each
 * command checks across its flags, and what it prints and writes. `runCli` returns the exit code
 * instead of exiting, so tests can call it in-process; `cli.ts` is the thin executable.
 */
import { DEFAULT_THROTTLE } from '@jitterbug/core';
import { type Chart, fleetCharts, occCharts, stormCharts, tailCharts, writeCharts } from './charts.ts';
import {
  atLeast,
  between,
  count,
  type FlagTable,
  type FlagValues,
  flag,
  flagHelp,
  names,
  number,
  oneOf,
  pair,
  parseFlags,
  path,
  positive,
  secondsOrOff,
  sweep,
  UsageError,
} from './flags.ts';
import {
  FLEET_DEFAULTS,
  FLEET_LIMITS,
  FLEET_SCENARIOS,
  fleetCsv,
  fleetJson,
  fleetTable,
  runFleet,
} from './fleet.ts';
import {
  HERD_CLIENTS,
  HERD_DEFAULTS,
  HERD_LIMITS,
  HERD_SERVERS,
  herdCsv,
  herdJson,
  herdTable,
  runHerd,
} from './herd.ts';
import { DEFAULT_LATENCY, type LatencyModel } from './normal.ts';
import {
  DEFAULT_OCC_STRATEGIES,
  isInstant,
  OCC_DEFAULTS,
  OCC_LIMITS,
  OCC_STRATEGIES,
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
import {
  PACING_CLIENTS,
  PACING_DEFAULTS,
  PACING_LIMITS,
  PACING_SERVERS,
  pacingCsv,
  pacingJson,
  pacingTable,
  runPacing,
} from './pacing.ts';
import { createProgress, type ProgressStream } from './progress.ts';
import { randomSeed } from './seeds.ts';
import { DEFAULT_SERVICE_TIME } from './service-time.ts';
import {
  DEFAULT_STORM_POLICIES,
  runStorm,
  STORM_DEFAULTS,
  STORM_LIMITS,
  STORM_POLICIES,
  stormLimitProblem,
  stormPolicyThrottles,
} from './storm.ts';
import { runTail } from './tail.ts';
import {
  TAIL_DEFAULTS,
  TAIL_LIMITS,
  TAIL_VARIANTS,
  TAIL_WINDOW_FEEDS,
  tailLimitProblem,
} from './tail-options.ts';

export { UsageError } from './flags.ts';

/** Where the command writes. */
export interface CliIo {
  /** Where the results go. */
  readonly stdout: {
    /** Writes text as it is. */
    write(text: string): unknown;
  };
  /** Where errors and the progress bar go. */
  readonly stderr: ProgressStream;
}

/** The rows every command ends with: the seed and the files it writes. */
const OUTPUT_FLAGS = {
  seed: flag(
    'seed',
    { ...number({ integer: true, min: 0, max: Number.MAX_SAFE_INTEGER }), limits: '' },
    undefined,
    'base seed (integer); the same seed gives the same numbers',
    { shown: 'a new random seed, printed so that the run can be repeated' },
  ),
  json: flag('json', path(false), undefined, 'write the results as JSON'),
  csv: flag('csv', path(false), undefined, 'write the results as CSV'),
  out: flag('out', path(true), undefined, 'write SVG charts into DIR'),
};

const MS = atLeast(0, 'MS');
const CORE = { note: "the core's" };

/** The rows of the network's latency, whose defaults differ by experiment. */
const latencyFlags = (latency: LatencyModel, sdNote?: string) => ({
  latencyMeanMs: flag('latency-mean', MS, latency.meanMs, "mean of each message's delay |Normal(mean, sd)|"),
  latencySdMs: flag('latency-sd', MS, latency.sdMs, 'its standard deviation', { note: sdNote }),
});

/** The rows of the backoff, in the commands that back off. */
const backoffFlags = (base: number, cap: number, note?: string) => ({
  baseMs: flag('base', MS, base, 'backoff base', { note }),
  capMs: flag('cap', MS, cap, 'backoff cap', { note }),
});

const checkBaseCap = (v: { readonly baseMs: number; readonly capMs: number }): void => {
  if (v.capMs < v.baseMs)
    throw new UsageError(`--cap (${v.capMs}) must not be smaller than --base (${v.baseMs})`);
};

/** The flags behind option names in a limit problem: `['ratePerSec', 'durationSec']` → `--rate / --duration`. */
const flagsOf = (table: FlagTable, options: readonly string[]): string =>
  options.map((o) => `--${table[o]?.name ?? o}`).join(' / ');

/** What a command prints and writes from its experiment's result. */
interface Report<R> {
  readonly table: (result: R) => string;
  /** The line of settings under the table, before the seed. */
  readonly settings: (result: R, seconds: number) => string;
  readonly json: (result: R) => string;
  readonly csv: (result: R) => string;
  readonly charts: (result: R) => Promise<Chart[]>;
}

type OutputValues = FlagValues<typeof OUTPUT_FLAGS>;

/** Runs an experiment with a progress bar, then prints its table and settings and writes its files. */
const runExperiment = async <R>(
  name: string,
  io: CliIo,
  given: OutputValues,
  run: (seed: number, onProgress: (done: number, total: number) => void) => R | Promise<R>,
  report: Report<R>,
): Promise<void> => {
  const seed = given.seed ?? randomSeed();
  const progress = createProgress(name, io.stderr);
  const started = performance.now();
  const result = await run(seed, (done, total) => progress.update(done, total));
  progress.done();
  const seconds = (performance.now() - started) / 1000;
  const seedText =
    given.seed === undefined ? `seed ${seed} (random; repeat this run with --seed ${seed})` : `seed ${seed}`;
  io.stdout.write(`${report.table(result)}\n\n${report.settings(result, seconds)} · ${seedText}\n`);
  for (const [file, text] of [
    [given.json, report.json],
    [given.csv, report.csv],
  ] as const) {
    if (file === undefined) continue;
    await writeText(file, text(result));
    io.stdout.write(`wrote ${file}\n`);
  }
  if (given.out === undefined) return;
  for (const file of await writeCharts(given.out, await report.charts(result)))
    io.stdout.write(`wrote ${file}\n`);
};

/** A command: its line in the main help, its own help, and how it runs. */
interface Command {
  readonly summary: string;
  readonly help: string;
  readonly run: (args: readonly string[], io: CliIo) => Promise<void>;
}

const command = <T extends FlagTable>(
  name: string,
  spec: {
    readonly summary: string;
    readonly about: string;
    readonly flags: T;
    readonly examples: readonly string[];
    readonly run: (values: FlagValues<T>, io: CliIo) => Promise<void>;
  },
): Command => {
  const examples = spec.examples.map((e) => `  jitterbug-sim ${name}${e}`).join('\n');
  const help = `Usage: jitterbug-sim ${name} [options]\n\n${spec.about}\n\nOptions:\n${flagHelp(spec.flags)}\n\nExamples:\n${examples}\n`;
  return {
    summary: spec.summary,
    help,
    run: async (args, io) => {
      const values = parseFlags(spec.flags, args);
      if (values === undefined) io.stdout.write(help);
      else await spec.run(values, io);
    },
  };
};

const od = OCC_DEFAULTS;
const isClients = (n: number): boolean => Number.isInteger(n) && n >= 1 && n <= OCC_LIMITS.clients;

const OCC_FLAGS = {
  clients: flag(
    'clients',
    sweep(isClients, `whole numbers from 1 to ${OCC_LIMITS.clients}`, '10,50,100'),
    od.clients,
    'client counts: FROM:TO:STEP, a list 10,50,100, or one number',
    { shown: `${od.clients[0]}:${od.clients.at(-1)}:10` },
  ),
  strategies: flag(
    'strategies',
    names(OCC_STRATEGIES),
    DEFAULT_OCC_STRATEGIES,
    'comma-separated ("none" retries at once)',
  ),
  runs: flag('runs', count(OCC_LIMITS.runs), od.runs, 'runs per point'),
  histogramClients: flag(
    'hist-clients',
    number({ integer: true, min: 0, max: OCC_LIMITS.clients }),
    od.histogramClients,
    'client count of the write-time histograms, 0 for none',
  ),
  ...backoffFlags(od.baseMs, od.capMs),
  ...latencyFlags(DEFAULT_LATENCY, "Brooker's article used 4"),
  ...OUTPUT_FLAGS,
};

const occ = command('occ', {
  summary: "Marc Brooker's optimistic-concurrency contention experiment: N clients update one row",
  about: `N clients each update one database row once under optimistic concurrency control (read the
version, write if it is unchanged, back off and retry on conflict). Measures the writes the server
receives ("calls") and the time until the last client has written, averaged over runs.`,
  flags: OCC_FLAGS,
  examples: [
    '                                    # the full sweep, table on stdout',
    ' --seed 42 --out out/occ --json out/occ/points.json',
    ' --clients 100 --strategies full,equal,decorrelated --runs 1000',
    ' --clients 10,50,100 --latency-sd 4 --csv occ.csv',
  ],
  run: (v, io) => {
    checkBaseCap(v);
    const latency = { meanMs: v.latencyMeanMs, sdMs: v.latencySdMs };
    const stuck = v.strategies.filter((s) => occNeverSleeps(s, v.baseMs, v.capMs));
    if (isInstant(latency) && stuck.length > 0) {
      throw new UsageError(
        `--latency-mean 0 with --latency-sd 0 lets no simulated time pass for ${stuck.join(', ')}, which never sleep${v.baseMs === 0 || v.capMs === 0 ? ' (--base or --cap is 0)' : ''}: the run would never end; give the network a latency or choose strategies that sleep`,
      );
    }
    const { clients, strategies, runs, baseMs, capMs, histogramClients } = v;
    return runExperiment(
      'occ',
      io,
      v,
      (seed, onProgress) =>
        runOcc({ clients, strategies, runs, baseMs, capMs, latency, seed, histogramClients, onProgress }),
      {
        table: occTable,
        settings: (_, seconds) =>
          `${strategies.length * clients.length * runs} runs in ${seconds.toFixed(2)} s · base ${baseMs} ms · cap ${capMs} ms · latency |N(${latency.meanMs}, ${latency.sdMs})| ms`,
        json: occJson,
        csv: occCsv,
        charts: occCharts,
      },
    );
  },
});

const sd = STORM_DEFAULTS;

/** Keyed by the {@link StormOptions} each row sets, so that a new option takes only its row. */
const STORM_FLAGS = {
  policies: flag('policies', names(STORM_POLICIES), DEFAULT_STORM_POLICIES, 'comma-separated', {
    shown: 'all but naive-constant',
  }),
  ratePerSec: flag('rate', positive(), sd.ratePerSec, 'new requests per second'),
  capacityPerSec: flag('capacity', positive(), sd.capacityPerSec, 'attempts per second the server can serve'),
  durationSec: flag('duration', positive('S'), sd.durationSec, 'seconds during which requests start'),
  outage: flag(
    'outage',
    pair('FROM:TO', 'seconds'),
    [sd.outageStartSec, sd.outageEndSec],
    'the outage, in seconds',
  ),
  retryAfterSec: flag('retry-after', secondsOrOff, sd.retryAfterSec, "Retry-After on the outage's 503s"),
  overloadRetryAfterSec: flag(
    'overload-retry-after',
    secondsOrOff,
    sd.overloadRetryAfterSec,
    'Retry-After on load-shedding 503s',
  ),
  maxAttempts: flag(
    'attempts',
    count(STORM_LIMITS.maxAttempts),
    sd.maxAttempts,
    'attempts per request, counting the first',
  ),
  throttleK: flag('throttle-k', atLeast(1, 'K'), sd.throttleK, "the adaptive throttle's K", CORE),
  // The core's throttle takes a window of at least 1 ms.
  throttleWindowSec: flag(
    'throttle-window',
    atLeast(0.001, 'S'),
    sd.throttleWindowSec,
    'its sliding window in seconds, which starts full of healthy traffic',
    { note: `scaled to the outage; the core's is ${DEFAULT_THROTTLE.windowMs / 1000}` },
  ),
  runs: flag('runs', count(STORM_LIMITS.runs), sd.runs, 'runs per policy, averaged'),
  binMs: flag('bin', positive('MS'), sd.binMs, 'timeline bin width'),
  ...backoffFlags(sd.baseMs, sd.capMs, "the core's"),
  ...latencyFlags(DEFAULT_LATENCY, "Brooker's article used 4"),
  ...OUTPUT_FLAGS,
};

const storm = command('storm', {
  summary: 'retries during an outage: load amplification, goodput and recovery per retry policy',
  about: `Open-loop clients send requests at a steady rate (Poisson) to a server that serves at most
--capacity attempts per second. During the outage every attempt fails with 503 (with Retry-After
if set); afterwards load above capacity is shed with 503. Each policy is a real jitterbug
RetryPolicy driven in virtual time; the *throttle policies add the core's adaptive client-side
throttle (Google SRE book), which refuses requests locally, before sending.`,
  flags: STORM_FLAGS,
  examples: [
    ' --seed 1 --out out/storm',
    ' --attempts 5 --base 1000 --retry-after off',
    ' --policies none,naive-full,budget --capacity 150 --csv storm.csv',
    ' --policies budget,budget+throttle --throttle-window 120',
  ],
  run: (v, io) => {
    const { outage, latencyMeanMs, latencySdMs, seed, json, csv, out, ...rest } = v;
    const [outageStartSec, outageEndSec] = outage;
    if (!(outageStartSec <= outageEndSec && outageEndSec <= rest.durationSec)) {
      throw new UsageError(
        `--outage ${outageStartSec}:${outageEndSec} must start before it ends and end within --duration (${rest.durationSec} s)`,
      );
    }
    checkBaseCap(rest);
    const latency = { meanMs: latencyMeanMs, sdMs: latencySdMs };
    const options = { ...rest, outageStartSec, outageEndSec, latency };
    const problem = stormLimitProblem(options);
    if (problem)
      throw new UsageError(`${flagsOf(STORM_FLAGS, problem.options)}: ${problem.asked}, ${problem.limit}`);
    return runExperiment('storm', io, v, (seed, onProgress) => runStorm({ ...options, seed, onProgress }), {
      table: stormTable,
      settings: ({ settings: s }, seconds) =>
        `${s.ratePerSec} req/s for ${s.durationSec} s · capacity ${s.capacityPerSec}/s · outage ${s.outageStartSec}-${s.outageEndSec} s · ` +
        `Retry-After ${s.retryAfterSec ?? 'off'} / ${s.overloadRetryAfterSec ?? 'off'} s · ${s.maxAttempts} attempts · ` +
        `base ${s.baseMs} ms · cap ${s.capMs} ms · ${rest.policies.some(stormPolicyThrottles) ? `throttle K ${s.throttleK}, window ${s.throttleWindowSec} s · ` : ''}` +
        `${s.runs} runs in ${seconds.toFixed(2)} s`,
      json: stormJson,
      csv: stormCsv,
      charts: stormCharts,
    });
  },
});

const td = TAIL_DEFAULTS;
const sv = DEFAULT_SERVICE_TIME;
const isLoad = (x: number): boolean => x > 0 && x <= TAIL_LIMITS.load;

/** Keyed by the {@link TailOptions} each row sets, or by the service time's setting. */
const TAIL_FLAGS = {
  variants: flag('variants', names(TAIL_VARIANTS), TAIL_VARIANTS, 'comma-separated', { shown: 'all' }),
  loads: flag(
    'loads',
    sweep(isLoad, `numbers above 0 and at most ${TAIL_LIMITS.load}`, '0.3,0.5,0.9', TAIL_LIMITS.loads),
    td.loads,
    `offered loads, shares of capacity without hedging: FROM:TO:STEP, a list 0.3,0.5,0.9, or one number; each above 0 and at most ${TAIL_LIMITS.load}`,
    { shown: `${td.loads[0]}:${td.loads.at(-1)}:0.1` },
  ),
  requests: flag('requests', count(TAIL_LIMITS.requests), td.requests, 'requests per run'),
  runs: flag('runs', count(TAIL_LIMITS.runs), td.runs, 'runs per point; their latencies are pooled'),
  workers: flag('workers', count(TAIL_LIMITS.workers), td.workers, 'requests the server works on at once'),
  delayMs: flag('delay', MS, td.delayMs, "the fixed variants' hedge delay", { note: "BigTable's" }),
  hedgeRatio: flag('hedge-ratio', between(0, 1, 'R'), td.hedgeRatio, "the hedge budget's ratio", CORE),
  hedgeBurst: flag(
    'hedge-burst',
    between(1, TAIL_LIMITS.hedgeBurst),
    undefined,
    "give the +budget variants a hedge budget N tokens deep instead of the core's, to measure another depth",
    { shown: "the core's, which holds ten" },
  ),
  windowFeed: flag(
    'window',
    oneOf(TAIL_WINDOW_FEEDS, 'FEED'),
    td.windowFeed,
    "what the p95 variants' latency window is fed: winner (the answering copy's own time, as the engines did) or request (the request's whole time, hedge delay included, as the engines do)",
  ),
  slowShare: flag('slow', between(0, 0.999_999, 'SHARE'), sv.slowShare, 'share of copies in the slow mode'),
  slowMs: flag(
    'slow-ms',
    pair('MIN:MAX', 'ms', true),
    [sv.slowMinMs, sv.slowMaxMs],
    'the slow mode, uniform',
  ),
  fastMedianMs: flag('fast-median', positive('MS'), sv.fastMedianMs, "the fast mode's median"),
  fastSigma: flag('fast-sigma', between(0, 3, 'S'), sv.fastSigma, "the fast mode's log-normal σ"),
  ...latencyFlags(td.latency),
  ...OUTPUT_FLAGS,
};

const tail = command('tail', {
  summary: 'hedged requests against a server with a slow tail, under increasing load',
  about: `Open-loop clients send requests (Poisson) at a share of a server's capacity ("load"). The server
is a FIFO queue in front of --workers workers; each copy of a request takes a service time from a
mixture: most are fast (log-normal), a few hit a slow mode. A hedged copy takes a worker like any
request, and the server serves every copy it gets, so hedges cost capacity. Each variant is a real
jitterbug RetryPolicy with the core's hedge option, driven in virtual time. Prints p50/p99/p99.9
latency and the extra load the hedges added, per variant and load.

Variants: ${TAIL_VARIANTS.join(', ')}
  fixed: a second copy after --delay ms; p95: after the p95 of the core's latency window;
  +budget: within the core's hedge budget (ratio --hedge-ratio, ten tokens held)`,
  flags: TAIL_FLAGS,
  examples: [
    ' --seed 1 --out out/tail',
    ' --loads 0.5,0.9 --variants none,fixed,fixed+budget',
    ' --variants p95+budget --hedge-burst 10 --window request --csv tail.csv',
  ],
  run: (v, io) => {
    const { seed, json, csv, out, latencyMeanMs, latencySdMs, ...settings } = v;
    const { slowShare, slowMs, fastMedianMs, fastSigma, ...rest } = settings;
    const options = {
      ...rest,
      service: { fastMedianMs, fastSigma, slowShare, slowMinMs: slowMs[0], slowMaxMs: slowMs[1] },
      latency: { meanMs: latencyMeanMs, sdMs: latencySdMs },
    };
    const problem = tailLimitProblem(options);
    if (problem) throw new UsageError(`${flagsOf(TAIL_FLAGS, problem.options)}: ${problem.message}`);
    return runExperiment('tail', io, v, (seed, onProgress) => runTail({ ...options, seed, onProgress }), {
      table: tailTable,
      settings: ({ settings: s }, seconds) =>
        `capacity ${s.capacityPerSec.toFixed(0)} req/s (${s.workers} workers, mean service ${s.meanServiceMs.toFixed(1)} ms) · ` +
        `${100 * s.service.slowShare}% slow ${s.service.slowMinMs}-${s.service.slowMaxMs} ms · fixed delay ${s.delayMs} ms · ` +
        `hedge budget ratio ${s.hedgeRatio}, ${s.hedgeBurst === undefined ? "the core's (10 tokens)" : `${s.hedgeBurst} tokens deep`} · ` +
        `window fed ${s.windowFeed} · ${s.runs} × ${s.requests} requests per point in ${seconds.toFixed(2)} s`,
      json: tailJson,
      csv: tailCsv,
      charts: tailCharts,
    });
  },
});

const pd = PACING_DEFAULTS;
const { out: _noCharts, ...PACING_OUTPUT } = OUTPUT_FLAGS;

/** Keyed by the {@link PacingOptions} each row sets (it writes no charts). */
const PACING_FLAGS = {
  servers: flag('servers', names(PACING_SERVERS), PACING_SERVERS, 'comma-separated', { shown: 'all' }),
  clients: flag('clients', names(PACING_CLIENTS), PACING_CLIENTS, 'comma-separated', { shown: 'all' }),
  limitPerSec: flag('limit', positive(), pd.limitPerSec, "the server's rate limit, requests per second", {
    note: "nginx's rate=20r/s",
  }),
  burst: flag(
    'burst',
    number({ integer: true, min: 0, max: 1_000_000 }),
    pd.burst,
    "limit-req's burst (nodelay)",
  ),
  retryAfterSec: flag('retry-after', positive('S'), pd.retryAfterSec, "limit-req's Retry-After on a 429"),
  windowSec: flag(
    'window',
    count(86_400),
    pd.windowSec,
    "quota's window in whole seconds (its quota: limit × window)",
  ),
  load: flag('load', positive('X'), pd.load, 'offered load, a multiple of the limit (Poisson arrivals)'),
  durationSec: flag('duration', positive('S'), pd.durationSec, 'seconds during which requests start'),
  maxAttempts: flag(
    'attempts',
    count(PACING_LIMITS.maxAttempts),
    pd.maxAttempts,
    'attempts per request, counting the first',
    CORE,
  ),
  runs: flag('runs', count(PACING_LIMITS.runs), pd.runs, 'runs per server and client, averaged'),
  ...latencyFlags(DEFAULT_LATENCY),
  ...PACING_OUTPUT,
};

const pacing = command('pacing', {
  summary: "a sustained load above a server's rate limit: per-request Retry-After, the defaults, the pacer",
  about: `Open-loop clients send requests (Poisson) at --load times a server's rate limit for --duration
seconds. limit-req is nginx's limit_req with nodelay and a fixed Retry-After on its 429s (a leaky
bucket: --limit per second, --burst); quota is an API with fixed windows of --window seconds that
advertises its quota on every answer (RateLimit-Policy and RateLimit, the IETF draft's structured
fields) and answers 429 with Retry-After past it. Each client is a real jitterbug RetryPolicy driven
in virtual time: retry-after honours each request's own Retry-After (herd: false, the defaults
before the herd line), defaults is the core's defaults (the herd line), pacer adds pacer:
createPacer(), aws-adaptive models the AWS SDK's adaptive retry mode. Prints the 429s each server answered, those after its first
--window seconds, the requests that failed, and their latency.`,
  flags: PACING_FLAGS,
  examples: [
    ' --seed 1',
    ' --servers limit-req --load 5 --runs 20',
    ' --limit 100 --burst 0 --csv pacing.csv',
  ],
  run: (v, io) => {
    const { seed, json, csv, latencyMeanMs, latencySdMs, ...rest } = v;
    if (!(rest.limitPerSec * rest.load * rest.durationSec <= PACING_LIMITS.requests)) {
      throw new UsageError(
        `--limit / --load / --duration: ${rest.limitPerSec * rest.load * rest.durationSec} requests per run, at most ${PACING_LIMITS.requests}`,
      );
    }
    const options = { ...rest, latency: { meanMs: latencyMeanMs, sdMs: latencySdMs } };
    return runExperiment(
      'pacing',
      io,
      { ...v, out: undefined },
      (seed, onProgress) => runPacing({ ...options, seed, onProgress }),
      {
        table: pacingTable,
        settings: ({ settings: s }, seconds) =>
          `${s.load} × ${s.limitPerSec} req/s for ${s.durationSec} s · limit-req burst ${s.burst}, Retry-After ${s.retryAfterSec} s · ` +
          `quota ${s.limitPerSec * s.windowSec} per ${s.windowSec} s · ${s.maxAttempts} attempts · ${s.runs} runs in ${seconds.toFixed(2)} s`,
        json: pacingJson,
        csv: pacingCsv,
        charts: async () => [],
      },
    );
  },
});

const hd = HERD_DEFAULTS;

/** Keyed by the {@link HerdOptions} each row sets (it writes no charts). */
const HERD_FLAGS = {
  servers: flag('servers', names(HERD_SERVERS), HERD_SERVERS, 'comma-separated', { shown: 'all' }),
  clients: flag('clients', names(HERD_CLIENTS), HERD_CLIENTS, 'comma-separated', { shown: 'all' }),
  requests: flag('requests', count(HERD_LIMITS.requests), hd.requests, 'requests sent at once'),
  limitPerSec: flag('limit', positive(), hd.limitPerSec, "the limit's rate, requests per second"),
  burst: flag('burst', count(1_000_000), hd.burst, "the limit's burst"),
  retryAfterSec: flag('retry-after', count(86_400), hd.retryAfterSec, 'the seconds a 429 says to wait'),
  deadlineMs: flag(
    'deadline',
    secondsOrOff,
    undefined,
    "each request's deadline in seconds (ky's timeout: 10)",
    {
      shown: 'off',
    },
  ),
  maxAttempts: flag(
    'attempts',
    count(HERD_LIMITS.maxAttempts),
    hd.maxAttempts,
    'attempts per request, counting the first',
    CORE,
  ),
  runs: flag('runs', count(HERD_LIMITS.runs), hd.runs, 'runs per server and client, averaged'),
  ...latencyFlags(DEFAULT_LATENCY),
  ...PACING_OUTPUT,
};

const herd = command('herd', {
  summary: 'many requests at once against a rate limit: per-request Retry-After, the defaults, the pacer',
  about: `--requests GETs go at once to one origin whose rate limit lets --limit a second through with a
burst of --burst and refuses the rest with 429. bucket is a token bucket that says Retry-After;
bucket-fields the same saying only RateLimit/RateLimit-Policy (r=0;t=…); limit-req is nginx's
limit_req with nodelay. Each client is a real jitterbug RetryPolicy driven in virtual time:
retry-after retries each 429 at its own Retry-After (herd: false, the defaults before the herd
line), defaults is the core's defaults (the herd line), pacer adds pacer: createPacer(). Prints the
requests that ended 200, the 429s in all and after the first wave (those the herd caused), and when
the last request ended; means over runs, the worst run in brackets.`,
  flags: HERD_FLAGS,
  examples: [
    ' --seed 1',
    ' --requests 100 --limit 20 --burst 10 --deadline 10',
    ' --servers limit-req --csv herd.csv',
  ],
  run: (v, io) => {
    const { seed, json, csv, latencyMeanMs, latencySdMs, deadlineMs, ...rest } = v;
    const options = {
      ...rest,
      deadlineMs: deadlineMs === undefined ? undefined : deadlineMs * 1000,
      latency: { meanMs: latencyMeanMs, sdMs: latencySdMs },
    };
    return runExperiment(
      'herd',
      io,
      { ...v, out: undefined },
      (seed, onProgress) => runHerd({ ...options, seed, onProgress }),
      {
        table: herdTable,
        settings: ({ settings: s }, seconds) =>
          `${s.requests} requests at once · ${s.limitPerSec} req/s, burst ${s.burst}, Retry-After ${s.retryAfterSec} s · ` +
          `${s.maxAttempts} attempts · deadline ${s.deadlineMs === undefined ? 'none' : `${s.deadlineMs / 1000} s`} · ` +
          `${s.runs} runs in ${seconds.toFixed(2)} s`,
        json: herdJson,
        csv: herdCsv,
        charts: async () => [],
      },
    );
  },
});

const fd = FLEET_DEFAULTS;

/** Keyed by the {@link FleetOptions} each row sets. */
const FLEET_FLAGS = {
  scenarios: flag('scenarios', names(FLEET_SCENARIOS), FLEET_SCENARIOS, 'comma-separated', { shown: 'all' }),
  processes: flag(
    'processes',
    number({ integer: true, min: 2, max: FLEET_LIMITS.processes }),
    fd.processes,
    'processes',
  ),
  requests: flag('requests', count(FLEET_LIMITS.requests), fd.requests, 'outage: GETs per process'),
  limitPerSec: flag(
    'limit',
    positive(),
    fd.limitPerSec,
    "pacer: the limit's rate (and burst), requests per second",
  ),
  lateStartMs: flag('late-start', positive('MS'), fd.lateStartMs, 'pacer: when the late processes start, ms'),
  downMs: flag('down', positive('MS'), fd.downMs, 'breaker: how long the origin is down, ms'),
  breakMs: flag('break', positive('MS'), fd.breakMs, "breaker: the circuit's break, ms"),
  runs: flag('runs', count(FLEET_LIMITS.runs), fd.runs, 'runs per scenario and mode, averaged'),
  ...latencyFlags(DEFAULT_LATENCY),
  ...OUTPUT_FLAGS,
};

const fleet = command('fleet', {
  summary: "several processes: each one's budget, pacer and breaker, or the fleet's over one store",
  about: `--processes processes, each a real jitterbug RetryPolicy driven in virtual time, against one
origin: once with the core's local retry budget, pacer or circuit breaker in each (local), once with
the fleet's from @jitterbug/core/store over one in-memory store, which stands for Redis (shared).
outage: an origin that answers 503, --requests GETs per process one after another (the requests the
origin received). pacer: a token bucket of --limit a second with Retry-After: 1; one process sends
20 at once, the others 15 at once each from --late-start (the 429s the late ones met). breaker: an
origin down for --down ms, then well; GETs one after another 50 ms apart, one attempt each, a break
of --break ms (the requests that reached the origin while every circuit had opened, the probes per
half-open period, how long after the return every process had a 200). Means over runs, the worst run
in brackets.`,
  flags: FLEET_FLAGS,
  examples: [' --seed 1', ' --processes 8 --runs 10', ' --scenarios breaker --down 10000 --out out/sim'],
  run: (v, io) => {
    const { seed, json, csv, out, latencyMeanMs, latencySdMs, ...rest } = v;
    const options = { ...rest, latency: { meanMs: latencyMeanMs, sdMs: latencySdMs } };
    return runExperiment('fleet', io, v, (seed, onProgress) => runFleet({ ...options, seed, onProgress }), {
      table: fleetTable,
      settings: ({ settings: s }, seconds) =>
        `${s.processes} processes · outage ${s.requests} GETs each · pacer ${s.limitPerSec}/s, late start ${s.lateStartMs} ms · ` +
        `breaker down ${s.downMs} ms, break ${s.breakMs} ms · ${s.runs} runs in ${seconds.toFixed(2)} s`,
      json: fleetJson,
      csv: fleetCsv,
      charts: fleetCharts,
    });
  },
});

const COMMANDS: Readonly<Record<string, Command>> = { occ, storm, tail, pacing, herd, fleet };
const NAMES = Object.keys(COMMANDS);
const NAMED = `${NAMES.slice(0, -1).join(', ')} and ${NAMES.at(-1)}`;

const MAIN_HELP = `Usage: jitterbug-sim <command> [options]

Simulations run on jitterbug's own backoff and retry-budget code (@jitterbug/core).

Commands:
${NAMES.map((n) => `  ${n.padEnd(8)}${COMMANDS[n]!.summary}`).join('\n')}

Run "jitterbug-sim <command> --help" for the command's options.

Examples:
${NAMES.map((n) => `  jitterbug-sim ${n} --seed 1 --out out/sim`).join('\n')}
`;

/** Parses a client spec, `FROM:TO:STEP`, `a,b,c` or `n`, as `--clients` does. */
export const parseClients = (text: string): number[] => [...OCC_FLAGS.clients.parse('clients', text)];

/** Parses a load spec, `FROM:TO:STEP`, `a,b,c` or `n`, as `--loads` does. */
export const parseLoads = (text: string): number[] => [...TAIL_FLAGS.loads.parse('loads', text)];

/**
 * Runs `jitterbug-sim` with `argv` (without the node and script paths).
 *
 * @returns the exit code: 0 on success, 2 on a bad command line, 1 on any other failure.
 */
export const runCli = async (
  argv: readonly string[],
  io: CliIo = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> => {
  const [name, ...rest] = argv;
  const command = name !== undefined && Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  try {
    if (command) await command.run(rest, io);
    else if (name === '-h' || name === '--help' || name === 'help') io.stdout.write(MAIN_HELP);
    else if (name === undefined)
      throw new UsageError(`missing command. Usage: jitterbug-sim ${NAMES.join('|')} [options]`);
    else throw new UsageError(`unknown command "${name}"; the commands are ${NAMED}`);
    return 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const code = error instanceof Error && 'code' in error ? String(error.code) : '';
    if (error instanceof UsageError || code.startsWith('ERR_PARSE_ARGS')) {
      const hint = command ? `jitterbug-sim ${name} --help` : 'jitterbug-sim --help';
      io.stderr.write(`jitterbug-sim: ${message}\nRun "${hint}" for usage.\n`);
      return 2;
    }
    // A file that could not be written after all (a directory where a chart goes, a full disk):
    // the system's message names the path; a stack trace would add nothing.
    const stack = error instanceof Error && !('syscall' in error) ? error.stack : undefined;
    io.stderr.write(`jitterbug-sim: ${stack ?? message}\n`);
    return 1;
  }
};
