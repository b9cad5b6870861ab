/**
 * The herd experiment: many requests to one origin at once, against its rate limit, and what comes
 * back after the first wave of refusals. The first wave's 429s cannot be avoided (nothing is known
 * of the limit yet); the question is whether the refused requests, all told to come back at the same
 * time, come back all at that time (and meet the same limit again, until their attempts are gone),
 * or in line.
 *
 * Three servers, each a rate limit that answers the requests over it with 429:
 * - `bucket`: a token bucket of `burst` tokens refilled at `limitPerSec`, `Retry-After` on a 429 (an
 *   API gateway);
 * - `bucket-fields`: the same, telling a refused request when to come back by the IETF draft's
 *   `RateLimit`/`RateLimit-Policy` fields alone (a spent quota, `r=0;t=…`), no `Retry-After`;
 * - `limit-req`: nginx's `limit_req … burst=B nodelay` with a fixed `Retry-After` (as the pacing
 *   experiment models it: a leaky bucket whose excess may reach `burst`, so it lets `burst + 1`
 *   through at once).
 *
 * The clients are real `RetryPolicy`s of the core in virtual time, driven as the storm drives them
 * (each request's attempt sequence told what happened, its steps done in virtual time):
 * `retry-after`, each 429 retried at its own `Retry-After` (`herd: false`, the defaults before the
 * herd line); `defaults`, the core's defaults (the herd line); `pacer`, the defaults with
 * `pacer: createPacer()`. With `deadlineMs` (ky's default `timeout`, 10 s, is its run's deadline) a
 * request that would wait past it ends.
 */
import {
  createPacer,
  createRetryPolicy,
  type HeaderGetter,
  type RetryOptions,
  seededRandom,
} from '@jitterbug/core';
import type { RetryRun, Step } from '@jitterbug/core/adapter';
import { EventHeap } from './heap.ts';
import { createLatency, DEFAULT_LATENCY, type LatencyModel } from './normal.ts';
import { formatTable } from './output.ts';
import { deriveSeed } from './seeds.ts';
import { runEachPair } from './server-client-runs.ts';
import { type Summary, summarize } from './stats.ts';
import { ARRIVE, inVirtualTime, READY, RESPOND, START, type VirtualLoop } from './virtual-steps.ts';

/** The rate limits. */
export const HERD_SERVERS = Object.freeze(['bucket', 'bucket-fields', 'limit-req'] as const);
export type HerdServerName = (typeof HERD_SERVERS)[number];

/** The clients: per-request `Retry-After`, the core's defaults (the herd line), the pacer. */
export const HERD_CLIENTS = Object.freeze(['retry-after', 'defaults', 'pacer'] as const);
export type HerdClientName = (typeof HERD_CLIENTS)[number];

/** Options of the herd experiment. */
export interface HerdOptions {
  /** Base seed; run `r` uses `deriveSeed(seed, r)`. */
  readonly seed: number;
  /** Runs per server and client. Default 10. */
  readonly runs?: number;
  readonly servers?: readonly HerdServerName[];
  readonly clients?: readonly HerdClientName[];
  /** Requests sent at once. Default 50. */
  readonly requests?: number;
  /** The limit's rate, requests per second. Default 10. */
  readonly limitPerSec?: number;
  /** Its burst. Default 5. */
  readonly burst?: number;
  /** The seconds a 429 says to wait. Default 1. */
  readonly retryAfterSec?: number;
  /** Each request's deadline (`deadlineMs`), in ms; `undefined` for none. Default none. */
  readonly deadlineMs?: number | undefined;
  /** Attempts per request, counting the first. Default 3 (the core's). */
  readonly maxAttempts?: number;
  /** Each message takes `|Normal(meanMs, sdMs)|`. Default 10, 2. */
  readonly latency?: LatencyModel;
  readonly onProgress?: (done: number, total: number) => void;
}

/** Defaults of {@link HerdOptions}. */
export const HERD_DEFAULTS = Object.freeze({
  runs: 10,
  requests: 50,
  limitPerSec: 10,
  burst: 5,
  retryAfterSec: 1,
  maxAttempts: 3,
});

/** Bounds of the inputs, so that a typo is refused rather than run out of memory. */
export const HERD_LIMITS = Object.freeze({ requests: 100_000, runs: 10_000, maxAttempts: 1000 });

type ResolvedHerdOptions = Required<Omit<HerdOptions, 'onProgress' | 'deadlineMs'>> & {
  readonly deadlineMs: number | undefined;
};

/** What one run of one client against one server measured. */
export interface HerdRunResult {
  readonly server: HerdServerName;
  readonly client: HerdClientName;
  readonly requests: number;
  /** Requests that ended 200. */
  readonly ok: number;
  /** Attempts that reached the server, and the 429s it answered: in all, and after the first wave. */
  readonly attempts: number;
  readonly refused: number;
  readonly refusedAfterFirstWave: number;
  /** When the last request ended, in ms. */
  readonly endMs: number;
  readonly stopReasons: Readonly<Record<string, number>>;
}

