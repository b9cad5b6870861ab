/**
 * The failures of the peers that jitterbug exists to avoid, reproduced as a user would meet them,
 * each beside jitterbug doing the same request. If a peer fixes its behaviour, its half of the test
 * fails and the README's comparison table must change with it.
 */
import { Readable } from 'node:stream';
import { retryInterceptor } from '@jitterbug/undici';
import axios from 'axios';
import axiosRetry from 'axios-retry';
import { Agent, interceptors, fetch as undiciFetch } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedServer, startScriptedServer } from '../support/scripted-server.ts';

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterEach(() => server.reset());
afterAll(() => server.close());

const chunks = ['invoice-line-1;', 'invoice-line-2;', 'invoice-line-3'];
const uploaded = chunks.join('');

describe('axios-retry (4.5, default options)', () => {
  it('re-sends a POST after a connection reset: a duplicated payment', async () => {
    server.route('/charge', [{ destroy: 'before-headers' }, { status: 201, body: 'charged' }]);
    const api = axios.create({ baseURL: server.url });
    axiosRetry(api);
    const res = await api.post('/charge', { amount: 100 });
    expect(res.status).toBe(201);
    expect(server.seen('/charge').map((r) => r.method)).toEqual(['POST', 'POST']);
  });

  it('re-sends a streamed PUT after a 503 without its body, and reports success', async () => {
    server.route('/upload', [{ status: 503 }, { status: 200, body: 'stored' }]);
    const api = axios.create({ baseURL: server.url });
    axiosRetry(api);
    const res = await api.put('/upload', Readable.from(chunks));
    expect(res.status).toBe(200);
    const bodies = server.seen('/upload').map((r) => r.body.toString());
    expect(bodies[0]).toBe(uploaded);
    expect(bodies[1]).not.toBe(uploaded);
  });
});

describe("undici's retry interceptor (undici 8)", () => {
  it("re-sends a streamed PUT after a 503 with an empty body through undici's fetch, and reports success", async () => {
    server.route('/upload', [{ status: 503 }, { status: 200, body: 'stored' }]);
    const dispatcher = new Agent().compose(interceptors.retry({ minTimeout: 1, maxTimeout: 5 }));
    try {
      const res = await undiciFetch(`${server.url}/upload`, {
        method: 'PUT',
        body: Readable.toWeb(Readable.from(chunks)) as ReadableStream,
        duplex: 'half',
        dispatcher,
      });
      await res.text();
      expect(res.status).toBe(200);
      expect(server.seen('/upload').map((r) => r.body.toString())).toEqual([uploaded, '']);
    } finally {
      await dispatcher.close();
    }
  });

  it("with Node's global fetch, never answers (the request is aborted here after 1 s)", async () => {
    server.route('/hello', [{ status: 200, body: 'hi' }]);
    const dispatcher = new Agent().compose(interceptors.retry());
    const signal = AbortSignal.timeout(1_000);
    try {
      const outcome = await fetch(`${server.url}/hello`, { dispatcher, signal } as RequestInit).then(
        (res) => `answered ${res.status}`,
        (error: unknown) => (signal.aborted ? 'no answer before the abort' : `failed: ${String(error)}`),
      );
      expect(outcome).toBe('no answer before the abort');
    } finally {
      await dispatcher.destroy();
    }
  });

  it('jitterbug, same requests: the stream is sent once, the caller gets the 503; global fetch answers', async () => {
    server.route('/upload', [{ status: 503 }, { status: 200, body: 'stored' }]);
    server.route('/hello', [{ status: 200, body: 'hi' }]);
    const dispatcher = new Agent().compose(retryInterceptor({ backoff: { baseMs: 1, capMs: 5 } }));
    try {
      const res = await undiciFetch(`${server.url}/upload`, {
        method: 'PUT',
        body: Readable.toWeb(Readable.from(chunks)) as ReadableStream,
        duplex: 'half',
        dispatcher,
      });
      await res.text();
      expect(res.status).toBe(503);
      expect(server.seen('/upload').map((r) => r.body.toString())).toEqual([uploaded]);
      const hello = await fetch(`${server.url}/hello`, { dispatcher } as RequestInit);
      expect(await hello.text()).toBe('hi');
    } finally {
      await dispatcher.close();
    }
  });
});
