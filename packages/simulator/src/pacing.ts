/**
 * The pacing experiment: a sustained load above a server's rate limit, met by per-request
 * `Retry-After` (`herd: false`), by the core's defaults (the herd line) or by the core's origin-wide
 * pacer (`pacer: createPacer()`).
 *
 * Two servers:
 * - `limit-req`, modelled on nginx's `limit_req ... burst=B nodelay` with `limit_req_status 429` and a
 *   fixed `Retry-After` added to the refusals (the setup of issue 24): a leaky bucket that lets a
 *   request through when the excess it leaves is at most `burst` (nginx's
 *   `excess = max(0, excess − rate·elapsed + 1)`, kept only for requests it lets through), and
 *   refuses the others with 429. It advertises nothing.
 * - `quota`, an API that advertises its quota: fixed windows of `windowSec` holding
 *   `limitPerSec × windowSec` requests, every answer carrying `RateLimit-Policy` and `RateLimit`
 *   (draft-ietf-httpapi-ratelimit-headers, structured form, `t` rounded up to whole seconds), a
 *   request past the quota refused with 429 and `Retry-After` until the window ends.
 *
 * The clients are real `RetryPolicy`s of the core in virtual time: each request's attempt sequence
 * is driven as the storm drives it, told each answer and the end of each wait.
 */
import {
  createPacer,
  createRetryBudget,
  createRetryPolicy,
  type HeaderGetter,
  type RetryOptions,
  seededRandom,
} from '@jitterbug/core';
import type { RetryRun, Step } from '@jitterbug/core/adapter';
import { EventHeap } from './heap.ts';
import { createLatency, DEFAULT_LATENCY, type LatencyModel } from './normal.ts';
import { formatTable } from './output.ts';
import { createAdaptiveLimiterModel } from './pacing-aws.ts';
import { deriveSeed } from './seeds.ts';
import { runEachPair } from './server-client-runs.ts';
import { percentileOfSorted, type Summary, summarize } from './stats.ts';
import { arrivals } from './storm.ts';

/** The rate-limited servers. */
export const PACING_SERVERS = Object.freeze(['limit-req', 'quota'] as const);
export type PacingServerName = (typeof PACING_SERVERS)[number];

/**
 * The clients: per-request `Retry-After` (`herd: false`: the defaults before the herd line), the
 * core's defaults (the herd line), the defaults with the pacer, and a model of the AWS SDK's adaptive
 * retry mode (`pacing-aws.ts`), the anchor.
 */
export const PACING_CLIENTS = Object.freeze(['retry-after', 'defaults', 'pacer', 'aws-adaptive'] as const);
export type PacingClientName = (typeof PACING_CLIENTS)[number];

/** Options of the pacing experiment. */
export interface PacingOptions {
  /** Base seed; run `r` uses `deriveSeed(seed, r)`, the same arrivals for every client. */
  readonly seed: number;
  /** Runs per server and client. Default 10. */
  readonly runs?: number;
  readonly servers?: readonly PacingServerName[];
  readonly clients?: readonly PacingClientName[];
  /** The server's rate limit, requests per second. Default 20 (nginx's `rate=20r/s`). */
  readonly limitPerSec?: number;
  /** `limit-req`'s burst (`burst=10 nodelay`). Default 10. */
  readonly burst?: number;
  /** `limit-req`'s `Retry-After` on a 429, in seconds. Default 1. */
  readonly retryAfterSec?: number;
  /** `quota`'s window, in whole seconds. Default 2. */
  readonly windowSec?: number;
  /** Offered load as a multiple of the limit (Poisson arrivals). Default 2.5. */
  readonly load?: number;
  /** Seconds during which requests start. Default 10. */
  readonly durationSec?: number;
  /** Attempts per request, counting the first. Default 3 (the core's). */
  readonly maxAttempts?: number;
  /** Each message takes `|Normal(meanMs, sdMs)|`. Default 10, 2. */
  readonly latency?: LatencyModel;
  readonly onProgress?: (done: number, total: number) => void;
}

/** Defaults of {@link PacingOptions}. */
export const PACING_DEFAULTS = Object.freeze({
  runs: 10,
  limitPerSec: 20,
  burst: 10,
  retryAfterSec: 1,
  windowSec: 2,
  load: 2.5,
  durationSec: 10,
  maxAttempts: 3,
});

/** Bounds of the inputs, so that a typo is refused rather than run out of memory. */
export const PACING_LIMITS = Object.freeze({ requests: 1_000_000, runs: 10_000, maxAttempts: 1000 });

type ResolvedPacingOptions = Required<Omit<PacingOptions, 'onProgress'>>;

