/**
 * The Caddy harness itself: the Caddyfile it writes is what Caddy 2.6 accepts and does what the
 * setup says (TLS from its local CA with HTTP/2 and HTTP/1.1, `reverse_proxy` to the backend or to a
 * closed port), its access log says what reached it, a reload takes the config again while the
 * process goes on, and it ends with nothing left: no process, no folder. A missing Caddy fails
 * saying how to install it.
 */
import { existsSync } from 'node:fs';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alive, withEnv } from '../child-process.ts';
import { killParentOf } from '../killed-parent.ts';
import { type HttpScriptedServer, startScriptedServer } from '../scripted-server.ts';
import { CADDY_INSTALL_HINT, type RunningCaddy, startCaddy } from './caddy.ts';

describe('Caddy started by a test', () => {
  let backend: HttpScriptedServer;
  let caddy: RunningCaddy;
  let h2: Agent;
  let http1: Agent;
  beforeAll(async () => {
    backend = await startScriptedServer();
    caddy = await startCaddy({ routes: [{ path: '/down/', to: 'closed-port' }] }, backend.url);
    h2 = new Agent({ allowH2: true, connect: { ca: caddy.ca } });
    http1 = new Agent({ allowH2: false, connect: { ca: caddy.ca } });
  });
  afterAll(async () => {
    await h2.close();
    await http1.close();
    await caddy.stop();
    await backend.close();
  });

  const get = async (path: string, dispatcher: Agent, headers: Record<string, string> = {}) => {
    const res = await request(`${caddy.url}${path}`, { dispatcher, headers });
    return { status: res.statusCode, body: await res.body.text() };
  };

  it('proxies over HTTP/2 and HTTP/1.1 with a certificate of its local CA, and logs each with its protocol and key', async () => {
    expect(await get('/hello?x=1', h2, { 'idempotency-key': 'k-1' })).toEqual({ status: 200, body: 'ok' });
    expect(await get('/hello', http1)).toEqual({ status: 200, body: 'ok' });
    const lines = (await caddy.log.settled()).filter((l) => l.uri === '/hello');
    expect(lines.map((l) => [l.protocol, l.status, l.idempotencyKey, l.size])).toEqual([
      ['HTTP/2.0', 200, 'k-1', 2],
      ['HTTP/1.1', 200, undefined, 2],
    ]);
    expect(backend.seen('/hello')).toHaveLength(2);
    for (const l of lines) expect(l.endMs).toBeGreaterThanOrEqual(l.startMs);
  });

  it('a route to a closed port is a 502', async () => {
    expect((await get('/down/x', h2)).status).toBe(502);
    const lines = (await caddy.log.settled()).filter((l) => l.uri === '/down/x');
    expect(lines.map((l) => l.status)).toEqual([502]);
  });

  it('reloads its config (forced) while the process goes on serving', async () => {
    const { pid } = caddy;
    await caddy.reload();
    expect(alive(pid)).toBe(true);
    expect(await get('/after-reload', h2)).toEqual({ status: 200, body: 'ok' });
    expect(await caddy.caddyLog()).toContain('load complete');
  });
});

describe('Caddy harness', () => {
  it('leaves no process and no folder after stop', async () => {
    const caddy = await startCaddy({}, 'http://127.0.0.1:9');
    await caddy.stop();
    expect(alive(caddy.pid)).toBe(false);
    expect(existsSync(caddy.dir)).toBe(false);
  });

  it('leaves no Caddy running when the test process is killed outright', async () => {
    const { before, after } = await killParentOf('caddy');
    expect(before.length).toBeGreaterThanOrEqual(1);
    expect(after).toEqual([]);
  });

  it('a missing Caddy fails saying how to install it', async () => {
    const start = withEnv('JITTERBUG_CADDY', '/nonexistent/caddy', () =>
      startCaddy({}, 'http://127.0.0.1:9'),
    );
    await expect(start).rejects.toThrow(
      `caddy is not installed: /nonexistent/caddy does not exist; ${CADDY_INSTALL_HINT}`,
    );
  });
});
