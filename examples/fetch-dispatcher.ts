/**
 * Node's global `fetch` (and undici's `request`) with retries: compose undici's Agent with
 * jitterbug's interceptor and install it as the global dispatcher — or pass it per call as
 * `{ dispatcher }`.
 *
 * Run: node --conditions=@jitterbug/source examples/fetch-dispatcher.ts
 */
import { retryInterceptor } from '@jitterbug/undici';
import { Agent, getGlobalDispatcher, request, setGlobalDispatcher } from 'undici';
import type { FlakyServer } from './flaky-server.ts';
import { runStandalone } from './standalone.ts';
import { timelineHooks } from './timeline.ts';

export const main = async (server: FlakyServer, log: (line: string) => void): Promise<void> => {
  const dispatcher = new Agent().compose(
    retryInterceptor({ backoff: { baseMs: 50, capMs: 1_000 }, ...timelineHooks(log) }),
  );
  // Every `fetch()` in the process now retries. (Per call: `fetch(url, { dispatcher })` works too;
  // TypeScript may need a cast there, as Node types `dispatcher` with the undici 7 it bundles.)
  const previous = getGlobalDispatcher();
  setGlobalDispatcher(dispatcher);
  try {
    log('  GET /orders/1 with fetch (503, 503, then 200)');
    const res = await fetch(`${server.url}/orders/1`);
    log(`    -> ${res.status} ${await res.text()}`);

    log('  GET /flaky-connection with undici request (reset before the response, then 200)');
    const { statusCode, body } = await request(`${server.url}/flaky-connection`, { dispatcher });
    log(`    -> ${statusCode} ${await body.text()}`);

    log('  POST /payments/p-1 with fetch, no Idempotency-Key (503: must not be sent twice)');
    const payment = await fetch(`${server.url}/payments/p-1`, { method: 'POST', body: '{"amount":10}' });
    await payment.arrayBuffer();
    log(`    -> ${payment.status}; the server saw it ${server.hits.get('POST /payments/p-1')} time(s)`);

    log('  GET /slow-down (503 with Retry-After: 120, longer than retryAfter.maxMs 60 s)');
    const slow = await fetch(`${server.url}/slow-down`);
    await slow.arrayBuffer();
    log(`    -> ${slow.status}, handed over at once`);
  } finally {
    setGlobalDispatcher(previous);
    await dispatcher.close();
  }
};

if (import.meta.main) await runStandalone(main);
