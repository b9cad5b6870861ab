/**
 * ky with retries: spread jitterbug's hooks into `ky.create()`. ky's own retry is switched off so
 * that only one retry layer runs; ky still throws its `HTTPError` when retries end on a status.
 *
 * Run: node --conditions=@jitterbug/source examples/ky-hooks.ts
 */
import { getRetryInfo, kyRetry } from '@jitterbug/ky';
import ky, { HTTPError } from 'ky';
import type { FlakyServer } from './flaky-server.ts';
import { runStandalone } from './standalone.ts';
import { timelineHooks } from './timeline.ts';

export const main = async (server: FlakyServer, log: (line: string) => void): Promise<void> => {
  const api = ky.create({
    baseUrl: server.url,
    ...kyRetry({ backoff: { baseMs: 50, capMs: 1_000 }, ...timelineHooks(log) }),
  });

  log('  GET /rate-limited (429 with Retry-After: 1, then 200)');
  const res = await api.get('rate-limited');
  const info = getRetryInfo(res);
  log(
    `    -> ${res.status} ${await res.text()}; getRetryInfo: ${info?.attempts} attempts, waited ${Math.round(info?.totalDelayMs ?? 0)} ms`,
  );

  log('  GET /down/k-1 (always 503): ky throws HTTPError after the last attempt');
  try {
    await api.get('down/k-1');
  } catch (error) {
    log(`    -> ${error instanceof HTTPError ? `HTTPError ${error.response.status}` : String(error)}`);
  }
};

if (import.meta.main) await runStandalone(main);
