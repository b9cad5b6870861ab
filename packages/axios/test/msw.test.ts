/**
 * attachRetry under msw (v3, `msw/node`): msw intercepts axios' http adapter, so retries, status
 * handling and request headers behave as against a real server.
 */
import axios, { type AxiosError } from 'axios';
import { delay, HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { attachRetry, getRetryInfo } from '../src/index.ts';
import { recordingSleep, rejection } from './helpers.ts';

const BASE = 'http://api.jitterbug.test';
const seen: { method: string; key: string | null; body: string }[] = [];
let script: Response[] = [];

const server = setupServer(
  http.all(`${BASE}/*`, async ({ request }) => {
    seen.push({
      method: request.method,
      key: request.headers.get('idempotency-key'),
      body: await request.text(),
    });
    return script.length > 1 ? script.shift()! : script[0]!.clone();
  }),
);

beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterEach(() => {
  server.resetHandlers();
  seen.length = 0;
});
afterAll(() => server.close());

const create = (options: Parameters<typeof attachRetry>[1] = {}) => {
  const delays: number[] = [];
  const api = axios.create({ baseURL: BASE });
  attachRetry(api, { random: () => 0.5, sleep: recordingSleep(delays), ...options });
  return { api, delays };
};

describe('with msw', () => {
  it('503 then 200', async () => {
    script = [new HttpResponse('busy', { status: 503 }), HttpResponse.json({ ok: true })];
    const { api, delays } = create();
    const response = await api.get('/items');
    expect(response.data).toEqual({ ok: true });
    expect(seen).toHaveLength(2);
    expect(delays).toHaveLength(1);
    expect(getRetryInfo(response)).toMatchObject({ attempts: 2, totalDelayMs: delays[0] });
  });

  it('always 503 ends in the rejection axios gives, with the body', async () => {
    script = [HttpResponse.json({ error: 'busy' }, { status: 503 })];
    const { api } = create({ maxAttempts: 2 });
    const error = (await rejection(api.get('/items'))) as AxiosError;
    expect(error.response?.status).toBe(503);
    expect(error.response?.data).toEqual({ error: 'busy' });
    expect(seen).toHaveLength(2);
  });

  it('429 with Retry-After waits what the server asks', async () => {
    script = [
      new HttpResponse(null, { status: 429, headers: { 'Retry-After': '2' } }),
      new HttpResponse('ok'),
    ];
    const { api, delays } = create();
    await api.get('/items');
    expect(delays).toEqual([2100]);
  });

  it('POST is retried only with an Idempotency-Key, always the same', async () => {
    script = [new HttpResponse(null, { status: 503 }), new HttpResponse('made', { status: 201 })];
    const { api } = create();
    await rejection(api.post('/orders', { n: 1 }));
    expect(seen).toHaveLength(1);
    seen.length = 0;
    script = [new HttpResponse(null, { status: 503 }), new HttpResponse('made', { status: 201 })];
    const response = await api.post('/orders', { n: 1 }, { headers: { 'Idempotency-Key': 'abc' } });
    expect(response.status).toBe(201);
    expect(seen).toEqual([
      { method: 'POST', key: 'abc', body: '{"n":1}' },
      { method: 'POST', key: 'abc', body: '{"n":1}' },
    ]);
  });

  it('attemptTimeoutMs retries a response that never comes', async () => {
    let n = 0;
    server.use(
      http.get(`${BASE}/slow`, async () => {
        if (n++ === 0) await delay('infinite');
        return new HttpResponse('late but here');
      }),
    );
    const { api } = create({ attemptTimeoutMs: 50 });
    const response = await api.get('/slow');
    expect(response.data).toBe('late but here');
    expect(n).toBe(2);
  });

  it('a mocked network error (no error code) is not retried: only known transient codes are', async () => {
    script = [HttpResponse.error()];
    const { api } = create();
    const error = (await rejection(api.get('/items'))) as AxiosError;
    expect(error.isAxiosError).toBe(true);
    expect(seen).toHaveLength(1);
    expect(getRetryInfo(error)).toMatchObject({ reason: 'error-not-retryable' });
  });
});
