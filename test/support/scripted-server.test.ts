import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpScriptedServer, type ScriptedServer, startScriptedServer } from './scripted-server.ts';

// The conformance and reliability suites trust this server's log; check the log itself.
describe('scripted server', () => {
  let server: ScriptedServer;
  beforeAll(async () => {
    server = await startScriptedServer();
  });
  afterAll(() => server.close());

  it('answers steps in order, repeats the last, and records requests', async () => {
    server.route('/a', [
      { status: 503, headers: { 'retry-after': '1' } },
      { status: 200, body: 'fine' },
    ]);
    const first = await fetch(`${server.url}/a`, { method: 'PUT', body: 'x1' });
    expect(first.status).toBe(503);
    expect(first.headers.get('retry-after')).toBe('1');
    await first.arrayBuffer();
    const second = await fetch(`${server.url}/a`);
    expect(await second.text()).toBe('fine');
    const third = await fetch(`${server.url}/a`);
    expect(await third.text()).toBe('fine');
    const seen = server.seen('/a');
    expect(seen.map((r) => [r.method, r.nth, r.body.toString()])).toEqual([
      ['PUT', 0, 'x1'],
      ['GET', 1, ''],
      ['GET', 2, ''],
    ]);
  });

  it('destroys connections before headers and mid-body', async () => {
    server.route('/reset', [{ destroy: 'before-headers' }]);
    await expect(fetch(`${server.url}/reset`)).rejects.toThrow();
    server.route('/mid', [{ destroy: 'mid-body', sentBytes: 10, declaredBytes: 100 }]);
    const res = await fetch(`${server.url}/mid`);
    expect(res.status).toBe(200);
    await expect(res.arrayBuffer()).rejects.toThrow();
  });

  it('sends large bodies with backpressure and notes how much was written', async () => {
    server.route('/big', [{ status: 503, bodyBytes: 1_000_000 }]);
    const res = await fetch(`${server.url}/big`);
    expect((await res.arrayBuffer()).byteLength).toBe(1_000_000);
    expect(server.responses.at(-1)?.bytesWritten).toBe(1_000_000);
  });
});

// The runtime suites (test/runtimes/) call it from browser pages on another origin.
describe('scripted server with cors and keepAlive: false', () => {
  let server: HttpScriptedServer;
  beforeAll(async () => {
    server = await startScriptedServer({ cors: true, keepAlive: false });
  });
  afterAll(() => server.close());

  it('answers a preflight without counting it as a request or taking a step', async () => {
    server.route('/pay', [{ status: 503 }, { status: 201, body: 'made' }]);
    const preflight = await fetch(`${server.url}/pay`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://127.0.0.1:1',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'Idempotency-Key,content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('idempotency-key');
    // axios' fetch adapter sends User-Agent from Firefox pages.
    expect(preflight.headers.get('access-control-allow-headers')).toContain('user-agent');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    await preflight.arrayBuffer();
    expect(server.preflights).toEqual([
      { path: '/pay', method: 'POST', headers: ['idempotency-key', 'content-type'] },
    ]);
    expect(server.seen('/pay')).toEqual([]);
    const first = await fetch(`${server.url}/pay`, { method: 'POST', body: 'x' });
    expect(first.status).toBe(503);
    await first.arrayBuffer();
    expect(server.seen('/pay').map((r) => r.nth)).toEqual([0]);
  });

  it('counts a plain OPTIONS request (no Access-Control-Request-Method) as a request', async () => {
    const res = await fetch(`${server.url}/opt`, { method: 'OPTIONS' });
    await res.arrayBuffer();
    expect(server.seen('/opt').map((r) => r.method)).toEqual(['OPTIONS']);
  });

  it('exposes Retry-After to pages and closes each connection after its answer', async () => {
    server.route('/limited', [{ status: 429, headers: { 'retry-after': '2' } }]);
    const res = await fetch(`${server.url}/limited`);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-expose-headers')).toContain('retry-after');
    expect(res.headers.get('connection')).toBe('close');
    await res.arrayBuffer();
    expect(await server.waitForIdle(2_000)).toBe(0);
  });
});
