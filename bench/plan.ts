/**
 * How much the benchmark measures, and how long it may take. The client comparisons get a time
 * budget (`BENCH_BUDGET_S`, default {@link DEFAULT_BUDGET_S}) and spend it in sessions
 * (`interleave.ts`): every client gets {@link MIN_SESSIONS}, then further sessions go to the client
 * whose comparisons are the least resolved, as long as the budget allows. `BENCH_SCALE` multiplies
 * the measured counts, the cycles per session and the budget, never a warm-up (e.g. 0.3 for a
 * quick run while developing; at 1 the whole `make bench` takes about eight minutes).
 */
import { SIZES, type SizeName } from './bodies.ts';
import type { ClientName } from './clients/types.ts';
import { type BlockName, type SessionPlan, SLOTS } from './interleave.ts';

export const SCALE = Number(process.env['BENCH_SCALE'] ?? 1);
/** A measured count, scaled. Warm-ups are never scaled: they are what makes a measurement steady. */
export const n = (count: number): number => Math.max(1, Math.round(count * SCALE));

/** Requests in flight in every client process. */
export const CONCURRENCY = 16;

/** Seconds the client sessions may take in all (the rest of `make bench` takes about two minutes). */
export const DEFAULT_BUDGET_S = 360;
export const BUDGET_S = Number(process.env['BENCH_BUDGET_S'] ?? DEFAULT_BUDGET_S) * Math.min(1, SCALE);

/** Sessions every client gets before the budget is shared out by need. */
export const MIN_SESSIONS = 2;

/**
 * Measured cycles per session, after {@link SETTLE_CYCLES} that are run but not kept. Few cycles
 * and more sessions: what differs between sets of processes (a process 10 % dearer than its twin
 * for its whole life) is the larger part of the noise, and only more sessions average it out.
 */
export const CYCLES = n(8);
/**
 * The first two cycles after the warm-up cost up to half as much again, for every variant alike,
 * however long the warm-up (tried with 3,000 to 24,000 requests per size): they are run, not kept.
 */
export const SETTLE_CYCLES = 2;

/** Each measured block lasts about this long (CPU), long enough to hold a few scavenges. */
export const BLOCK_MS = 50;

/**
 * Client CPU per request (µs) at steady state on the machine this was written on, by block kind.
 * Only used to size the blocks (a block of each kind lasts about {@link BLOCK_MS}); every figure in
 * the report is measured.
 */
const ESTIMATED_US: Record<ClientName, Record<BlockName, number>> = {
  'undici-request': { '50B': 20, '4KB': 38, '64KB': 340, retry: 110 },
  'undici-fetch': { '50B': 95, '4KB': 105, '64KB': 600, retry: 280 },
  axios: { '50B': 210, '4KB': 210, '64KB': 620, retry: 640 },
  ky: { '50B': 230, '4KB': 180, '64KB': 650, retry: 650 },
  fetch: { '50B': 130, '4KB': 125, '64KB': 530, retry: 420 },
};

/**
 * Warm-up requests by block kind, past V8's tier-up (300 calls) for every function on the path; a
 * large response calls the per-chunk code many times per request, so it needs fewer requests.
 */
const WARMUP: Record<BlockName, number> = { '50B': 2500, '4KB': 1000, '64KB': 400, retry: 1500 };

const blockOf = (us: number): number => Math.max(20, Math.round((BLOCK_MS * 1000) / us));

/** The success path: every response size, every variant twice. */
export const successPlan = (client: ClientName): SessionPlan => {
  const us = ESTIMATED_US[client];
  const sizes = (values: (size: SizeName) => number): Record<SizeName, number> =>
    Object.fromEntries(SIZES.map((size) => [size, values(size)])) as Record<SizeName, number>;
  return {
    slots: SLOTS,
    concurrency: CONCURRENCY,
    warmup: sizes((size) => WARMUP[size]),
    settleCycles: SETTLE_CYCLES,
    cycles: CYCLES,
    blocks: sizes((size) => blockOf(us[size])),
  };
};

/** The retry path: jitterbug and the peer, twice each (a raw client does not retry). */
export const retryPlan = (client: ClientName): SessionPlan => ({
  slots: ['jitterbug', 'jitterbug2', 'peer', 'peer2'],
  concurrency: CONCURRENCY,
  warmup: { retry: WARMUP.retry },
  settleCycles: SETTLE_CYCLES,
  cycles: CYCLES,
  blocks: { retry: blockOf(ESTIMATED_US[client].retry) },
});

/**
 * Requests of the memory run per client (20 % of them retried once): 100,000 through undici's
 * `request()` as before; the clients that cost five to ten times more per request get fewer, so
 * that the five runs take about half a minute.
 */
export const MEMORY_REQUESTS: Record<ClientName, number> = {
  'undici-request': n(100_000),
  'undici-fetch': n(40_000),
  axios: n(40_000),
  ky: n(40_000),
  fetch: n(40_000),
};

/** Requests a raw client sends to the fresh server before the sessions, so that it is compiled too. */
export const SERVER_WARMUP = 20_000;