/** One client against one server, over all runs. */
export interface HerdPoint {
  readonly server: HerdServerName;
  readonly client: HerdClientName;
  readonly runs: number;
  readonly requests: number;
  readonly ok: Summary;
  readonly attempts: Summary;
  readonly refused: Summary;
  readonly refusedAfterFirstWave: Summary;
  readonly endMs: Summary;
  /** Stop reasons summed over runs. */
  readonly stopReasons: Readonly<Record<string, number>>;
}

/** The result of {@link runHerd}. */
export interface HerdResult {
  readonly seed: number;
  readonly settings: Omit<ResolvedHerdOptions, 'seed'>;
  readonly points: readonly HerdPoint[];
}

const resolve = (options: HerdOptions): ResolvedHerdOptions => {
  const d = HERD_DEFAULTS;
  const o: ResolvedHerdOptions = {
    seed: options.seed,
    runs: options.runs ?? d.runs,
    servers: options.servers ?? HERD_SERVERS,
    clients: options.clients ?? HERD_CLIENTS,
    requests: options.requests ?? d.requests,
    limitPerSec: options.limitPerSec ?? d.limitPerSec,
    burst: options.burst ?? d.burst,
    retryAfterSec: options.retryAfterSec ?? d.retryAfterSec,
    deadlineMs: options.deadlineMs,
    maxAttempts: options.maxAttempts ?? d.maxAttempts,
    latency: options.latency ?? DEFAULT_LATENCY,
  };
  const whole = (name: string, value: number, min: number, max: number): void => {
    if (!(Number.isInteger(value) && value >= min && value <= max))
      throw new RangeError(`${name} must be a whole number from ${min} to ${max}`);
  };
  whole('requests', o.requests, 1, HERD_LIMITS.requests);
  whole('runs', o.runs, 1, HERD_LIMITS.runs);
  whole('maxAttempts', o.maxAttempts, 1, HERD_LIMITS.maxAttempts);
  whole('burst', o.burst, 1, 1_000_000);
  if (!(o.limitPerSec > 0 && Number.isFinite(o.limitPerSec)))
    throw new RangeError('limitPerSec must be a positive number');
  if (!(Number.isInteger(o.retryAfterSec) && o.retryAfterSec >= 1))
    throw new RangeError('retryAfterSec must be a whole number of seconds, at least 1');
  if (o.deadlineMs !== undefined && !(o.deadlineMs > 0)) throw new RangeError('deadlineMs must be positive');
  return o;
};

/** A server's answer: 200 or 429, and its headers. */
interface Answer {
  readonly status: number;
  readonly headers: HeaderGetter;
}

const NO_HEADERS: HeaderGetter = () => undefined;
const fields =
  (values: Readonly<Record<string, string>>): HeaderGetter =>
  (name) =>
    values[name.toLowerCase()];

/** The server, as a function of the time a request arrives. */
const serverOf = (server: HerdServerName, o: ResolvedHerdOptions): ((t: number) => Answer) => {
  const perMs = o.limitPerSec / 1000;
  const ok: Answer = { status: 200, headers: NO_HEADERS };
  const refusal: Answer = {
    status: 429,
    headers: fields(
      server === 'bucket-fields'
        ? {
            'ratelimit-policy': `"default";q=${o.limitPerSec};w=1`,
            ratelimit: `"default";r=0;t=${o.retryAfterSec}`,
          }
        : { 'retry-after': String(o.retryAfterSec) },
    ),
  };
  if (server === 'limit-req') {
    // nginx's excess: max(0, excess − rate · elapsed + 1), kept for the requests it lets through.
    let excess = 0;
    let last = Number.NEGATIVE_INFINITY;
    return (t) => {
      const next = Math.max(0, excess - perMs * (t - last) + 1);
      if (next > o.burst + 1) return refusal;
      excess = next;
      last = t;
      return ok;
    };
  }
  let tokens = o.burst;
  let last = 0;
  return (t) => {
    tokens = Math.min(o.burst, tokens + perMs * (t - last));
    last = t;
    if (tokens < 1) return refusal;
    tokens -= 1;
    return ok;
  };
};

/** The core's options of each client. */
const clientOptions = (client: HerdClientName): RetryOptions =>
  client === 'pacer' ? { pacer: createPacer() } : client === 'retry-after' ? { herd: false } : {};

const REQUEST = Object.freeze({ method: 'GET', url: 'https://api.example/items' });

