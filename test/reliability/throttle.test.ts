/**
 * Adaptive client-side throttling over a real server, through each adapter: a server that refuses
 * everything with 503 is soon sent almost nothing; the requests refused locally fail with the core's
 * `ThrottledError` (`ERR_JITTERBUG_THROTTLED`, on the error or its cause chain) before anything is
 * sent; once the server accepts again, so does the client. Deterministic: the random source is fixed
 * and the throttle's window is the injected clock's.
 */
import { createAdaptiveThrottle, type RetryPolicyOptions } from '@jitterbug/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drivers } from '../conformance/drivers/index.ts';
import { type ScriptedServer, startScriptedServer } from '../support/scripted-server.ts';

// One client per adapter: the throttle is the core's; each adapter only has to ask it and fail the
// request it refuses with the core's error.
const ONE_PER_ADAPTER = ['fetch (withRetry)', 'ky 2', 'undici request (undici 8)', 'axios'];
const clients = drivers.filter((d) => ONE_PER_ADAPTER.includes(d.name));

const codesOf = (error: unknown): unknown[] => {
  const codes: unknown[] = [];
  for (let e = error, depth = 0; typeof e === 'object' && e !== null && depth < 5; depth++) {
    codes.push((e as { code?: unknown }).code);
    e = (e as { cause?: unknown }).cause;
  }
  return codes;
};

describe.each(clients.map((d) => [d.name, d] as const))('%s', (_name, driver) => {
  let server: ScriptedServer;
  beforeAll(async () => {
    server = await startScriptedServer();
  });
  afterAll(() => server.close());

  it('a server refusing everything is sent almost nothing; refused requests fail locally; it recovers', async () => {
    let down = true;
    server.route('/overloaded', () => (down ? { status: 503 } : { status: 200, body: 'ok' }));
    let now = 0;
    const options: RetryPolicyOptions = {
      maxAttempts: 1,
      // 0.5: a request is refused once more than half of the window's would be (k = 2: once
      // requests − 2·accepts > (requests + 1) / 2).
      random: () => 0.5,
      now: () => now,
      throttle: createAdaptiveThrottle({ k: 2, windowMs: 10_000 }),
    };
    const client = await driver.create(server.url, options);
    try {
      const outcomes: string[] = [];
      for (let i = 0; i < 20; i++) {
        const { outcome } = await client.send({ method: 'GET', path: '/overloaded' });
        if (outcome.kind === 'error') {
          expect(codesOf(outcome.error)).toContain('ERR_JITTERBUG_THROTTLED');
          outcomes.push('throttled');
        } else outcomes.push(String(outcome.status));
      }
      const sent = server.seen('/overloaded').length;
      // The first requests reach the server; after that nearly all are refused before sending.
      expect(outcomes.slice(0, 2)).toEqual(['503', '503']);
      expect(outcomes.filter((o) => o === 'throttled').length).toBe(20 - sent);
      expect(sent).toBeLessThanOrEqual(4);

      // The window passes; the server accepts again, and so does the client.
      down = false;
      now += 20_000;
      const after = await client.send({ method: 'GET', path: '/overloaded' });
      expect(after.outcome).toMatchObject({ kind: 'response', status: 200 });
    } finally {
      await client.close();
    }
  });
});
