/**
 * One policy for several clients: axios, ky and fetch share its retry budget. During an outage the
 * budget stops the retries of all of them together, so the struggling server sees little more than
 * the original requests; new requests refill it once the server is back.
 *
 * Run: node --conditions=@jitterbug/source examples/shared-policy.ts
 */
import { attachRetry } from '@jitterbug/axios';
import { createRetryBudget, createRetryPolicy } from '@jitterbug/core';
import { kyRetry } from '@jitterbug/ky';
import { retryInterceptor } from '@jitterbug/undici';
import axios from 'axios';
import ky from 'ky';
import { Agent, fetch } from 'undici';
import type { FlakyServer } from './flaky-server.ts';
import { runStandalone } from './standalone.ts';

export const main = async (server: FlakyServer, log: (line: string) => void): Promise<void> => {
  // A small budget so that the demo shows it running out: 4 retries at once, then 1 per 10 requests.
  const budget = createRetryBudget({ burst: 4, ratio: 0.1 });
  const reasons = new Map<string, number>();
  const policy = createRetryPolicy({
    backoff: { baseMs: 10, capMs: 100 },
    budget,
    onFinish: (s) => reasons.set(s.reason, (reasons.get(s.reason) ?? 0) + 1),
  });
  const viaAxios = axios.create({ baseURL: server.url, validateStatus: () => true });
  attachRetry(viaAxios, policy);
  const viaKy = ky.create({ baseUrl: server.url, throwHttpErrors: false, ...kyRetry(policy) });
  const dispatcher = new Agent().compose(retryInterceptor(policy));

  log('  12 requests to /down/* (an outage), 4 each through axios, ky and fetch, one shared budget:');
  for (let i = 0; i < 4; i++) {
    await viaAxios.get(`/down/a-${i}`);
    await viaKy.get(`down/k-${i}`);
    await (await fetch(`${server.url}/down/f-${i}`, { dispatcher })).arrayBuffer();
  }
  const attempts = [...server.hits]
    .filter(([k]) => k.startsWith('GET /down/'))
    .reduce((n, [, v]) => n + v, 0);
  log(`    the server saw ${attempts} attempts for 12 requests (without a budget: 36)`);
  log(`    outcomes: ${[...reasons].map(([r, n]) => `${n} × ${r}`).join(', ')}`);
  log(`    budget left: ${budget.tokens.toFixed(1)} tokens; every new request adds ${budget.ratio}`);
  await dispatcher.close();
};

if (import.meta.main) await runStandalone(main);