/** Simulates one run of one client against one server. */
export const simulateHerd = (
  server: HerdServerName,
  client: HerdClientName,
  options: HerdOptions,
): HerdRunResult => {
  const o = resolve(options);
  const delay = createLatency(seededRandom(deriveSeed(o.seed, 'network')), o.latency);
  let clock = 0;
  const policy = createRetryPolicy({
    random: seededRandom(deriveSeed(o.seed, 'jitter')),
    now: () => clock,
    maxAttempts: o.maxAttempts,
    ...(o.deadlineMs === undefined ? {} : { deadlineMs: o.deadlineMs }),
    ...clientOptions(client),
  });
  const answer = serverOf(server, o);
  const n = o.requests;
  const heap = new EventHeap(n);
  const kind = new Uint8Array(n);
  const runs: RetryRun[] = [];
  const answers: (Answer | undefined)[] = new Array(n);
  const stopReasons: Record<string, number> = {};
  let attempts = 0;
  let refused = 0;
  let refusedLate = 0;
  let ok = 0;
  let endMs = 0;
  const stopped = (reason: string, t: number): void => {
    stopReasons[reason] = (stopReasons[reason] ?? 0) + 1;
    endMs = Math.max(endMs, t);
  };
  for (let i = 0; i < n; i++) {
    runs.push(policy.begin(REQUEST));
    kind[i] = START;
    heap.push(i, 0);
  }
  // Each request's attempt sequence says what to do (`steps.ts`): `send`, `hold` or `wait` (in
  // virtual time), `discard` (nothing to drop here), `deliver` or `fail` at its end.
  const ended = (id: number, t: number): void => {
    const summary = runs[id]!.summary!;
    if (summary.status === 200) ok++;
    stopped(summary.reason, t);
    heap.pop();
  };
  const loop: VirtualLoop = { heap, kind, delay, end: ended };
  const act = (id: number, t: number, step: Step): void =>
    inVirtualTime(loop, runs[id]!, id, t, step, 'herd');
  while (heap.size > 0) {
    const id = heap.peek();
    const t = heap.peekTime();
    clock = t;
    const run = runs[id]!;
    if (kind[id] === START) act(id, t, run.start(undefined, false));
    else if (kind[id] === READY) act(id, t, run.done());
    else if (kind[id] === ARRIVE) {
      const a = answer(t);
      // Every first attempt is in before any retry: what comes after `n` attempts is the herd's.
      if (a.status === 429) {
        refused++;
        if (attempts >= n) refusedLate++;
      }
      attempts++;
      answers[id] = a;
      kind[id] = RESPOND;
      heap.replaceTop(t + delay());
    } else {
      const a = answers[id]!;
      const step = run.answered(1, a.status);
      if (step === 'await') throw new Error('herd: a policy hook returned a promise');
      act(id, t, step === 'result' ? run.done(a) : step);
    }
  }
  return {
    server,
    client,
    requests: n,
    ok,
    attempts,
    refused,
    refusedAfterFirstWave: refusedLate,
    endMs,
    stopReasons,
  };
};

/** Runs every client against every server, `runs` times each. */
export const runHerd = (options: HerdOptions): HerdResult => {
  const o = resolve(options);
  const pairs = runEachPair(
    o,
    (server, client, seed) => simulateHerd(server, client, { ...o, seed }),
    options.onProgress,
  );
  const points = pairs.map(({ server, client, results, stopReasons }): HerdPoint => {
    const of = (pick: (r: HerdRunResult) => number): Summary => summarize(results.map(pick));
    return {
      server,
      client,
      runs: o.runs,
      requests: o.requests,
      ok: of((r) => r.ok),
      attempts: of((r) => r.attempts),
      refused: of((r) => r.refused),
      refusedAfterFirstWave: of((r) => r.refusedAfterFirstWave),
      endMs: of((r) => r.endMs),
      stopReasons,
    };
  });
  const { seed, ...settings } = o;
  return { seed, settings, points };
};

const fixed = (value: number, digits = 0): string => (Number.isFinite(value) ? value.toFixed(digits) : '-');

/** The results as a table: one row per server and client, means over runs (the worst run in brackets). */
export const herdTable = (result: HerdResult): string =>
  formatTable(
    ['server', 'client', 'ended 200', '429s', '429s after the first wave', 'attempts/req', 'last done s'],
    result.points.map((p) => [
      p.server,
      p.client,
      `${fixed(p.ok.mean, 1)}/${p.requests} (${fixed(p.ok.min)})`,
      `${fixed(p.refused.mean, 1)} (${fixed(p.refused.max)})`,
      `${fixed(p.refusedAfterFirstWave.mean, 1)} (${fixed(p.refusedAfterFirstWave.max)})`,
      fixed(p.attempts.mean / p.requests, 2),
      fixed(p.endMs.mean / 1000, 2),
    ]),
  );

/** The results as CSV, one row per server and client. */
export const herdCsv = (result: HerdResult): string => {
  const header = [
    'server',
    'client',
    'runs',
    'requests',
    'ok_mean',
    'ok_min',
    'attempts_mean',
    'refused_429_mean',
    'refused_429_max',
    'refused_429_after_first_wave_mean',
    'refused_429_after_first_wave_max',
    'end_ms_mean',
  ];
  const rows = result.points.map((p) =>
    [
      p.server,
      p.client,
      p.runs,
      p.requests,
      p.ok.mean,
      p.ok.min,
      p.attempts.mean,
      p.refused.mean,
      p.refused.max,
      p.refusedAfterFirstWave.mean,
      p.refusedAfterFirstWave.max,
      p.endMs.mean,
    ].join(','),
  );
  return `${[header.join(','), ...rows].join('\n')}\n`;
};

/** The whole result as JSON. */
export const herdJson = (result: HerdResult): string => `${JSON.stringify(result, null, 2)}\n`;
