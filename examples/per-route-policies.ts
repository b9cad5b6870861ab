/**
 * Per-route policies: one policy, different rules for the endpoints that need them. The first rule
 * that matches wins; its fields override the base options.
 *
 * - `POST /payments/*`: never retried, even with an Idempotency-Key (the payment provider retries).
 * - `GET /reports/*`: reports take a while to build — more attempts, decorrelated jitter, longer cap.
 * - everything else: the base policy (3 attempts, full jitter).
 *
 * Run: node --conditions=@jitterbug/source examples/per-route-policies.ts
 */
import { createRetryPolicy } from '@jitterbug/core';
import { retryInterceptor } from '@jitterbug/undici';
import { Agent, fetch } from 'undici';
import type { FlakyServer } from './flaky-server.ts';
import { runStandalone } from './standalone.ts';
import { timelineHooks } from './timeline.ts';

export const main = async (server: FlakyServer, log: (line: string) => void): Promise<void> => {
  const policy = createRetryPolicy({
    maxAttempts: 3,
    backoff: { baseMs: 50, capMs: 1_000 },
    routes: [
      { match: 'POST /payments/*', retry: false, name: 'payments: never retry' },
      {
        match: 'GET /reports/:id',
        name: 'reports: be patient',
        maxAttempts: 6,
        backoff: { strategy: 'decorrelated', baseMs: 40, capMs: 400 },
      },
    ],
    ...timelineHooks(log),
  });
  const dispatcher = new Agent().compose(retryInterceptor(policy));
  try {
    log('  GET /reports/r-9 (503 four times, then 200): the route allows 6 attempts');
    const report = await fetch(`${server.url}/reports/r-9`, { dispatcher });
    log(`    -> ${report.status} ${await report.text()}`);

    log('  POST /payments/p-7 with an Idempotency-Key (503): the route says never retry');
    const payment = await fetch(`${server.url}/payments/p-7`, {
      method: 'POST',
      headers: { 'idempotency-key': 'pay-7', 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 25 }),
      dispatcher,
    });
    await payment.arrayBuffer();
    log(`    -> ${payment.status}; the server saw it ${server.hits.get('POST /payments/p-7')} time(s)`);

    log('  GET /down/d-1 (always 503): the base policy, 3 attempts');
    const down = await fetch(`${server.url}/down/d-1`, { dispatcher });
    await down.arrayBuffer();
    log(`    -> ${down.status} after ${server.hits.get('GET /down/d-1')} attempts`);
  } finally {
    await dispatcher.close();
  }
};

if (import.meta.main) await runStandalone(main);
