/**
 * The origin-wide pacer over a real server, through each client: 20 GETs, 4 sent at once and 16 more
 * as soon as the client has had the server's first `429 Retry-After: 1`. With the pacer, the server
 * sees about as many 429s as there were requests in flight (the others wait for the second to pass,
 * then go one after the other); without it, one per request. Real time (the server's limit is a real
 * second); only counts are asserted.
 */
import { createPacer, type RetryPolicyOptions } from '@jitterbug/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConformanceDriver } from '../conformance/driver.ts';
import { drivers } from '../conformance/drivers/index.ts';
import { type ScriptedServer, startScriptedServer } from '../support/scripted-server.ts';

// One client per adapter (the hold is the core's; each adapter only has to wait for it).
const ONE_PER_ADAPTER = ['fetch (withRetry)', 'ky 2', 'undici request (undici 8)', 'axios'];
const clients = drivers.filter((d) => ONE_PER_ADAPTER.includes(d.name));

/** Sends the 20 GETs; resolves with the statuses the server answered, in order. */
const burst = async (
  server: ScriptedServer,
  driver: ConformanceDriver,
  path: string,
  options: RetryPolicyOptions,
) => {
  let limitedUntil = 0;
  server.route(path, () => {
    const now = Date.now();
    if (limitedUntil === 0) limitedUntil = now + 1_000;
    return now < limitedUntil
      ? { status: 429, headers: { 'retry-after': '1' } }
      : { status: 200, body: 'ok' };
  });
  let seen429: () => void = () => {};
  const answered = new Promise<void>((resolve) => {
    seen429 = resolve;
  });
  // No retry budget: it caps retries in an outage by itself, which is not what is measured here.
  const client = await driver.create(server.url, {
    random: () => 0.5,
    budget: false,
    onRetry: () => seen429(),
    ...options,
  });
  try {
    const first = Array.from({ length: 4 }, () => client.send({ method: 'GET', path }));
    // The client has had a 429 (its first retry is scheduled): the next requests come after it.
    await answered;
    const rest = Array.from({ length: 16 }, () => client.send({ method: 'GET', path }));
    const results = await Promise.all([...first, ...rest]);
    for (const result of results) {
      expect(result.outcome.kind === 'error' ? result.outcome : result.outcome.status).toBe(200);
    }
    return server.responses.filter((r) => r.path === path).map((r) => (r.step as { status: number }).status);
  } finally {
    await client.close();
  }
};

describe.each(clients.map((d) => [d.name, d] as const))('%s', (_name, driver) => {
  let server: ScriptedServer;
  beforeAll(async () => {
    server = await startScriptedServer();
  });
  afterAll(() => server.close());

  it('with the pacer: the 429s are the requests that were in flight, then every request succeeds', async () => {
    const statuses = await burst(server, driver, '/held', { pacer: createPacer() });
    expect(statuses.filter((s) => s === 429).length).toBeLessThanOrEqual(4);
    expect(statuses.filter((s) => s === 200)).toHaveLength(20);
  });

  it('without it (pacer: false): one 429 per request', async () => {
    const statuses = await burst(server, driver, '/unheld', { pacer: false });
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
    expect(statuses.filter((s) => s === 200)).toHaveLength(20);
  });
});
