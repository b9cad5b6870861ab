/**
 * axios with retries: one call adds jitterbug's interceptor to an axios instance. Your own
 * interceptors run once per request, as without retries; the retries happen below them.
 *
 * Run: node --conditions=@jitterbug/source examples/axios-interceptor.ts
 */
import { attachRetry, getRetryInfo } from '@jitterbug/axios';
import axios from 'axios';
import type { FlakyServer } from './flaky-server.ts';
import { runStandalone } from './standalone.ts';
import { timelineHooks } from './timeline.ts';

export const main = async (server: FlakyServer, log: (line: string) => void): Promise<void> => {
  const api = axios.create({ baseURL: server.url });
  const detach = attachRetry(api, { backoff: { baseMs: 50, capMs: 1_000 }, ...timelineHooks(log) });

  log('  GET /orders/2 (503, 503, then 200)');
  const order = await api.get('/orders/2');
  const info = getRetryInfo(order);
  log(
    `    -> ${order.status} ${JSON.stringify(order.data)}; getRetryInfo: ${info?.attempts} attempts, waited ${Math.round(info?.totalDelayMs ?? 0)} ms`,
  );

  log('  POST /orders with an Idempotency-Key (503, then 201): retried with the same key');
  const created = await api.post('/orders', { item: 'book' }, { headers: { 'Idempotency-Key': 'order-2' } });
  log(`    -> ${created.status} ${JSON.stringify(created.data)}`);

  log('  GET /not-found (404): never retried; axios rejects as usual');
  try {
    await api.get('/not-found');
  } catch (error) {
    log(`    -> rejected: ${(error as Error).message}`);
  }
  detach();
};

if (import.meta.main) await runStandalone(main);
