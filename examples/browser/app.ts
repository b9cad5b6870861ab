/**
 * The page's script: `withRetry(fetch)` in a browser, calling its API on the page's own origin
 * (server.ts forwards it to the local flaky server). Each request's timeline is written on the page
 * and handed, as lines, to whatever opened it (`globalThis.jitterbugTimeline`; run.ts prints them).
 */
import { createRetryPolicy, getRetryInfo, withRetry } from '@jitterbug/fetch';
import { timelineHooks } from '../timeline.ts';

const shown = document.querySelector('#timeline');
const lines: string[] = [];
const log = (line: string): void => {
  lines.push(line);
  if (shown) shown.textContent += `${line}\n`;
};

const fetchWithRetry = withRetry(
  fetch,
  createRetryPolicy({ backoff: { baseMs: 50, capMs: 1_000 }, ...timelineHooks(log) }),
);

/** One request, with its answer (or the error the caller got) under its timeline. */
const show = async (title: string, path: string, init?: RequestInit): Promise<void> => {
  log(`  ${title}`);
  try {
    const response = await fetchWithRetry(path, init);
    log(`    -> ${response.status} ${await response.text()}`);
  } catch (error) {
    const info = getRetryInfo(error);
    log(`    -> ${String(error)} after ${info?.attempts ?? '?'} attempt(s)`);
  }
};

const run = async (): Promise<string[]> => {
  await show('GET /orders/7 (503, 503, then 200)', '/orders/7');
  // A browser reports it as a TypeError with no code ("Failed to fetch"): read as ERR_NETWORK.
  await show('GET /flaky-connection (the connection is reset once, then 200)', '/flaky-connection');
  // The page reads Retry-After because the API is on its own origin (another would have to expose it).
  await show('GET /rate-limited (429 with Retry-After: 1, then 200)', '/rate-limited');
  await show('POST /payments/p-3 without an Idempotency-Key (503: sent once)', '/payments/p-3', {
    method: 'POST',
    body: '{"amount":5}',
  });
  return lines;
};

(globalThis as { jitterbugTimeline?: Promise<string[]> }).jitterbugTimeline = run();
