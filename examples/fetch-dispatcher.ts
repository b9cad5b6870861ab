/**
 * Node's global `fetch` (and undici's `request`) with retries: compose undici's Agent with
 * jitterbug's interceptor and pass it as the dispatcher — or install it for every fetch with
 * `setGlobalDispatcher`.
 *
 * Run: node --conditions=@jitterbug/source examples/fetch-dispatcher.ts
 */
import { retryInterceptor } from '@jitterbug/undici';
import { Agent, request } from 'undici';
import type { FlakyServer } from './flaky-server.ts';
import { runStandalone } from './standalone.ts';
import { timelineHooks } from './timeline.ts';

export const main = async (server: FlakyServer, log: (line: string) => void): Promise<void> => {
  const dispatcher = new Agent().compose(
    retryInterceptor({ backoff: { baseMs: 50, capMs: 1_000 }, ...timelineHooks(log) }),
  );
  try {
    log('  GET /orders/1 with fetch (503, 503, then 200)');
    // `as RequestInit`: Node's fetch types its `dispatcher` with the undici 7 types it bundles; at run
    // time an undici 8 agent composed with jitterbug works (jitterbug adapts the handler shapes).
    const res = await fetch(`${server.url}/orders/1`, { dispatcher } as RequestInit);
    log(`    -> ${res.status} ${await res.text()}`);

    log('  GET /flaky-connection with undici request (reset before the response, then 200)');
    const { statusCode, body } = await request(`${server.url}/flaky-connection`, { dispatcher });
    log(`    -> ${statusCode} ${await body.text()}`);

    log('  POST /payments/p-1 with fetch, no Idempotency-Key (503: must not be sent twice)');
    const payment = await fetch(`${server.url}/payments/p-1`, {
      method: 'POST',
      body: '{"amount":10}',
      dispatcher,
    });
    await payment.arrayBuffer();
    log(`    -> ${payment.status}; the server saw it ${server.hits.get('POST /payments/p-1')} time(s)`);

    log('  GET /slow-down (503 with Retry-After: 120, longer than retryAfter.maxMs 60 s)');
    const slow = await fetch(`${server.url}/slow-down`, { dispatcher } as RequestInit);
    await slow.arrayBuffer();
    log(`    -> ${slow.status}, handed over at once`);
  } finally {
    await dispatcher.close();
  }
};

if (import.meta.main) await runStandalone(main);
