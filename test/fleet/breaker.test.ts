/**
 * The circuit breaker in one process, against a real `node:http` origin that dies and comes back,
 * on a clock the test moves (the policy's `now` and `sleep`): alone, and as a fleet of breakers
 * sharing an in-memory store, one of them on a clock 5 s off.
 */
import {
  CircuitOpenError,
  createCircuitBreaker,
  createRetryPolicy,
  getRetryInfo,
  type RetryPolicyOptions,
} from '@jitterbug/core';
import { createMemoryStore, createCircuitBreaker as fleetBreaker } from '@jitterbug/core/store';
import { withRetry } from '@jitterbug/fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countedStore, type Origin, startStatusOrigin } from './fleet.ts';

let origin: Origin;
let url: string;
let status = 503;

beforeAll(async () => {
  origin = await startStatusOrigin(() => status);
  url = origin.url;
});

afterAll(async () => {
  await origin.close();
});

/** One clock for the test; `offsetMs` makes a host whose clock is off. */
let t = 1_700_000_000_000;
const clockOf = (offsetMs = 0): Pick<RetryPolicyOptions, 'now' | 'sleep'> => ({
  now: () => t + offsetMs,
  sleep: (ms: number) => {
    t += ms;
    return Promise.resolve();
  },
});

const BREAKER = { failureRatio: 0.5, minimumThroughput: 4, samplingMs: 10_000, breakMs: 1_000 } as const;

/** Sends one GET; its status, or its error. */
const send = (client: (url: string) => Promise<Response>) =>
  client(url).then(
    (r) => r.status,
    (error: unknown) => error,
  );

describe('createCircuitBreaker', () => {
  it('opens after the minimum throughput, fails fast with a reason, probes once, closes', async () => {
    status = 503;
    origin.requests = 0;
    const breaker = createCircuitBreaker(BREAKER);
    const client = withRetry(fetch, createRetryPolicy({ ...clockOf(), maxAttempts: 1, breaker }));
    for (let i = 0; i < 4; i++) expect(await send(client)).toBe(503);
    expect(breaker.stateOf(new URL(url).origin, t)).toBe('open');
    const refused = await send(client);
    expect(refused).toBeInstanceOf(CircuitOpenError);
    expect((refused as CircuitOpenError).failure).toBe('status 503');
    expect(getRetryInfo(refused)).toMatchObject({ reason: 'circuit-open', attempts: 0 });
    expect(origin.requests).toBe(4);
    // After the break one request probes; it fails, and the circuit opens again.
    t += 1_000;
    expect(await send(client)).toBe(503);
    expect(origin.requests).toBe(5);
    expect(await send(client)).toBeInstanceOf(CircuitOpenError);
    // The origin is back: the next probe closes it, within one break.
    status = 200;
    t += 1_000;
    expect(await send(client)).toBe(200);
    expect(breaker.stateOf(new URL(url).origin, t)).toBe('closed');
    expect(await send(client)).toBe(200);
  });

  it('a retry waits out the break instead of spending its attempts', async () => {
    status = 503;
    origin.requests = 0;
    const breaker = createCircuitBreaker(BREAKER);
    const policy = createRetryPolicy({ ...clockOf(), maxAttempts: 3, breaker, budget: false });
    const client = withRetry(fetch, policy);
    // Two origin.requests of two attempts' failures open it (4 answers, all failed) ...
    await send(withRetry(fetch, createRetryPolicy({ ...clockOf(), maxAttempts: 2, breaker, budget: false })));
    await send(withRetry(fetch, createRetryPolicy({ ...clockOf(), maxAttempts: 1, breaker, budget: false })));
    const before = t;
    // ... and a third's first attempt is the fourth failure: its retry waits for the break, then probes.
    expect(await send(client)).toBe(503);
    expect(t - before).toBeGreaterThanOrEqual(1_000);
    expect(origin.requests).toBe(6);
  });

  it('refuses bad options naming the option', () => {
    expect(() => createCircuitBreaker({ failureRatio: 2 })).toThrow(/"breaker\.failureRatio"/);
    expect(() => createCircuitBreaker({ minimumThroughput: 0 })).toThrow(/"breaker\.minimumThroughput"/);
    expect(() => fleetBreaker({ store: {} as never })).toThrow(/"breaker\.store".*SharedStore/);
    expect(() => createCircuitBreaker({ store: createMemoryStore() })).toThrow(
      /"breaker\.store".*createCircuitBreaker\(\{ store \}\) from '@jitterbug\/core\/store'/,
    );
    expect(() => createCircuitBreaker({ bogus: 1 } as never)).toThrow(/"breaker\.bogus"/);
    expect(() => createRetryPolicy({ breaker: {} as never })).toThrow(/createCircuitBreaker\(\)/);
  });
});

describe('createCircuitBreaker({ store })', () => {
  it('a quorum breaks the fleet, one instance probes per half-open period, clocks 5 s off change nothing', async () => {
    status = 200;
    origin.requests = 0;
    const store = countedStore(createMemoryStore({ now: () => t }));
    const offsets = [0, 5_000, -5_000, 0];
    const breakers = offsets.map(() => fleetBreaker({ ...BREAKER, store, quorum: 2 }));
    const clients = breakers.map((breaker, i) =>
      withRetry(fetch, createRetryPolicy({ ...clockOf(offsets[i]), maxAttempts: 1, breaker })),
    );
    // Successes ask the store nothing.
    for (const client of clients) expect(await send(client)).toBe(200);
    expect(store.calls).toBe(0);
    status = 503;
    // Two instances break (4 answers each, 3 failed): the fleet opens, the others fail fast.
    for (const client of clients.slice(0, 2)) for (let i = 0; i < 3; i++) await send(client);
    await new Promise((resolve) => setImmediate(resolve));
    for (const client of clients.slice(2)) await send(client);
    await new Promise((resolve) => setImmediate(resolve));
    origin.requests = 0;
    expect(
      (await Promise.all(clients.map(send))).map((r) => (r instanceof CircuitOpenError ? 'open' : r)),
    ).toEqual(['open', 'open', 'open', 'open']);
    expect(origin.requests).toBe(0);
    // Each half-open period: every instance asks, one probes (and fails again).
    for (let period = 0; period < 3; period++) {
      t += 1_000;
      origin.requests = 0;
      const results = await Promise.all(clients.map(send));
      expect(origin.requests).toBe(1);
      expect(results.filter((r) => r === 503)).toHaveLength(1);
      expect(results.filter((r) => r instanceof CircuitOpenError)).toHaveLength(3);
      await new Promise((resolve) => setImmediate(resolve));
    }
    // The origin is back: the next probe closes the fleet's circuit; the others follow.
    status = 200;
    t += 1_000;
    const back = await Promise.all(clients.map(send));
    expect(back.filter((r) => r === 200).length).toBeGreaterThanOrEqual(1);
    await new Promise((resolve) => setImmediate(resolve));
    // Within one break every instance has closed: those that waited for the probe find it closed.
    t += 1_000;
    for (const client of clients) expect(await send(client)).toBe(200);
    const calls = store.calls;
    for (const client of clients) expect(await send(client)).toBe(200);
    expect(store.calls).toBe(calls);
  });
});