/** What one run of one client against one server measured. */
export interface PacingRunResult {
  readonly server: PacingServerName;
  readonly client: PacingClientName;
  readonly requests: number;
  /** Attempts that reached the server. */
  readonly attempts: number;
  /** 429s the server answered, in all and after its first window (`windowSec`). */
  readonly refused: number;
  readonly refusedAfterFirstWindow: number;
  /** Requests that did not end with a 200 (a 429 handed over, a wait refused). */
  readonly failed: number;
  /** Latency of the requests that succeeded (start to final answer, waits included), in ms. */
  readonly latencyP50Ms: number;
  readonly latencyP99Ms: number;
  /** When the last request ended, in ms. */
  readonly endMs: number;
  readonly stopReasons: Readonly<Record<string, number>>;
}

/** One client against one server, over all runs. */
export interface PacingPoint {
  readonly server: PacingServerName;
  readonly client: PacingClientName;
  readonly runs: number;
  readonly requests: Summary;
  readonly attempts: Summary;
  readonly refused: Summary;
  readonly refusedAfterFirstWindow: Summary;
  readonly failed: Summary;
  readonly latencyP50Ms: Summary;
  readonly latencyP99Ms: Summary;
  readonly endMs: Summary;
  /** Stop reasons summed over runs. */
  readonly stopReasons: Readonly<Record<string, number>>;
}

/** The result of {@link runPacing}. */
export interface PacingResult {
  readonly seed: number;
  readonly settings: Omit<ResolvedPacingOptions, 'seed'>;
  readonly points: readonly PacingPoint[];
}

const resolve = (options: PacingOptions): ResolvedPacingOptions => {
  const d = PACING_DEFAULTS;
  const o: ResolvedPacingOptions = {
    seed: options.seed,
    runs: options.runs ?? d.runs,
    servers: options.servers ?? PACING_SERVERS,
    clients: options.clients ?? PACING_CLIENTS,
    limitPerSec: options.limitPerSec ?? d.limitPerSec,
    burst: options.burst ?? d.burst,
    retryAfterSec: options.retryAfterSec ?? d.retryAfterSec,
    windowSec: options.windowSec ?? d.windowSec,
    load: options.load ?? d.load,
    durationSec: options.durationSec ?? d.durationSec,
    maxAttempts: options.maxAttempts ?? d.maxAttempts,
    latency: options.latency ?? DEFAULT_LATENCY,
  };
  const positive = (name: keyof ResolvedPacingOptions, value: number): void => {
    if (!(value > 0 && Number.isFinite(value))) throw new RangeError(`${name} must be a positive number`);
  };
  positive('limitPerSec', o.limitPerSec);
  positive('load', o.load);
  positive('durationSec', o.durationSec);
  positive('retryAfterSec', o.retryAfterSec);
  if (!(Number.isInteger(o.burst) && o.burst >= 0)) throw new RangeError('burst must be a whole number');
  if (!(Number.isInteger(o.windowSec) && o.windowSec >= 1))
    throw new RangeError('windowSec must be a whole number of seconds');
  if (!(Number.isInteger(o.runs) && o.runs >= 1 && o.runs <= PACING_LIMITS.runs))
    throw new RangeError(`runs must be a whole number from 1 to ${PACING_LIMITS.runs}`);
  if (!(Number.isInteger(o.maxAttempts) && o.maxAttempts >= 1 && o.maxAttempts <= PACING_LIMITS.maxAttempts))
    throw new RangeError(`maxAttempts must be a whole number from 1 to ${PACING_LIMITS.maxAttempts}`);
  if (!(o.limitPerSec * o.load * o.durationSec <= PACING_LIMITS.requests))
    throw new RangeError(
      `limitPerSec × load × durationSec must be at most ${PACING_LIMITS.requests} requests`,
    );
  return o;
};

/** A server's answer: 200 or 429, and its headers. */
interface Answer {
  readonly status: number;
  readonly headers: HeaderGetter;
}

const NO_HEADERS: HeaderGetter = () => undefined;
const headerGetter =
  (fields: Readonly<Record<string, string>>): HeaderGetter =>
  (name) =>
    fields[name.toLowerCase()];

/** nginx's `limit_req` with `nodelay`: a leaky bucket of `burst`, draining at `limitPerSec`. */
const limitReq = (o: ResolvedPacingOptions): ((t: number) => Answer) => {
  const perMs = o.limitPerSec / 1000;
  const refusal: Answer = { status: 429, headers: headerGetter({ 'retry-after': String(o.retryAfterSec) }) };
  const ok: Answer = { status: 200, headers: NO_HEADERS };
  let excess = 0;
  let last = Number.NEGATIVE_INFINITY;
  return (t) => {
    const next = Math.max(0, excess - perMs * (t - last) + 1);
    if (next > o.burst) return refusal;
    excess = next;
    last = t;
    return ok;
  };
};

