/**
 * Research, recorded as assertions: the same signals from Node 22's global fetch (its bundled
 * undici 6), in a Node 22 child process (`node22-fetch-probe.ts`) against servers in this one.
 * Connection failures through fetch's own dispatcher; a connect timeout and the HTTP/2 faults
 * through an undici 7 `Agent` with `allowH2` (undici 6's own HTTP/2 is off by default). Node 22's
 * fetch wraps errors as Node 24's does, and over HTTP/2 behaves as the undici 7 agent under it does
 * (see `signals-h2-node-fetch.test.ts`).
 */
import { execFile } from 'node:child_process';
import { lookup } from 'node:dns/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BrokenListener,
  refusedPort,
  startHandshakeResetListener,
  startSilentListener,
} from './broken-listeners.ts';
import { type H2ScriptedServer, startH2ScriptedServer } from './h2-scripted-server.ts';
import type { Node22Probe, Node22Result } from './node22-fetch-probe.ts';
import { startTlsScriptedServer, type TlsScriptedServer } from './tls-scripted-server.ts';

const NODE22 = fileURLToPath(new URL('../../.tools/node_modules/node22/bin/node', import.meta.url));
const PROBE = fileURLToPath(new URL('./node22-fetch-probe.ts', import.meta.url));
const INVALID_HOST = 'jitterbug-probe.invalid';

const fetchFailed = (cause: object) => ({ name: 'TypeError', message: 'fetch failed', cause });

describe('signals on Node 22 (global fetch = undici 6)', () => {
  let h2: H2ScriptedServer;
  let tls: TlsScriptedServer;
  let silent: BrokenListener;
  let handshakeReset: BrokenListener;
  let closedPort: number;
  let run: { node: string; undici: string; results: Node22Result[] };
  const probes: Record<string, Node22Probe> = {};

  beforeAll(async () => {
    [h2, tls, silent, handshakeReset, closedPort] = await Promise.all([
      startH2ScriptedServer(),
      startTlsScriptedServer(),
      startSilentListener(),
      startHandshakeResetListener(),
      refusedPort(),
    ]);
    h2.route('/refused', [{ destroy: 'before-headers', rst: 'REFUSED_STREAM' }]);
    h2.route('/below', [{ destroy: 'before-headers', goaway: 'below' }]);
    h2.route('/including', [{ status: 200, body: 'answered', goaway: 'including' }]);
    h2.route('/cancel-mid-body', [{ destroy: 'mid-body', rst: 'CANCEL', sentBytes: 10, declaredBytes: 100 }]);
    const agent = { ca: h2.ca };
    Object.assign(probes, {
      refused: { url: `http://127.0.0.1:${closedPort}/x`, method: 'POST' },
      notFound: { url: `http://${INVALID_HOST}/x`, method: 'POST' },
      untrusted: { url: `${tls.url}/x`, method: 'POST' },
      handshakeReset: { url: `${handshakeReset.url}/x`, method: 'POST' },
      connectTimeout: { url: `${silent.url}/x`, method: 'POST', agent: { connectTimeoutMs: 200 } },
      refusedStream: { url: `${h2.url}/refused`, method: 'GET', agent },
      goawayBelow: { url: `${h2.url}/below`, method: 'GET', agent },
      goawayIncluding: { url: `${h2.url}/including`, method: 'POST', agent },
      cancelMidBody: { url: `${h2.url}/cancel-mid-body`, method: 'GET', agent },
    } satisfies Record<string, Node22Probe>);
    const { stdout } = await promisify(execFile)(NODE22, [PROBE, JSON.stringify(Object.values(probes))], {
      timeout: 30_000,
    });
    run = JSON.parse(stdout) as typeof run;
  });
  afterAll(async () => {
    for (const server of [h2, tls]) expect(await server.waitForIdle(3_000)).toBe(0);
    await Promise.all([h2.close(), tls.close(), silent.close(), handshakeReset.close()]);
  });

  const result = (name: string): Node22Result => run.results[Object.keys(probes).indexOf(name)]!;
  const untraced = { events: ['onResponseError'], bodyBytesSent: 0 };

  it('ran on Node 22 with undici 6', () => {
    expect(run.node).toMatch(/^v22\./);
    expect(run.undici).toMatch(/^6\./);
  });

  it('connection refused, no such host, untrusted certificate, handshake reset: codes in the cause', async () => {
    const dnsCode = await lookup(INVALID_HOST).then(
      () => 'resolved',
      (e: { code: string }) => e.code,
    );
    expect(result('refused').error).toEqual(
      fetchFailed({
        name: 'Error',
        code: 'ECONNREFUSED',
        message: `connect ECONNREFUSED 127.0.0.1:${closedPort}`,
      }),
    );
    expect(result('notFound').error).toEqual(
      fetchFailed({ name: 'Error', code: dnsCode, message: `getaddrinfo ${dnsCode} ${INVALID_HOST}` }),
    );
    expect(result('untrusted').error).toEqual(
      fetchFailed({
        name: 'Error',
        code: 'DEPTH_ZERO_SELF_SIGNED_CERT',
        message: expect.stringContaining('self-signed certificate'),
      }),
    );
    expect(result('handshakeReset').error).toEqual(
      fetchFailed({ name: 'Error', code: 'ECONNRESET', message: 'read ECONNRESET' }),
    );
    expect(tls.requests).toHaveLength(0);
  });

  it('connect timeout through an undici 7 agent: UND_ERR_CONNECT_TIMEOUT, no onRequestStart', () => {
    const port = new URL(silent.url).port;
    expect(result('connectTimeout')).toEqual({
      error: fetchFailed({
        name: 'ConnectTimeoutError',
        code: 'UND_ERR_CONNECT_TIMEOUT',
        message: `Connect Timeout Error (attempted address: 127.0.0.1:${port}, timeout: 200ms)`,
      }),
      traces: [untraced],
    });
  });

  it('HTTP/2 through an undici 7 agent: as on Node 24', () => {
    const sentOnly = { events: ['onRequestStart', 'onResponseError'], bodyBytesSent: 0 };
    const goaway = {
      name: 'SocketError',
      code: 'UND_ERR_SOCKET',
      message: 'HTTP/2: "GOAWAY" frame received with code 0',
    };
    expect(result('refusedStream')).toEqual({
      error: fetchFailed({
        name: 'Error',
        code: 'ERR_HTTP2_STREAM_ERROR',
        message: 'Stream closed with error code NGHTTP2_REFUSED_STREAM',
      }),
      traces: [sentOnly],
    });
    expect(result('goawayBelow')).toEqual({ error: fetchFailed(goaway), traces: [sentOnly] });
    // A request the server processed and answered, failed as if refused.
    expect(result('goawayIncluding')).toEqual({ error: fetchFailed(goaway), traces: [sentOnly] });
    expect(result('cancelMidBody')).toEqual({
      status: 200,
      body: 'b'.repeat(10),
      traces: [
        {
          events: [
            'onRequestStart',
            'onResponseStarted',
            'onResponseStart',
            'onResponseData',
            'onResponseEnd',
          ],
          bodyBytesSent: 0,
        },
      ],
    });
    expect(h2.requests.map((r) => [r.path, r.processed])).toEqual([
      ['/refused', false],
      ['/below', false],
      ['/including', true],
      ['/cancel-mid-body', true],
    ]);
  });
});
