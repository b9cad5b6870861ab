/**
 * Plain `fetch` with retries, in any runtime: `withRetry(fetch)`. Also: one call's own settings, a
 * POST that must not be sent twice, and the origin-wide pacer — once an API answered
 * `429 Retry-After: 1`, the next calls to it wait with the first instead of collecting 429s of their own.
 *
 * Run: node --conditions=@jitterbug/source examples/fetch-retry.ts
 */
import { createPacer, createRetryPolicy, getRetryInfo, withRetry } from '@jitterbug/fetch';
import type { FlakyServer } from './flaky-server.ts';
import { runStandalone } from './standalone.ts';
import { timelineHooks } from './timeline.ts';

export const main = async (server: FlakyServer, log: (line: string) => void): Promise<void> => {
  const fetchWithRetry = withRetry(
    fetch,
    // pacer: createPacer() — this API's 429 means quota, so one 429 paces the calls that follow (off by default).
    createRetryPolicy({
      backoff: { baseMs: 50, capMs: 1_000 },
      pacer: createPacer(),
      ...timelineHooks(log),
    }),
  );

  log('  GET /orders/7 (503, 503, then 200)');
  const order = await fetchWithRetry(`${server.url}/orders/7`);
  log(`    -> ${order.status} ${await order.text()}`);

  log('  GET /orders/8 with jitterbug: false (this call is sent once)');
  const once = await fetchWithRetry(`${server.url}/orders/8`, { jitterbug: false });
  await once.arrayBuffer();
  log(`    -> ${once.status}, reason ${getRetryInfo(once)?.reason}`);

  log('  POST /payments/p-2 without an Idempotency-Key (503: must reach the server once)');
  const payment = await fetchWithRetry(`${server.url}/payments/p-2`, {
    method: 'POST',
    body: '{"amount":5}',
  });
  await payment.arrayBuffer();
  log(`    -> ${payment.status}; the server saw it ${server.hits.get('POST /payments/p-2')} time(s)`);

  log('  GET /quota, then 3 more calls once it got its 429 (Retry-After: 1): the pacer holds them');
  const first = fetchWithRetry(`${server.url}/quota`);
  while (!server.hits.get('GET /quota')) await new Promise((resolve) => setTimeout(resolve, 5));
  await new Promise((resolve) => setTimeout(resolve, 50));
  const later = await Promise.all([1, 2, 3].map(() => fetchWithRetry(`${server.url}/quota`)));
  const all = [await first, ...later];
  for (const response of all) await response.arrayBuffer();
  log(
    `    -> ${all.map((r) => r.status).join(', ')}; the server answered ${server.hits.get('GET /quota')} ` +
      'requests for 4 calls: one 429 (without the pacer: four)',
  );
};

if (import.meta.main) await runStandalone(main);
