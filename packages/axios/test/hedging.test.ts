/**
 * Hedged requests through axios, where axios itself is the point: the response and the error carry
 * the caller's config (no signal of jitterbug's), a `CancelToken` cancels every copy, a copy's
 * `responseType: 'stream'` body is destroyed when it is dropped, and the fetch adapter's lost copy is
 * sent with a signal that is aborted. What every client does with hedging (which copy wins, the
 * budget, the percentile, the caller's signal, per-copy timers, stream mode sending once) is in the
 * conformance suite (`test/conformance/hedging.test.ts`), on both adapters.
 */
import { createHedging, type RetryPolicyOptions } from '@jitterbug/core';
import axios, { isCancel } from 'axios';
import { Agent } from 'undici7';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedServer, startScriptedServer } from '../../../test/support/scripted-server.ts';
import { sleep as realSleep } from '../../core/src/sleep.ts';
import { getRetryInfo } from '../src/index.ts';
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

const HEDGE: RetryPolicyOptions = { hedge: createHedging({ delayMs: 20 }) };

/**
 * A hedging client on `adapter`, over keep-alive connections the test closes afterwards: the http
 * adapter's own agent, or for the fetch adapter an undici `Agent` under Node's fetch (the global
 * pool could not be closed). Node's fetch over undici 7 keeps the connection of a request aborted
 * after another was answered (see the conformance driver's `abortKeepsSocket`), so a lost copy's
 * cancellation is checked on the signal its request was sent with.
 */
const makeClient = (adapter: 'http' | 'fetch'): HedgeClient => {
  const signals: AbortSignal[] = [];
  if (adapter === 'http') {
    const c = { ...createTestClient(server.url, HEDGE, { adapter: 'http' }), signals };
    clients.push(c);
    return c;
  }
  const agent = new Agent();
  const viaAgent: typeof fetch = (input, init) => {
    if (input instanceof Request) signals.push(input.signal);
    return fetch(input, { ...init, dispatcher: agent } as RequestInit);
  };
  const c = createTestClient(server.url, HEDGE, { adapter: 'fetch', env: { fetch: viaAgent } });
  const client = { ...c, signals, close: () => void agent.destroy() };
  clients.push(client);
  return client;
};

describe.each(['http', 'fetch'] as const)("hedged requests, axios' %s adapter", (adapter) => {
  it("the response and the error carry the caller's config, not a copy's; the lost copy is cancelled", async () => {
    server.route('/tail', [
      { status: 200, body: 'slow', held: true },
      { status: 200, body: 'fast' },
    ]);
    const { api, signals } = makeClient(adapter);
    const response = await api.get('/tail', { headers: { 'x-mine': 'a' } });
    expect(response.data).toBe('fast');
    expect(getRetryInfo(response)).toMatchObject({ hedge: { copies: 1, winner: 2 } });
    // As an unhedged response does, with no signal of jitterbug's.
    expect(response.config.headers['x-mine']).toBe('a');
    expect(response.config.signal).toBeUndefined();
    if (adapter === 'fetch') expect(signals.map((signal) => signal.aborted)).toEqual([true, false]);

    server.route('/gone', [
      { status: 200, body: 'slow', held: true },
      { status: 404, body: 'no' },
    ]);
    const error = await rejection(api.get('/gone'));
    expect(axios.isAxiosError(error) && error.response?.status).toBe(404);
    expect(getRetryInfo(error)).toMatchObject({ hedge: { copies: 1, winner: 2 } });
    expect(axios.isAxiosError(error) && error.config?.signal).toBeUndefined();
  });

  it("a CancelToken cancels every copy, with the token's Cancel", async () => {
    server.route('/token', [{ status: 200, body: 'late', held: true }]);
    const source = axios.CancelToken.source();
    const pending = rejection(makeClient(adapter).api.get('/token', { cancelToken: source.token }));
    while (server.seen('/token').length < 2) await realSleep(5);
    source.cancel('stop it');
    const error = await pending;
    expect(isCancel(error)).toBe(true);
    expect((error as Error).message).toBe('stop it');
    expect(await server.waitForIdle(2_000)).toBe(0);
    expect(server.seen('/token')).toHaveLength(2);
  });
});

describe("hedged requests, responseType 'stream' (axios' http adapter)", () => {
  it("a dropped copy's stream body is destroyed; the winner's stream is the caller's", async () => {
    // In this order, whatever the machine's load: the hedged copy arrives, the first copy's 503 is
    // written, then the copy's 200.
    let copyArrived!: () => void;
    const arrived = new Promise<void>((resolve) => (copyArrived = resolve));
    server.route('/streamed', async ({ nth }) => {
      if (nth === 0) {
        await arrived;
        return { status: 503, body: 'busy' };
      }
      copyArrived();
      while (!server.responses.some((r) => r.path === '/streamed' && r.finished)) await realSleep(5);
      return { status: 200, body: 'ok' };
    });
    const { api } = makeClient('http');
    const response = await api.get('/streamed', { responseType: 'stream' });
    const chunks: Buffer[] = [];
    for await (const chunk of response.data as AsyncIterable<Buffer>) chunks.push(chunk);
    expect(Buffer.concat(chunks).toString()).toBe('ok');
    expect(getRetryInfo(response)).toMatchObject({ attempts: 1, hedge: { copies: 1, winner: 2 } });
    // The 503's connection was closed (its body destroyed); the winner's is kept alive.
    expect(await server.waitForIdle(2_000, 1)).toBe(1);
  });
});
