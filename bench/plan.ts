/**
 * How many requests each client process sends. Every process starts with the same V8 tier-up
 * thresholds (`STEADY_STATE_FLAGS` in `spawn.ts`), under which its per-request code is compiled by
 * TurboFan within the first 3,000 requests; the warm-up covers that, and the measured phase then
 * runs at the steady state. The counts are budgeted so that `make bench` stays under 3 minutes on the
 * 2-core machine (measured: see RESULTS.md for the run's duration). `BENCH_SCALE` multiplies every
 * count and `BENCH_ROUNDS` sets the number of rounds (for longer runs, or quick ones while developing).
 */
import type { ClientName } from './clients/types.ts';

export interface ClientPlan {
  readonly warmup: number;
  readonly requests: number;
  readonly retryWarmup: number;
  readonly retryRequests: number;
}

const scale = Number(process.env['BENCH_SCALE'] ?? 1);
export const n = (count: number): number => Math.max(1, Math.round(count * scale));

/** Rounds of raw / jitterbug / peer processes per client (each round gives one pair of each). */
export const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 7);
/** Requests in flight in every client process. */
export const CONCURRENCY = 16;
/** Requests of the memory run (20 % of them retried once). */
export const MEMORY_REQUESTS = n(100_000);

const plan = (warmup: number, requests: number, retryWarmup: number, retryRequests: number): ClientPlan => ({
  warmup: n(warmup),
  requests: n(requests),
  retryWarmup: n(retryWarmup),
  retryRequests: n(retryRequests),
});

export const PLANS: Record<ClientName, ClientPlan> = {
  'undici-request': plan(3000, 7000, 500, 1500),
  'undici-fetch': plan(3000, 5000, 300, 1000),
  axios: plan(3000, 5000, 300, 800),
  ky: plan(3000, 5000, 300, 800),
};

/** Requests a raw client sends to the fresh server before the rounds, so that it is compiled too. */
export const SERVER_WARMUP = n(20_000);
