/**
 * How many requests each client process sends. Budgeted so that `make bench` stays under 3 minutes
 * on the 2-core machine (measured: see RESULTS.md for the run's duration). The warm-up is long
 * enough for the per-request functions to be compiled by V8's optimizing tiers (Maglev after ~400
 * calls, TurboFan after a few thousand): with a few hundred requests, the comparison mostly measured
 * how much more code the wrapped client still ran in the interpreter. `BENCH_SCALE` multiplies every count and `BENCH_ROUNDS` sets the
 * number of rounds (for longer runs, or quick ones while developing).
 */
import type { ClientName } from './clients/types.ts';

export interface ClientPlan {
  readonly warmup: number;
  readonly requests: number;
  readonly retryWarmup: number;
  readonly retryRequests: number;
}

const scale = Number(process.env['BENCH_SCALE'] ?? 1);
const n = (count: number): number => Math.max(1, Math.round(count * scale));

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
  'undici-request': plan(3000, 6000, 500, 1500),
  'undici-fetch': plan(2000, 3000, 300, 800),
  axios: plan(2000, 3000, 300, 600),
  ky: plan(2000, 3000, 300, 600),
};
