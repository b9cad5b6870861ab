/**
 * Hedged requests through axios (the policy's `hedge` option), over a real server whose first answer
 * is slow, with axios' http adapter and its fetch adapter: the copy that answers first wins, the
 * others are cancelled (their connections closed), and only requests that may be sent twice are
 * hedged.
 */
import { Agent as HttpAgent } from 'node:http';
import { createHedging, createRetryPolicy, type RetryPolicyOptions } from '@jitterbug/core';
import { sleep as realSleep } from '@jitterbug/core/adapter';
import axios, { type AxiosInstance, isCancel } from 'axios';
import { Agent } from 'undici7';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedServer, startScriptedServer } from '../../../test/support/scripted-server.ts';
import { type AxiosAdapterOptions, attachRetry, capDiscardedBodies, getRetryInfo } from '../src/index.ts';
import { createTestClient, rejection, type TestClient } from './helpers.ts';

let server: ScriptedServer;
const clients: TestClient[] = [];

beforeAll(async () => {
  server = await startScriptedServer();
});
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  expect(await server.waitForIdle(3_000)).toBe(0);
  server.reset();
});
afterAll(async () => {
  await server.close();
});

/** A test client, and the signal of each request the fetch adapter sent (in order). */
interface HedgeClient extends TestClient {
  readonly signals: AbortSignal[];
}

/**
 * A test client on `adapter`, over keep-alive connections the test closes afterwards: the http
 * adapter's own agent, or for the fetch adapter an undici `Agent` under Node's fetch (the global
 * pool could not be closed). Node's fetch does not always close the connection of a request it
 * aborts at once (measured without jitterbug: a GET aborted after another one has been answered on
 * the same agent keeps its socket until the server answers), so for the fetch adapter a loser's
 * cancellation is checked on the signal its request was sent with.
 */
const makeClient = (
  adapter: 'http' | 'fetch',
  options: RetryPolicyOptions,
  attach?: AxiosAdapterOptions,
): HedgeClient => {
  const signals: AbortSignal[] = [];
  if (adapter === 'http') {
    const c = { ...createTestClient(server.url, options, { adapter: 'http' }, attach), signals };
    clients.push(c);
    return c;
  }
  const agent = new Agent();
  const viaAgent: typeof fetch = (input, init) => {
    if (input instanceof Request) signals.push(input.signal);
    return fetch(input, { ...init, dispatcher: agent } as RequestInit);
  };
  const c = createTestClient(server.url, options, { adapter: 'fetch', env: { fetch: viaAgent } }, attach);
  const client = { ...c, signals, close: () => void agent.destroy() };
  clients.push(client);
  return client;
};

