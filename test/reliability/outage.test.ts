/**
 * Outage: the server fails everything for a while. With the default retry budget the attempts it
 * sees stay within the documented bound — `retries <= burst + ratio × requests` (budget.ts) — and
 * once it recovers requests succeed again, and retries resume by themselves as new requests refill
 * the budget. Every client, and one policy shared by all clients at once.
 */
import { createRetryPolicy, DEFAULT_BUDGET, type RetryPolicy } from '@jitterbug/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ConformanceClient, ConformanceResult } from '../conformance/driver.ts';
import { drivers } from '../conformance/drivers/index.ts';
import { type ScriptedServer, type Step, startScriptedServer } from '../support/scripted-server.ts';
import { runPool, tinySleep } from './support.ts';

const OUTAGE_REQUESTS = 400;
const RECOVERED_REQUESTS = 100;
const IN_FLIGHT = 16;

const statusOf = (result: ConformanceResult): number | undefined =>
  result.outcome.kind === 'error' ? undefined : result.outcome.status;

/** A server that is down (503, or connections reset) until `recover()`; counts attempts per phase. */
const outageScript = (server: ScriptedServer, path: string) => {
  let down = true;
  let attempts = 0;
  server.route(path, (): Step => {
    attempts++;
    if (!down) return { status: 200, body: 'up' };
    return attempts % 4 === 0 ? { destroy: 'before-headers' } : { status: 503, body: 'down' };
  });
  return {
    recover: () => {
      down = false;
    },
    attempts: () => attempts,
  };
};

const sendMany = async (c: ConformanceClient, path: string, count: number): Promise<ConformanceResult[]> => {
  const results: ConformanceResult[] = [];
  await runPool(count, IN_FLIGHT, async () => {
    results.push(await c.send({ method: 'GET', path }));
  });
  return results;
};

const bound = (requests: number): number =>
  requests + Math.floor(DEFAULT_BUDGET.burst + DEFAULT_BUDGET.ratio * requests + 1e-9);

describe.each(drivers.map((d) => [d.name, d] as const))('outage: %s', (_name, driver) => {
  let server: ScriptedServer;
  const clients: ConformanceClient[] = [];

  beforeAll(async () => {
    server = await startScriptedServer();
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close();
    expect(await server.waitForIdle(3_000)).toBe(0);
    server.reset();
  });
  afterAll(() => server.close());

  it(`${OUTAGE_REQUESTS} requests during an outage cost at most requests + burst + ratio × requests attempts; then all succeed`, async () => {
    const outage = outageScript(server, '/down');
    // The default budget (ratio 0.1, burst 10) and the default maxAttempts (3); tiny waits.
    const c = await driver.create(server.url, { sleep: tinySleep().sleep });
    clients.push(c);

    const failed = await sendMany(c, '/down', OUTAGE_REQUESTS);
    expect(failed.filter((r) => statusOf(r) === 200)).toHaveLength(0);
    // Without a budget this would be up to 3 × 400 = 1200 attempts.
    expect(outage.attempts()).toBeLessThanOrEqual(bound(OUTAGE_REQUESTS));
    expect(outage.attempts()).toBeGreaterThan(OUTAGE_REQUESTS);

    outage.recover();
    const before = outage.attempts();
    const recovered = await sendMany(c, '/down', RECOVERED_REQUESTS);
    expect(recovered.map(statusOf)).toEqual(new Array(RECOVERED_REQUESTS).fill(200));
    expect(outage.attempts() - before).toBe(RECOVERED_REQUESTS);

    // The budget refilled on its own (100 requests × 0.1 = 10 tokens): a transient 503 is retried again.
    server.route('/blip', [{ status: 503 }, { status: 200, body: 'back' }]);
    const blip = await c.send({ method: 'GET', path: '/blip' });
    expect(statusOf(blip)).toBe(200);
    expect(server.seen('/blip')).toHaveLength(2);
  });
});

describe('outage: one policy shared by every client', () => {
  let server: ScriptedServer;
  let policy: RetryPolicy;
  const clients: ConformanceClient[] = [];

  beforeAll(async () => {
    server = await startScriptedServer();
    policy = createRetryPolicy({ sleep: tinySleep().sleep });
  });
  afterAll(async () => {
    for (const c of clients.splice(0)) await c.close();
    expect(await server.waitForIdle(3_000)).toBe(0);
    await server.close();
  });

  it('the bound holds across clients sharing one budget', async () => {
    const outage = outageScript(server, '/shared');
    for (const driver of drivers) clients.push(await driver.create(server.url, policy));
    const perClient = 60;
    await Promise.all(clients.map((c) => sendMany(c, '/shared', perClient)));
    const requests = perClient * clients.length;
    expect(outage.attempts()).toBeLessThanOrEqual(bound(requests));
    outage.recover();
    const results = await Promise.all(clients.map((c) => c.send({ method: 'GET', path: '/shared' })));
    expect(results.map(statusOf)).toEqual(new Array(clients.length).fill(200));
  });
});