/** An API with fixed windows of quota, which it advertises on every answer. */
const quotaServer = (o: ResolvedPacingOptions): ((t: number) => Answer) => {
  const quota = Math.round(o.limitPerSec * o.windowSec);
  const windowMs = o.windowSec * 1000;
  const policy = `"default";q=${quota};w=${o.windowSec}`;
  let window = -1;
  let used = 0;
  return (t) => {
    const w = Math.floor(t / windowMs);
    if (w !== window) {
      window = w;
      used = 0;
    }
    const resetS = Math.ceil(((w + 1) * windowMs - t) / 1000);
    const ok = used < quota;
    if (ok) used++;
    const fields: Record<string, string> = {
      'ratelimit-policy': policy,
      ratelimit: `"default";r=${quota - used};t=${resetS}`,
    };
    if (!ok) fields['retry-after'] = String(resetS);
    return { status: ok ? 200 : 429, headers: headerGetter(fields) };
  };
};

const START = 0;
const READY = 1;
const ARRIVE = 2;
const RESPOND = 3;
/** Waiting for a token of the AWS model's bucket. */
const TOKEN = 4;

/**
 * The core's options of each client. The AWS model ignores `Retry-After` and retries within a quota
 * of its own: the SDK's 500 tokens at 5 a throttling retry and one back a success, here a budget of
 * 100 retries and 0.2 more a request.
 */
const clientOptions = (client: PacingClientName): RetryOptions =>
  client === 'pacer'
    ? { pacer: createPacer() }
    : client === 'aws-adaptive'
      ? { retryAfter: false, budget: createRetryBudget({ ratio: 0.2, burst: 100 }) }
      : client === 'retry-after'
        ? { herd: false }
        : {};
const REQUEST = Object.freeze({ method: 'GET', url: 'https://api.example/items' });

/** Simulates one run of one client against one server. */
export const simulatePacing = (
  server: PacingServerName,
  client: PacingClientName,
  options: PacingOptions,
): PacingRunResult => {
  const o = resolve(options);
  const starts = arrivals(
    seededRandom(deriveSeed(o.seed, 'arrivals')),
    o.limitPerSec * o.load,
    o.durationSec * 1000,
  );
  const delay = createLatency(seededRandom(deriveSeed(o.seed, 'network')), o.latency);
  let clock = 0;
  const policy = createRetryPolicy({
    random: seededRandom(deriveSeed(o.seed, 'jitter')),
    now: () => clock,
    maxAttempts: o.maxAttempts,
    ...clientOptions(client),
  });
  const aws = client === 'aws-adaptive' ? createAdaptiveLimiterModel() : undefined;
  const answer = server === 'limit-req' ? limitReq(o) : quotaServer(o);
  const firstWindowMs = o.windowSec * 1000;
  const n = starts.length;
  const heap = new EventHeap(Math.max(1, n));
  const kind = new Uint8Array(n);
  const runs: (RetryRun | undefined)[] = new Array(n);
  const answers: (Answer | undefined)[] = new Array(n);
  const latencies: number[] = [];
  const stopReasons: Record<string, number> = {};
  let attempts = 0;
  let refused = 0;
  let refusedLate = 0;
  let failed = 0;
  let endMs = 0;
  const stopped = (reason: string, t: number): void => {
    stopReasons[reason] = (stopReasons[reason] ?? 0) + 1;
    endMs = Math.max(endMs, t);
  };
  for (let i = 0; i < n; i++) heap.push(i, starts[i]!);
  while (heap.size > 0) {
    const id = heap.peek();
    const t = heap.peekTime();
    clock = t;
    const k = kind[id];
    if (k === TOKEN) {
      aws!.take();
      kind[id] = ARRIVE;
      heap.replaceTop(t + delay());
      continue;
    }
    if (k === ARRIVE) {
      attempts++;
      const a = answer(t);
      if (a.status === 429) {
        refused++;
        if (t >= firstWindowMs) refusedLate++;
      }
      answers[id] = a;
      kind[id] = RESPOND;
      heap.replaceTop(t + delay());
      continue;
    }
    // The request's attempt sequence is told what happened, and says what comes next.
    let step: Step;
    if (k === START) {
      runs[id] = policy.begin(REQUEST);
      step = runs[id]!.start(undefined, false);
    } else if (k === READY) {
      step = runs[id]!.done();
    } else {
      const a = answers[id]!;
      aws?.answered(t, a.status === 429);
      step = runs[id]!.answered(1, a.status);
      if (step === 'result') step = runs[id]!.done(a);
    }
    const run = runs[id]!;
    // A retry: nothing to drain here; then its wait.
    if (step === 'discard') step = run.done();
    switch (step) {
      case 'hold':
      case 'wait':
        kind[id] = READY;
        heap.replaceTop(t + run.delayMs);
        break;
      case 'send':
        // The AWS model's own bucket may hold the attempt, after the core let it go.
        if (aws && aws.waitMs(t) > 0) {
          kind[id] = TOKEN;
          heap.replaceTop(t + aws.waitMs(t));
        } else {
          aws?.take();
          kind[id] = ARRIVE;
          heap.replaceTop(t + delay());
        }
        break;
      case 'deliver':
        if (answers[id]!.status === 200) latencies.push(t - starts[id]!);
        else failed++;
        stopped(run.summary!.reason, t);
        heap.pop();
        break;
      case 'fail':
        // The pacer refused the attempt: nothing was sent.
        failed++;
        stopped(run.summary!.reason, t);
        heap.pop();
        break;
      default:
        throw new Error(`pacing: the attempt sequence asked for '${step}'`);
    }
  }
  const sorted = Float64Array.from(latencies).sort();
  return {
    server,
    client,
    requests: n,
    attempts,
    refused,
    refusedAfterFirstWindow: refusedLate,
    failed,
    latencyP50Ms: percentileOfSorted(sorted, 50),
    latencyP99Ms: percentileOfSorted(sorted, 99),
    endMs,
    stopReasons,
  };
};

