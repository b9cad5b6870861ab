/**
 * The nginx harness itself: the config it writes is what nginx 1.22 accepts and does what the
 * setup says (TLS with HTTP/2, plain HTTP/1.1, a rate limit whose refusals alone carry
 * `Retry-After`, a static folder, a CORS API for a page on another server), its access log says
 * what reached it, and it ends with nothing left: no process, no folder. A missing nginx fails
 * saying how to install it.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alive, sleep, withEnv } from '../child-process.ts';
import { type HttpScriptedServer, startScriptedServer } from '../scripted-server.ts';
import { nginxConfig } from './config.ts';
import { NGINX_INSTALL_HINT, type RunningNginx, startNginx } from './nginx.ts';

describe('nginx started by a test', () => {
  let backend: HttpScriptedServer;
  let nginx: RunningNginx;
  let pages: string;
  let agent: Agent;
  beforeAll(async () => {
    pages = await mkdtemp(join(tmpdir(), 'jitterbug-pages-'));
    await writeFile(join(pages, 'index.html'), '<!doctype html><title>page</title>');
    backend = await startScriptedServer();
    nginx = await startNginx(
      {
        // The edge limiter's bucket: preflights only, one per path segment after /edge/.
        maps: [
          {
            variable: 'edge_key',
            source: '$request_method $uri',
            cases: [['^OPTIONS /edge/([^/]+)/', '$1']],
          },
        ],
        zones: { strict: { rate: '1r/m' }, edge: { rate: '1r/m', key: '$edge_key' } },
        servers: [
          {
            name: 'api',
            listen: ['http', 'https', 'h2'],
            locations: [
              { path: '/', to: { proxy: 'backend' } },
              {
                path: '/limited',
                exact: true,
                to: { proxy: 'backend' },
                limitReq: { zone: 'strict', nodelay: true, status: 429, retryAfterSeconds: 7 },
              },
              { path: '/cors/', to: { proxy: 'backend' }, cors: { allowOrigin: { server: 'page' } } },
              {
                path: '/edge/',
                to: { proxy: 'backend' },
                limitReq: { zone: 'edge', nodelay: true, status: 429 },
                cors: { allowOrigin: { server: 'page', listener: 'h2' }, preflight: 'target' },
              },
            ],
          },
          { name: 'page', listen: ['http', 'h2'], locations: [{ path: '/', to: { root: pages } }] },
        ],
      },
      { backend: backend.url },
    );
    agent = new Agent({ allowH2: true, connect: { ca: nginx.ca } });
  });
  afterAll(async () => {
    await agent.close();
    await nginx.stop();
    await backend.close();
    await rm(pages, { recursive: true, force: true });
  });

  const get = async (url: string, init: { method?: string; headers?: Record<string, string> } = {}) => {
    const res = await request(url, { dispatcher: agent, method: 'GET', ...init });
    return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
  };

  it('proxies over HTTP/2, HTTP/1.1 over TLS and plain HTTP/1.1, and logs each with its protocol and key', async () => {
    const key = { 'idempotency-key': 'k-1' };
    for (const listener of ['h2', 'https', 'http'] as const)
      expect((await get(`${nginx.url('api', listener)}/hello`, { headers: key })).body).toBe('ok');
    const lines = (await nginx.accessLog.settled()).filter((l) => l.uri === '/hello');
    expect(lines.map((l) => [l.protocol, l.port, l.status, l.upstreamStatus, l.idempotencyKey])).toEqual([
      ['HTTP/2.0', nginx.port('api', 'h2'), 200, 200, 'k-1'],
      ['HTTP/1.1', nginx.port('api', 'https'), 200, 200, 'k-1'],
      ['HTTP/1.1', nginx.port('api', 'http'), 200, 200, 'k-1'],
    ]);
    expect(backend.seen('/hello')).toHaveLength(3);
    for (const l of lines) expect(l.endMs).toBeGreaterThanOrEqual(l.startMs);
  });

  it('limit_req refuses with its status, and only the refusal carries Retry-After', async () => {
    const first = await get(`${nginx.url('api', 'http')}/limited`);
    const second = await get(`${nginx.url('api', 'http')}/limited`);
    expect([first.status, first.headers['retry-after']]).toEqual([200, undefined]);
    expect([second.status, second.headers['retry-after']]).toEqual([429, '7']);
    expect(backend.seen('/limited')).toHaveLength(1);
  });

  it('serves a static folder and a CORS API for a page from that server', async () => {
    const page = await get(`${nginx.url('page', 'http', 'localhost')}/`);
    expect([page.status, page.body]).toEqual([200, '<!doctype html><title>page</title>']);
    const origin = `http://localhost:${nginx.port('page', 'http')}`;
    const preflight = await get(`${nginx.url('api', 'http')}/cors/items`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(origin);
    expect(preflight.headers['access-control-allow-headers']).toContain('idempotency-key');
    backend.route('/cors/items', [{ status: 503, headers: { 'retry-after': '1' } }]);
    const refused = await get(`${nginx.url('api', 'http')}/cors/items`, { headers: { origin } });
    expect(refused.status).toBe(503);
    expect(refused.headers['access-control-allow-origin']).toBe(origin);
    expect(refused.headers['access-control-expose-headers']).toContain('retry-after');
    expect(backend.seen('/cors/items').map((r) => r.method)).toEqual(['GET']);
  });

  it('an edge limiter counts preflights (answered by the backend) per key, and nothing else', async () => {
    const origin = `https://localhost:${nginx.port('page', 'h2')}`;
    const send = async (method: string, path: string) => {
      const preflight = method === 'OPTIONS' ? { 'access-control-request-method': 'POST' } : {};
      const { status, headers } = await get(`${nginx.url('api', 'h2')}${path}`, {
        method,
        headers: { origin, ...preflight },
      });
      return [status, headers['access-control-allow-origin'], 'access-control-allow-methods' in headers];
    };
    expect(await send('OPTIONS', '/edge/a/1')).toEqual([200, origin, true]);
    expect(await send('OPTIONS', '/edge/a/2')).toEqual([429, origin, true]);
    // Another key has a bucket of its own; other methods are not limited, and get no preflight headers.
    expect(await send('OPTIONS', '/edge/b/1')).toEqual([200, origin, true]);
    for (let i = 0; i < 3; i++) expect(await send('POST', `/edge/a/${i}`)).toEqual([200, origin, false]);
    const preflights = backend.requests.filter((r) => r.method === 'OPTIONS' && r.path.startsWith('/edge/'));
    expect(preflights.map((r) => r.path)).toEqual(['/edge/a/1', '/edge/b/1']);
  });
});

describe('nginx harness', () => {
  it('leaves no process and no folder after stop', async () => {
    const nginx = await startNginx({ servers: [{ name: 'a', listen: ['http'], locations: [] }] });
    expect(alive(nginx.pid)).toBe(true);
    await nginx.stop();
    expect(alive(nginx.pid)).toBe(false);
    expect(existsSync(nginx.dir)).toBe(false);
  });

  it('leaves no nginx running when the test process is killed outright', async () => {
    const script = join(import.meta.dirname, 'killed-parent-child.ts');
    const child = spawn(process.execPath, ['--conditions=@jitterbug/source', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const [line] = (await once(child.stdout!, 'data')) as [Buffer];
    const [pid, dir] = line.toString().trim().split(' ');
    expect(alive(Number(pid))).toBe(true);
    child.kill('SIGKILL');
    await once(child, 'exit');
    // setpriv --pdeathsig KILL: the kernel kills nginx when its parent dies.
    for (let waited = 0; alive(Number(pid)) && waited < 2_000; waited += 10) await sleep(10);
    expect(alive(Number(pid))).toBe(false);
    // Only the folder is left, for no one removed it: this test does.
    await rm(dir!, { recursive: true, force: true });
  });

  it("a config nginx refuses fails the start with nginx's own message", async () => {
    const start = startNginx({ zones: { z: { rate: 'often' } }, servers: [] });
    await expect(start).rejects.toThrow(/nginx exited \(code 1.*invalid rate "rate=often"/s);
  });

  it('a setup that names what it lacks is a TypeError', () => {
    const where = { dir: '/tmp/x', ports: new Map([['api', { https: 1 }]]) };
    const limited = { path: '/', to: { status: 204 }, limitReq: { zone: 'none', status: 429 } };
    expect(() =>
      nginxConfig({ servers: [{ name: 'api', listen: ['https'], locations: [limited] }] }, where),
    ).toThrow(new TypeError('limitReq.zone: no zone named "none"'));
    const cors = { path: '/', to: { status: 204 }, cors: { allowOrigin: { server: 'api' } } };
    expect(() =>
      nginxConfig({ servers: [{ name: 'api', listen: ['https'], locations: [cors] }] }, where),
    ).toThrow(new TypeError('cors.allowOrigin: server "api" has no http listener'));
  });

  it('a missing nginx fails saying how to install it', async () => {
    const start = withEnv('JITTERBUG_NGINX', '/nonexistent/nginx', () => startNginx({ servers: [] }));
    await expect(start).rejects.toThrow(
      `nginx is not installed: /nonexistent/nginx does not exist; ${NGINX_INSTALL_HINT}`,
    );
  });
});
