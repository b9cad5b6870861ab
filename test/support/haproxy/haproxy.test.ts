/**
 * The HAProxy harness itself: the config it writes is what HAProxy 2.6 accepts and does what the
 * setup says (TLS with HTTP/2 and HTTP/1.1, a rate limit whose refusals alone carry `Retry-After`,
 * a backend down or too slow, an idle keep-alive timeout, a graceful reload), its log says what
 * reached it, and it ends with nothing left: no master, no worker, no folder. A missing HAProxy
 * fails saying how to install it.
 */
import { existsSync } from 'node:fs';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alive, withEnv } from '../child-process.ts';
import { killParentOf } from '../killed-parent.ts';
import { type HttpScriptedServer, startScriptedServer } from '../scripted-server.ts';
import { HAPROXY_INSTALL_HINT, type RunningHaproxy, startHaproxy } from './haproxy.ts';

const KEEP_ALIVE_MS = 300;

describe('HAProxy started by a test', () => {
  let backend: HttpScriptedServer;
  let haproxy: RunningHaproxy;
  let agent: Agent;
  beforeAll(async () => {
    backend = await startScriptedServer();
    haproxy = await startHaproxy(
      {
        keepAliveMs: KEEP_ALIVE_MS,
        routes: [
          { path: '/limited/', to: 'backend', rateLimit: { perSecond: 1, retryAfterSeconds: 7 } },
          { path: '/down/', to: 'closed-port' },
          { path: '/slow/', to: 'backend', timeoutServerMs: 200 },
        ],
      },
      backend.url,
    );
    agent = new Agent({ allowH2: true, connect: { ca: haproxy.ca } });
  });
  afterAll(async () => {
    await agent.close();
    await haproxy.stop();
    await backend.close();
  });

  const get = async (path: string, headers: Record<string, string> = {}) => {
    const res = await request(`${haproxy.url}${path}`, { dispatcher: agent, headers });
    return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
  };

  /** One GET over HTTP/1.1 on a connection of its own, kept open: resolves with the answer and when the socket closed. */
  const getHttp1 = (path: string) =>
    new Promise<{ status: number | undefined; closedAfterMs: Promise<number> }>((resolve, reject) => {
      const own = new HttpsAgent({ keepAlive: true, ca: haproxy.ca });
      const req = httpsRequest(`${haproxy.url}${path}`, { agent: own }, (res) => {
        res.resume();
        res.on('end', () => {
          const ended = Date.now();
          const closedAfterMs = new Promise<number>((r) =>
            req.socket?.once('close', () => r(Date.now() - ended)),
          );
          resolve({ status: res.statusCode, closedAfterMs });
        });
      });
      req.on('error', reject);
      req.end();
    });

  it('proxies over HTTP/2 and HTTP/1.1 on one TLS port, and logs each with its protocol and key', async () => {
    expect((await get('/hello', { 'idempotency-key': 'k-1' })).body).toBe('ok');
    expect((await getHttp1('/hello')).status).toBe(200);
    const lines = (await haproxy.log.settled()).filter((l) => l.uri === '/hello');
    expect(lines.map((l) => [l.protocol, l.status, l.server, l.termination, l.idempotencyKey])).toEqual([
      ['HTTP/2.0', 200, 'app', '--', 'k-1'],
      ['HTTP/1.1', 200, 'app', '--', undefined],
    ]);
    expect(backend.seen('/hello')).toHaveLength(2);
    for (const l of lines) expect(l.endMs).toBeGreaterThanOrEqual(l.startMs);
  });

  it('the rate limit refuses past its rate with 429, and only the refusal carries Retry-After', async () => {
    const first = await get('/limited/a');
    const second = await get('/limited/b');
    const third = await get('/limited/c');
    expect([first.status, first.headers['retry-after']]).toEqual([200, undefined]);
    expect([second.status, second.headers['retry-after']]).toEqual([429, '7']);
    expect(third.status).toBe(429);
    expect(backend.requests.filter((r) => r.path.startsWith('/limited/')).map((r) => r.path)).toEqual([
      '/limited/a',
    ]);
    const refused = (await haproxy.log.settled()).filter((l) => l.uri === '/limited/b');
    expect(refused.map((l) => [l.status, l.server])).toEqual([[429, undefined]]);
  });

  it('a backend that is down is a 503, one that is slower than timeout server a 504', async () => {
    backend.route('/slow/x', [{ status: 200, body: 'late', delayMs: 600 }]);
    expect((await get('/down/x')).status).toBe(503);
    expect((await get('/slow/x')).status).toBe(504);
    const lines = await haproxy.log.settled();
    const of = (uri: string) => lines.filter((l) => l.uri === uri).map((l) => `${l.status} ${l.termination}`);
    expect(of('/down/x')).toEqual(['503 SC']);
    expect(of('/slow/x')).toEqual(['504 sH']);
    expect(backend.seen('/slow/x')).toHaveLength(1);
  });

  it('closes an idle HTTP/1.1 connection after its keep-alive timeout', async () => {
    const { status, closedAfterMs } = await getHttp1('/idle');
    expect(status).toBe(200);
    const after = await closedAfterMs;
    // Closed by HAProxy (the client kept it), not before the timeout.
    expect(after).toBeGreaterThanOrEqual(KEEP_ALIVE_MS - 50);
  });

  it('reloads gracefully: a new worker serves, and the master stays the same process', async () => {
    const pid = haproxy.pid;
    await haproxy.reload();
    expect(haproxy.pid).toBe(pid);
    expect(alive(pid)).toBe(true);
    expect((await get('/after-reload')).status).toBe(200);
    expect(haproxy.stderr()).toMatch(/Loading success\.[\s\S]*Loading success\./);
  });
});

describe('HAProxy harness', () => {
  it('leaves no process and no folder after stop', async () => {
    const backend = await startScriptedServer();
    const haproxy = await startHaproxy({}, backend.url);
    await haproxy.stop();
    await backend.close();
    expect(alive(haproxy.pid)).toBe(false);
    expect(existsSync(haproxy.dir)).toBe(false);
  });

  it('leaves no HAProxy running, master or worker, when the test process is killed outright', async () => {
    const { before, after } = await killParentOf('haproxy');
    expect(before.length).toBeGreaterThanOrEqual(2);
    expect(after).toEqual([]);
  });

  it("a config HAProxy refuses fails the start with HAProxy's own message", async () => {
    const start = startHaproxy(
      { routes: [{ path: '/', to: 'backend', timeoutServerMs: -1 }] },
      'http://127.0.0.1:9',
    );
    await expect(start).rejects.toThrow(/haproxy exited \(code 1.*timeout server/s);
  });

  it('a missing HAProxy fails saying how to install it', async () => {
    const start = withEnv('JITTERBUG_HAPROXY', '/nonexistent/haproxy', () =>
      startHaproxy({}, 'http://127.0.0.1:9'),
    );
    await expect(start).rejects.toThrow(
      `haproxy is not installed: /nonexistent/haproxy does not exist; ${HAPROXY_INSTALL_HINT}`,
    );
  });
});
