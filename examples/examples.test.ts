/**
 * CI runs every example against the local flaky server and checks what the server saw, so the
 * examples users copy keep working (and keep telling the truth).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main as axiosInterceptor } from './axios-interceptor.ts';
import { main as betweenAttempts, CLIENTS } from './between-attempts.ts';
import { main as browserExample } from './browser/run.ts';
import { main as credentialRefresh } from './credential-refresh.ts';
import { main as fetchDispatcher } from './fetch-dispatcher.ts';
import { main as fetchRetry } from './fetch-retry.ts';
import { type FlakyServer, startFlakyServer } from './flaky-server.ts';
import { main as kyHooks } from './ky-hooks.ts';
import { main as perRoutePolicies } from './per-route-policies.ts';
import { main as sharedPolicy } from './shared-policy.ts';

describe('examples', () => {
  let server: FlakyServer;
  let lines: string[];
  const log = (line: string) => lines.push(line);
  beforeEach(async () => {
    server = await startFlakyServer();
    lines = [];
  });
  afterEach(() => server.close());

  it('fetch-dispatcher: retries GETs, never repeats the POST, gives up on a long Retry-After', async () => {
    await fetchDispatcher(server, log);
    expect(server.hits.get('GET /orders/1')).toBe(3);
    expect(server.hits.get('GET /flaky-connection')).toBe(2);
    expect(server.hits.get('POST /payments/p-1')).toBe(1);
    expect(server.hits.get('GET /slow-down')).toBe(1);
    expect(lines.join('\n')).toContain('-> 200 {"id":"1","status":"shipped"}');
  });

  it('fetch-retry: retries GETs, sends a call with jitterbug: false once, holds calls with the pacer', async () => {
    await fetchRetry(server, log);
    expect(server.hits.get('GET /orders/7')).toBe(3);
    expect(server.hits.get('GET /orders/8')).toBe(1);
    expect(server.hits.get('POST /payments/p-2')).toBe(1);
    // Four calls, one 429: the three later calls waited for the hold instead of being answered 429.
    expect(server.hits.get('GET /quota')).toBe(5);
  });

  it('between-attempts: a new token, a new signature and a mirror on the retry, through every client', async () => {
    await betweenAttempts(server, log);
    const clients = Object.keys(CLIENTS);
    expect(clients).toEqual(['fetch', 'ky', 'axios', 'undici request', 'undici fetch']);
    for (const slug of clients.map((name) => name.replace(' ', '-'))) {
      expect(server.hits.get(`GET /me/${slug}`)).toBe(2);
      expect(server.hits.get(`GET /signed/${slug}`)).toBe(2);
      expect(server.hits.get(`GET /report/${slug}`)).toBe(2);
    }
    expect(server.hits.get('POST /token')).toBe(clients.length);
    const text = lines.join('\n');
    expect(text.match(/GET \/me with an expired token: 200 after 2 attempts/g)).toHaveLength(5);
    expect(text.match(/GET \/signed, signed: 200 after 2 attempts/g)).toHaveLength(5);
    expect(text.match(/GET \/report with the primary down: 200 after 3 attempts/g)).toHaveLength(5);
  });

  it('credential-refresh: 20 requests with an expired token, one refresh, every one 200 at its second attempt, through every client', async () => {
    await credentialRefresh(server, log);
    const clients = Object.keys(CLIENTS);
    for (const slug of clients.map((name) => name.replace(' ', '-'))) {
      expect(server.hits.get(`GET /me/${slug}`)).toBe(40);
    }
    expect(server.hits.get('POST /token')).toBe(clients.length);
    expect(
      lines.join('\n').match(/20 GETs with an expired token: 20 × 200, 40 attempts, 1 refresh/g),
    ).toHaveLength(clients.length);
  });

  it('per-route-policies: reports get 6 attempts, payments none, the rest 3', async () => {
    await perRoutePolicies(server, log);
    expect(server.hits.get('GET /reports/r-9')).toBe(5);
    expect(server.hits.get('POST /payments/p-7')).toBe(1);
    expect(server.hits.get('GET /down/d-1')).toBe(3);
    expect(lines.some((l) => l.includes('route "reports: be patient"'))).toBe(true);
  });

  it('axios-interceptor: retries, keeps the Idempotency-Key, leaves a 404 alone', async () => {
    await axiosInterceptor(server, log);
    expect(server.hits.get('GET /orders/2')).toBe(3);
    expect(server.hits.get('POST /orders')).toBe(2);
    expect(server.hits.get('GET /not-found')).toBe(1);
    expect(lines.join('\n')).toContain('getRetryInfo: 3 attempts');
  });

  it('ky-hooks: waits out Retry-After, then ky throws HTTPError when retries end on a 503', async () => {
    await kyHooks(server, log);
    expect(server.hits.get('GET /rate-limited')).toBe(2);
    expect(server.hits.get('GET /down/k-1')).toBe(3);
    const text = lines.join('\n');
    expect(text).toContain('(retry-after');
    expect(text).toContain('getRetryInfo: 2 attempts');
    expect(text).toContain('-> HTTPError 503');
  });

  it('shared-policy: one budget caps the retries of axios, ky and fetch together', async () => {
    await sharedPolicy(server, log);
    const downHits = [...server.hits].filter(([k]) => k.startsWith('GET /down/'));
    const attempts = downHits.reduce((n, [, v]) => n + v, 0);
    // Sequential requests make the count exact: the full bucket (4) pays two retries for each of the
    // first two requests; ten deposits of 0.1 then buy one more retry for the twelfth. 12 + 5 = 17.
    expect(downHits).toHaveLength(12);
    expect(attempts).toBe(17);
    expect(lines.join('\n')).toContain('budget-exhausted');
  });

  // A real page in Debian's headless Chromium (a missing browser fails the test, saying how to install it).
  it('browser: the page retries GETs (a reset as ERR_NETWORK), waits out Retry-After, sends the POST once', async () => {
    await browserExample(server, log);
    expect(server.hits.get('GET /orders/7')).toBe(3);
    expect(server.hits.get('GET /flaky-connection')).toBe(2);
    expect(server.hits.get('GET /rate-limited')).toBe(2);
    expect(server.hits.get('POST /payments/p-3')).toBe(1);
    const text = lines.join('\n');
    expect(text).toContain('HeadlessChrome/');
    expect(text).toContain('attempt 1: TypeError');
    expect(text).toContain('(retry-after');
    expect(text).toContain('-> 503 {"error":"busy"}');
  });
});
