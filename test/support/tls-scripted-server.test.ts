import type { IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import axios from 'axios';
import { Agent, request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { trustingAgentOptions, trustingAxiosConfig, trustingHttpsAgent } from './tls.ts';
import { startTlsScriptedServer, type TlsScriptedServer } from './tls-scripted-server.ts';

// The TLS front must be invisible: the plain server's log and faults, over https, to real clients.
describe('TLS scripted server', () => {
  let server: TlsScriptedServer;
  let agent: Agent;
  beforeAll(async () => {
    server = await startTlsScriptedServer();
  });
  afterEach(async () => {
    await agent?.close();
    expect(await server.waitForIdle(3_000)).toBe(0);
    server.reset();
  });
  afterAll(() => server.close());

  const newAgent = (): Agent => {
    agent = new Agent(trustingAgentOptions(server.ca));
    return agent;
  };

  it('answers steps in order over https and records what the plain server saw', async () => {
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const dispatcher = newAgent();
    server.route('/a', [
      { status: 503, headers: { 'retry-after': '1' } },
      { status: 200, body: 'fine' },
    ]);
    const first = await request(`${server.url}/a`, { dispatcher, method: 'PUT', body: 'x1' });
    expect(first.statusCode).toBe(503);
    expect(first.headers['retry-after']).toBe('1');
    await first.body.dump();
    const second = await request(`${server.url}/a`, { dispatcher });
    expect(await second.body.text()).toBe('fine');
    expect(server.seen('/a').map((r) => [r.method, r.nth, r.body.toString(), r.bodyComplete])).toEqual([
      ['PUT', 0, 'x1', true],
      ['GET', 1, '', true],
    ]);
    expect(server.openSockets()).toBeGreaterThan(0);
  });

  it('passes a connection destroyed before headers on as a lost connection', async () => {
    const dispatcher = newAgent();
    server.route('/reset', [{ destroy: 'before-headers' }]);
    const error = await request(`${server.url}/reset`, { dispatcher }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'UND_ERR_SOCKET' });
    expect(server.seen('/reset')).toHaveLength(1);
  });

  it('delivers exactly the bytes sent before a connection destroyed mid-body', async () => {
    const dispatcher = newAgent();
    server.route('/mid', [{ destroy: 'mid-body', sentBytes: 10, declaredBytes: 100 }]);
    const res = await request(`${server.url}/mid`, { dispatcher });
    expect(res.statusCode).toBe(200);
    let received = 0;
    const error = await (async () => {
      for await (const chunk of res.body) received += (chunk as Buffer).length;
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(received).toBe(10);
    expect(server.responses.at(-1)).toMatchObject({ bytesWritten: 10, finished: false });
  });

  it('sends large bodies with backpressure', async () => {
    const dispatcher = newAgent();
    server.route('/big', [{ status: 200, bodyBytes: 3_000_000 }]);
    const res = await request(`${server.url}/big`, { dispatcher });
    expect((await res.body.arrayBuffer()).byteLength).toBe(3_000_000);
    expect(server.responses.at(-1)).toMatchObject({ bytesWritten: 3_000_000, finished: true });
  });

  it('tells the plain server when the client abandons an upload (bodyComplete false)', async () => {
    const dispatcher = newAgent();
    const controller = new AbortController();
    const body = Readable.from(
      (async function* () {
        yield Buffer.from('part one');
        // The server has the headers and the first part; then the caller gives up.
        while (server.seen('/upload').length === 0) await new Promise((r) => setTimeout(r, 5));
        controller.abort(new Error('gave up'));
        await new Promise((r) => setTimeout(r, 1_000));
        yield Buffer.from('never');
      })(),
    );
    server.route('/upload', [{ status: 200 }]);
    await expect(
      request(`${server.url}/upload`, { dispatcher, method: 'POST', body, signal: controller.signal }),
    ).rejects.toThrow('gave up');
    await expect.poll(() => server.responses.length).toBe(1);
    expect(server.seen('/upload')[0]).toMatchObject({ bodyComplete: false });
  });

  it("serves Node's https and axios' http adapter trusting the certificate", async () => {
    agent = new Agent();
    const httpsAgent = trustingHttpsAgent(server.ca);
    try {
      const res = await new Promise<IncomingMessage>((resolve, reject) =>
        httpsRequest(`${server.url}/n`, { agent: httpsAgent }, resolve).on('error', reject).end(),
      );
      const socket = res.socket as TLSSocket;
      expect(socket.alpnProtocol).toBe(false); // https offers no ALPN; the server takes it as HTTP/1.1
      res.resume();
      await new Promise((r) => res.on('end', r));
      expect(res.statusCode).toBe(200);
    } finally {
      httpsAgent.destroy();
    }
    const config = trustingAxiosConfig(server.ca);
    try {
      const res = await axios.get(`${server.url}/x`, { httpsAgent: config.httpsAgent, responseType: 'text' });
      expect(res.data).toBe('ok');
    } finally {
      config.httpsAgent.destroy();
    }
    expect(server.requests.map((r) => r.path)).toEqual(['/n', '/x']);
  });

  it('fails the handshake of a client that does not trust the certificate; nothing reaches the log', async () => {
    agent = new Agent();
    const error = await request(`${server.url}/a`, { dispatcher: agent }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
    expect(server.requests).toHaveLength(0);
  });
});
