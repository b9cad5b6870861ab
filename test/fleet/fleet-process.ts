/**
 * One process of a fleet, for the fleet's tests: it sends `count` GETs to `origin` one after another
 * (`gapMs` apart) through `withRetry(fetch)`, with the fleet's features over `redisStore(redis)`
 * (or each feature's local form when `redis` is absent), and prints one JSON line: each request's
 * status (or its error's name), how long the run took, and every store call's failure and duration.
 * It prints `sent N` after each request, so that a test can act mid-run (stop Redis).
 *
 * Config: one JSON argument, {@link FleetProcessConfig}.
 */
import {
  type CircuitBreakerOptions,
  createRetryPolicy,
  createCircuitBreaker as localBreaker,
  createRetryBudget as localBudget,
  createPacer as localPacer,
  type RetryPolicyOptions,
} from '@jitterbug/core';
import {
  createCircuitBreaker,
  createPacer,
  createRetryBudget,
  leaseBudget,
  type SharedStore,
  type StoreReply,
} from '@jitterbug/core/store';
import { withRetry } from '@jitterbug/fetch';
import { redisStore } from '@jitterbug/redis';

/** What a fleet process does. */
export interface FleetProcessConfig {
  readonly origin: string;
  readonly count: number;
  readonly gapMs?: number;
  /** `redis://…`; absent: the features' local forms. */
  readonly redis?: string;
  /** The store's per-call timeout (default: redisStore's, 10 ms). */
  readonly timeoutMs?: number;
  readonly budget?: boolean;
  readonly pacer?: boolean;
  /** A circuit breaker with these options (and the store, when there is one). */
  readonly breaker?: Omit<CircuitBreakerOptions, 'store'>;
  readonly maxAttempts?: number;
  /** Send all `count` requests at once rather than one after another. */
  readonly concurrent?: boolean;
  /** Sent as `x-fleet-process`, for the origin to tell the processes apart. */
  readonly id?: string;
}

/** What it prints at the end. */
export interface FleetProcessReport {
  readonly results: readonly (number | string)[];
  /** When each request started (`Date.now()`) and how long it took, in ms. */
  readonly timings: readonly { readonly at: number; readonly ms: number }[];
  readonly elapsedMs: number;
  readonly calls: readonly { readonly failure: string | undefined; readonly ms: number }[];
}

const config = JSON.parse(process.argv[2]!) as FleetProcessConfig;
const calls: { failure: string | undefined; ms: number }[] = [];
const redis =
  config.redis === undefined
    ? undefined
    : redisStore(config.redis, config.timeoutMs === undefined ? {} : { timeoutMs: config.timeoutMs });
const store: SharedStore | undefined = redis && {
  run: async (...args): Promise<StoreReply> => {
    const started = performance.now();
    const reply = await redis.run(...args);
    calls.push({ failure: reply.ok ? undefined : reply.failure, ms: performance.now() - started });
    return reply;
  },
};

// Connected before the first request, as a service connects at start-up (a call that times out
// while the first connection is made leaves the process alone for a second). A lease of nothing
// in a budget of its own changes no state the run reads.
if (redis) {
  for (let i = 0; i < 50; i++) {
    if ((await leaseBudget(redis, 'warm-up', { deposit: 0, want: 0, burst: 1, ttlMs: 1000 })).ok) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const options: RetryPolicyOptions = {
  backoff: { baseMs: 2, capMs: 5 },
  budget: config.budget ? (store ? createRetryBudget({ store }) : localBudget()) : false,
  pacer: config.pacer ? (store ? createPacer({ store }) : localPacer()) : false,
  breaker: config.breaker
    ? store
      ? createCircuitBreaker({ ...config.breaker, store })
      : localBreaker(config.breaker)
    : false,
  ...(config.maxAttempts === undefined ? {} : { maxAttempts: config.maxAttempts }),
};
const client = withRetry(fetch, createRetryPolicy(options));
const timings: { at: number; ms: number }[] = [];
const send = (): Promise<number | string> => {
  const at = Date.now();
  const started = performance.now();
  return client(config.origin, { headers: { 'x-fleet-process': config.id ?? '' } })
    .then(
      async (response) => {
        await response.arrayBuffer();
        return response.status;
      },
      (error: Error) => error.name,
    )
    .finally(() => timings.push({ at, ms: performance.now() - started }));
};
const results: (number | string)[] = [];
const started = performance.now();
if (config.concurrent) {
  results.push(...(await Promise.all(Array.from({ length: config.count }, send))));
} else {
  for (let i = 0; i < config.count; i++) {
    results.push(await send());
    process.stdout.write(`sent ${i + 1}\n`);
    if (config.gapMs) await new Promise((resolve) => setTimeout(resolve, config.gapMs));
  }
}
const report: FleetProcessReport = { results, timings, elapsedMs: performance.now() - started, calls };
process.stdout.write(`${JSON.stringify(report)}\n`);
await redis?.close();
