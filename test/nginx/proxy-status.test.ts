/**
 * `Proxy-Status` (RFC 9209) from a real nginx, through every client over TLS, default jitterbug
 * options. nginx's error pages carry what nginx knows: its upstream is a closed port, so every 502
 * of `/down/` is a refused connection (`error=connection_refused`), and a 504 of `/slow/` is a
 * backend slower than `proxy_read_timeout` (`error=http_response_timeout`, set by a `map` on the
 * status, so the backend's own answers carry none). A POST without a key that nginx proves it never
 * forwarded is sent again; one the backend may have had is sent once. Each checked in nginx's
 * access log and the backend's record.
 */
import { DEFAULTS } from '@jitterbug/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConformanceClient } from '../conformance/driver.ts';
import type { NginxSetup } from '../support/nginx/config.ts';
import { CLIENTS, type ClientName, createClient, tlsTransport } from '../support/node-clients.ts';
import { ending } from '../support/sent.ts';
import { type Stack, startStack } from './stack.ts';

const READ_TIMEOUT_MS = 300;
const setup: NginxSetup = {
  maps: [
    {
      variable: 'proxy_status',
      source: '$status',
      cases: [['^504$', 'nginx; error=http_response_timeout']],
    },
  ],
  servers: [
    {
      name: 'api',
      listen: ['https', 'h2'],
      locations: [
        {
          path: '/down/',
          to: { proxy: 'closed-port' },
          headers: { 'Proxy-Status': 'nginx; error=connection_refused' },
        },
        {
          path: '/slow/',
          to: { proxy: 'backend' },
          proxyReadTimeoutMs: READ_TIMEOUT_MS,
          headers: { 'Proxy-Status': '$proxy_status' },
        },
      ],
    },
  ],
};

const { transparentRetries } = DEFAULTS;

describe.each(CLIENTS)('nginx saying Proxy-Status on its errors, %s', (name: ClientName) => {
  let stack: Stack;
  let client: ConformanceClient;
  beforeEach(async () => {
    stack = await startStack(setup);
    const transport = tlsTransport(name);
    const url = stack.nginx.url('api', transport === 'h2' ? 'h2' : 'https');
    client = await createClient(name, url, {}, { name: transport, ca: stack.nginx.ca });
  });
  afterEach(async () => {
    await client.close();
    await stack.stop();
  });

  const logged = async (path: string) =>
    (await stack.nginx.accessLog.settled()).filter((l) => l.uri === path).map((l) => l.status);

  it(`a POST without a key answered 502 connection_refused is sent again, ${transparentRetries} times at most`, async () => {
    const sent = { method: 'POST', path: '/down/post', body: { kind: 'text', value: 'order' } } as const;
    const result = await client.send(sent);
    // ky and axios reject with their error for a 5xx; fetch and undici hand the response over.
    if (result.outcome.kind === 'response')
      expect(result.outcome.headers.get('proxy-status')).toBe('nginx; error=connection_refused');
    // A proxy whose backend stays down: the transparent retries end it, each one not-forwarded.
    expect(result.info).toMatchObject({
      attempts: 1 + transparentRetries,
      retries: Array(transparentRetries).fill('not-forwarded'),
    });
    expect(await logged('/down/post')).toEqual(Array(1 + transparentRetries).fill(502));
  });

  it('a POST without a key answered 504 http_response_timeout (the backend had it) is sent once', async () => {
    stack.backend.route('/slow/post', [
      { status: 200, body: 'late', delayMs: READ_TIMEOUT_MS * 4 },
      { status: 200, body: 'fast' },
    ]);
    const sent = { method: 'POST', path: '/slow/post', body: { kind: 'text', value: 'order' } } as const;
    const result = await client.send(sent);
    expect(ending({ request: sent, result })).toBe('504 method-not-idempotent');
    // ky and axios reject with their error for a 5xx; fetch and undici hand the response over.
    if (result.outcome.kind === 'response')
      expect(result.outcome.headers.get('proxy-status')).toBe('nginx; error=http_response_timeout');
    expect(await logged('/slow/post')).toEqual([504]);
    expect(stack.backend.seen('/slow/post')).toHaveLength(1);
  });

  it('a GET answered 504 http_response_timeout keeps the status rules: then its 200', async () => {
    stack.backend.route('/slow/get', [
      { status: 200, body: 'late', delayMs: READ_TIMEOUT_MS * 4 },
      { status: 200, body: 'fast' },
    ]);
    const sent = { method: 'GET', path: '/slow/get' };
    const result = await client.send(sent);
    expect(ending({ request: sent, result })).toBe('200');
    expect(result.outcome.kind === 'response' && result.outcome.headers.get('proxy-status')).toBeNull();
    expect(result.info).toMatchObject({ attempts: 2, retries: ['status'] });
    expect(await logged('/slow/get')).toEqual([504, 200]);
  });
});