describe.each(['http', 'fetch'] as const)("hedged requests, axios' %s adapter", (adapter) => {
  const client = (options: RetryPolicyOptions): AxiosInstance => makeClient(adapter, options).api;
  const slowThenFast = (path: string, slow: object = { status: 200, body: 'slow', delayMs: 3_000 }) =>
    server.route(path, [slow as never, { status: 200, body: 'fast' }]);

  it('a slow first copy: the second, sent after delayMs, answers; the first is cancelled', async () => {
    slowThenFast('/tail');
    const started = Date.now();
    const { api, signals } = makeClient(adapter, { hedge: createHedging({ delayMs: 50 }) });
    const config = { headers: { 'x-mine': 'a' } };
    const response = await api.get('/tail', config);
    expect(response.data).toBe('fast');
    // Generous: the slow copy would have held the caller for 3 s.
    expect(Date.now() - started).toBeLessThan(2_500);
    expect(server.seen('/tail')).toHaveLength(2);
    expect(server.seen('/tail').map((r) => r.headers['x-mine'])).toEqual(['a', 'a']);
    expect(getRetryInfo(response)).toMatchObject({
      attempts: 1,
      outcome: 'success',
      hedge: { copies: 1, winner: 2 },
    });
    // The response carries the caller's config, as an unhedged one does, with no signal of jitterbug's.
    expect(response.config.headers['x-mine']).toBe('a');
    expect(response.config.signal).toBeUndefined();
    const slow = server.responses.find((r) => r.path === '/tail' && (r.step as { delayMs?: number }).delayMs);
    if (adapter === 'http') {
      // The loser's connection is closed at once, long before its answer was due.
      expect(await server.waitForIdle(2_000, 1)).toBe(1);
    } else {
      expect(signals.map((signal) => signal.aborted)).toEqual([true, false]);
    }
    expect(slow?.finished).toBe(false);
  });

  it('a fast first copy: no hedge is sent, and the info says none was', async () => {
    server.route('/quick', [{ status: 200, body: 'q' }]);
    const response = await client({ hedge: createHedging({ delayMs: 200 }) }).get('/quick');
    expect(response.data).toBe('q');
    await realSleep(250);
    expect(server.seen('/quick')).toHaveLength(1);
    expect(getRetryInfo(response)?.hedge).toBeUndefined();
  });

  it('never hedges a POST without an idempotency key; hedges one with a key, with the same body', async () => {
    slowThenFast('/pay', { status: 200, body: 'slow', delayMs: 300 });
    const api = client({ hedge: createHedging({ delayMs: 20 }) });
    expect((await api.post('/pay', 'x')).data).toBe('slow');
    expect(server.seen('/pay')).toHaveLength(1);
    server.reset();
    slowThenFast('/pay', { status: 200, body: 'slow', delayMs: 3_000 });
    const keyed = await api.post('/pay', { n: 1 }, { headers: { 'idempotency-key': 'k' } });
    expect(keyed.data).toBe('fast');
    expect(server.seen('/pay').map((r) => r.body.toString())).toEqual(['{"n":1}', '{"n":1}']);
    expect(server.seen('/pay').map((r) => r.headers['idempotency-key'])).toEqual(['k', 'k']);
  });

  it('a final answer from either copy ends the attempt: a 404 wins, the other copy is cancelled', async () => {
    server.route('/gone', [
      { status: 200, body: 'slow', delayMs: 3_000 },
      { status: 404, body: 'no' },
    ]);
    const error = await rejection(client({ hedge: createHedging({ delayMs: 20 }) }).get('/gone'));
    expect(axios.isAxiosError(error) && error.response?.status).toBe(404);
    expect(getRetryInfo(error)).toMatchObject({
      attempts: 1,
      reason: 'status-not-retryable',
      hedge: { copies: 1, winner: 2 },
    });
    expect(server.seen('/gone')).toHaveLength(2);
    // The error carries the caller's config, not the copy's.
    expect(axios.isAxiosError(error) && error.config?.signal).toBeUndefined();
  });

  it('a 404 from the first copy ends the attempt too, before any hedge', async () => {
    server.route('/first', [{ status: 404, delayMs: 100 }]);
    const error = await rejection(client({ hedge: createHedging({ delayMs: 20 }) }).get('/first'));
    expect(axios.isAxiosError(error) && error.response?.status).toBe(404);
    expect(server.seen('/first')).toHaveLength(2);
    expect(getRetryInfo(error)).toMatchObject({ attempts: 1, hedge: { copies: 1, winner: 1 } });
  });

  it('a retried failure of one copy waits for the other copy', async () => {
    server.route('/half', [
      { status: 503, delayMs: 100 },
      { status: 200, body: 'ok', delayMs: 200 },
    ]);
    const response = await client({ hedge: createHedging({ delayMs: 20 }) }).get('/half');
    expect(response.data).toBe('ok');
    expect(getRetryInfo(response)).toMatchObject({ attempts: 1, retries: [], hedge: { winner: 2 } });
  });

  it('when every copy fails, the attempt is retried as any other', async () => {
    server.route('/both', [
      { status: 503, delayMs: 100 },
      { status: 503, delayMs: 50 },
      { status: 200, body: 'third' },
    ]);
    const response = await client({ hedge: createHedging({ delayMs: 20 }) }).get('/both');
    expect(response.data).toBe('third');
    expect(server.seen('/both')).toHaveLength(3);
    expect(getRetryInfo(response)).toMatchObject({ attempts: 2, outcome: 'success' });
  });

  it('the hedge budget: at most ten hedges held, `ratio` more per request', async () => {
    const api = client({ hedge: createHedging({ delayMs: 20, ratio: 0 }) });
    for (let i = 0; i < 10; i++) {
      slowThenFast(`/a${i}`, { status: 200, body: 'slow', delayMs: 300 });
      expect((await api.get(`/a${i}`)).data).toBe('fast');
      expect(server.seen(`/a${i}`)).toHaveLength(2);
    }
    slowThenFast('/b', { status: 200, body: 'slow', delayMs: 300 });
    const response = await api.get('/b');
    expect(response.data).toBe('slow');
    expect(server.seen('/b')).toHaveLength(1);
    expect(getRetryInfo(response)?.hedge).toBeUndefined();
  });

  it("the caller's abort cancels every copy, with its reason", async () => {
    server.route('/stuck', [{ status: 200, body: 'late', delayMs: 3_000 }]);
    const controller = new AbortController();
    const reason = new Error('left');
    const pending = rejection(
      client({ hedge: createHedging({ delayMs: 20 }) }).get('/stuck', { signal: controller.signal }),
    );
    while (server.seen('/stuck').length < 2) await realSleep(5);
    controller.abort(reason);
    const error = await pending;
    expect(isCancel(error)).toBe(true);
    expect((error as Error).cause).toBe(reason);
    expect(getRetryInfo(error)).toMatchObject({ attempts: 1, reason: 'aborted' });
    expect(await server.waitForIdle(2_000)).toBe(0);
    expect(server.responses.filter((r) => r.path === '/stuck' && r.finished)).toHaveLength(0);
    expect(server.seen('/stuck')).toHaveLength(2);
  });

  it("a CancelToken cancels every copy, with the token's Cancel", async () => {
    server.route('/token', [{ status: 200, body: 'late', delayMs: 3_000 }]);
    const source = axios.CancelToken.source();
    const pending = rejection(
      client({ hedge: createHedging({ delayMs: 20 }) }).get('/token', { cancelToken: source.token }),
    );
    while (server.seen('/token').length < 2) await realSleep(5);
    source.cancel('stop it');
    const error = await pending;
    expect(isCancel(error)).toBe(true);
    expect((error as Error).message).toBe('stop it');
    expect(await server.waitForIdle(2_000)).toBe(0);
    expect(server.seen('/token')).toHaveLength(2);
  });

  it('each copy has its own attempt timer: when both time out, the attempt is retried', async () => {
    server.route('/slowest', [
      { status: 200, body: 'a', delayMs: 3_000 },
      { status: 200, body: 'b', delayMs: 3_000 },
      { status: 200, body: 'c' },
    ]);
    const response = await client({ hedge: createHedging({ delayMs: 50 }), attemptTimeoutMs: 300 }).get(
      '/slowest',
    );
    expect(response.data).toBe('c');
    expect(server.seen('/slowest')).toHaveLength(3);
    expect(getRetryInfo(response)).toMatchObject({ attempts: 2, outcome: 'success' });
  });

  it('every copy of every attempt times out: the AxiosError with the jitterbug code', async () => {
    server.route('/never', [{ status: 200, delayMs: 3_000 }]);
    const api = client({ hedge: createHedging({ delayMs: 20 }), attemptTimeoutMs: 150, maxAttempts: 2 });
    const error = await rejection(api.get('/never'));
    expect(axios.isAxiosError(error) && error.code).toBe('ERR_JITTERBUG_ATTEMPT_TIMEOUT');
    expect(isCancel(error)).toBe(false);
    expect(server.seen('/never')).toHaveLength(4);
    expect(getRetryInfo(error)).toMatchObject({ attempts: 2, hedge: { copies: 2 } });
  });

  it('stream mode (capDiscardedBodies) sends no hedge: such an attempt is sent once', async () => {
    slowThenFast('/capped', { status: 200, body: 'slow', delayMs: 300 });
    const c = makeClient(adapter, { hedge: createHedging({ delayMs: 20 }) }, { capDiscardedBodies });
    const response = await c.api.get('/capped');
    expect(response.data).toBe('slow');
    expect(server.seen('/capped')).toHaveLength(1);
    expect(getRetryInfo(response)?.hedge).toBeUndefined();
  });
});