/** Runs every client against every server, `runs` times each, the same arrivals for each client. */
export const runPacing = (options: PacingOptions): PacingResult => {
  const o = resolve(options);
  const pairs = runEachPair(
    o,
    (server, client, seed) => simulatePacing(server, client, { ...o, seed }),
    options.onProgress,
  );
  const points = pairs.map(({ server, client, results, stopReasons }): PacingPoint => {
    const of = (pick: (r: PacingRunResult) => number): Summary => summarize(results.map(pick));
    return {
      server,
      client,
      runs: o.runs,
      requests: of((r) => r.requests),
      attempts: of((r) => r.attempts),
      refused: of((r) => r.refused),
      refusedAfterFirstWindow: of((r) => r.refusedAfterFirstWindow),
      failed: of((r) => r.failed),
      latencyP50Ms: of((r) => r.latencyP50Ms),
      latencyP99Ms: of((r) => r.latencyP99Ms),
      endMs: of((r) => r.endMs),
      stopReasons,
    };
  });
  const { seed, ...settings } = o;
  return { seed, settings, points };
};

const fixed = (value: number, digits = 0): string => (Number.isFinite(value) ? value.toFixed(digits) : '-');

/** The 429s of `p` fewer than per-request `Retry-After`'s against the same server, as a share. */
const fewer = (result: PacingResult, p: PacingPoint): string => {
  const base = result.points.find((b) => b.server === p.server && b.client === 'retry-after');
  if (!base || base === p || !(base.refused.mean > 0)) return '';
  return `${fixed(100 * (1 - p.refused.mean / base.refused.mean), 1)}%`;
};

/** The results as a table: one row per server and client, means over runs. */
export const pacingTable = (result: PacingResult): string =>
  formatTable(
    [
      'server',
      'client',
      '429s',
      'fewer',
      `429s after ${result.settings.windowSec} s`,
      'failed',
      'attempts/req',
      'p50 s',
      'p99 s',
      'last done s',
    ],
    result.points.map((p) => [
      p.server,
      p.client,
      fixed(p.refused.mean, 1),
      fewer(result, p),
      fixed(p.refusedAfterFirstWindow.mean, 1),
      `${fixed(p.failed.mean, 1)} (${fixed((100 * p.failed.mean) / p.requests.mean, 1)}%)`,
      fixed(p.attempts.mean / p.requests.mean, 2),
      fixed(p.latencyP50Ms.mean / 1000, 2),
      fixed(p.latencyP99Ms.mean / 1000, 2),
      fixed(p.endMs.mean / 1000, 1),
    ]),
  );

/** The results as CSV, one row per server and client. */
export const pacingCsv = (result: PacingResult): string => {
  const header = [
    'server',
    'client',
    'runs',
    'requests_mean',
    'attempts_mean',
    'refused_429_mean',
    'refused_429_max',
    'refused_429_after_first_window_mean',
    'refused_429_after_first_window_max',
    'failed_mean',
    'failed_max',
    'latency_p50_ms_mean',
    'latency_p99_ms_mean',
    'end_ms_mean',
  ];
  const rows = result.points.map((p) =>
    [
      p.server,
      p.client,
      p.runs,
      p.requests.mean,
      p.attempts.mean,
      p.refused.mean,
      p.refused.max,
      p.refusedAfterFirstWindow.mean,
      p.refusedAfterFirstWindow.max,
      p.failed.mean,
      p.failed.max,
      p.latencyP50Ms.mean,
      p.latencyP99Ms.mean,
      p.endMs.mean,
    ].join(','),
  );
  return `${[header.join(','), ...rows].join('\n')}\n`;
};

/** The whole result as JSON. */
export const pacingJson = (result: PacingResult): string => `${JSON.stringify(result, null, 2)}\n`;