describe("hedged requests, responseType 'stream' (axios' http adapter)", () => {
  it("a dropped copy's stream body is destroyed; the winner's stream is the caller's", async () => {
    server.route('/streamed', [
      { status: 503, body: 'busy', delayMs: 100 },
      { status: 200, body: 'ok', delayMs: 200 },
    ]);
    const { api } = makeClient('http', { hedge: createHedging({ delayMs: 20 }) });
    const response = await api.get('/streamed', { responseType: 'stream' });
    const chunks: Buffer[] = [];
    for await (const chunk of response.data as AsyncIterable<Buffer>) chunks.push(chunk);
    expect(Buffer.concat(chunks).toString()).toBe('ok');
    expect(getRetryInfo(response)).toMatchObject({ attempts: 1, hedge: { copies: 1, winner: 2 } });
    // The 503's connection was closed (its body destroyed); the winner's is kept alive.
    expect(await server.waitForIdle(2_000, 1)).toBe(1);
  });
});

describe('hedged requests: the latency window', () => {
  it("learns the request's time to its answer, not the winning copy's own", async () => {
    const policy = createRetryPolicy({ random: () => 0.5, hedge: createHedging({ delayMs: 50 }) });
    const agent = new HttpAgent({ keepAlive: true });
    const api = axios.create({ baseURL: server.url, httpAgent: agent });
    const detach = attachRetry(api, policy);
    clients.push({ api, delays: [], detach, close: () => agent.destroy() });
    server.route('/saved', [
      { status: 200, body: 'slow', delayMs: 300 },
      { status: 200, body: 'fast' },
    ]);
    expect((await api.get('/saved')).data).toBe('fast');
    const window = policy.options.hedge ? policy.options.hedge.latencies : undefined;
    expect(window?.count).toBe(1);
    // The fast copy went out after the 50 ms delay: the request took at least that long.
    expect(window?.percentile(50)).toBeGreaterThanOrEqual(50);
  });

  it('a percentile delay learns from attempts that were not hedged, and hedges once 20 are known', async () => {
    const policy = createRetryPolicy({
      random: () => 0.5,
      hedge: createHedging({ delayMs: 'p50', ratio: 1 }),
    });
    const agent = new HttpAgent({ keepAlive: true });
    const api = axios.create({ baseURL: server.url, httpAgent: agent });
    const detach = attachRetry(api, policy);
    clients.push({ api, delays: [], detach, close: () => agent.destroy() });
    server.route('/quick', [{ status: 200, body: 'q' }]);
    for (let i = 0; i < 20; i++) await api.get('/quick');
    expect(policy.options.hedge?.latencies.count).toBe(20);
    server.route('/late', [
      { status: 200, body: 'slow', delayMs: 3_000 },
      { status: 200, body: 'fast' },
    ]);
    expect((await api.get('/late')).data).toBe('fast');
    expect(server.seen('/late')).toHaveLength(2);
  });
});
