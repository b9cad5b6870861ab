/**
 * nginx in front of a backend that is down (502: the upstream is a closed port) or slow once (504:
 * `proxy_read_timeout`), through every client over TLS, default jitterbug options: a GET is
 * retried to `maxAttempts`, a POST without a key is sent once, a POST with an `Idempotency-Key` is
 * retried; a 504 is followed by the 200 of the backend's second, fast answer. Each checked in
 * nginx's access log and the backend's record.
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
  servers: [
    {
      name: 'api',
      listen: ['https', 'h2'],
      locations: [
        { path: '/down/', to: { proxy: 'closed-port' } },
        { path: '/slow/', to: { proxy: 'backend' }, proxyReadTimeoutMs: READ_TIMEOUT_MS },
      ],
    },
  ],
};

const { maxAttempts } = DEFAULTS;

describe.each(CLIENTS)('nginx with its upstream down or slow, %s', (name: ClientName) => {
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

  /** nginx's lines for one path: status and the Idempotency-Key it logged. */
  const logged = async (path: string) =>
    (await stack.nginx.accessLog.settled())
      .filter((l) => l.uri === path)
      .map((l) => `${l.status} ${l.idempotencyKey ?? '-'}`);

  it(`502: a GET is sent ${maxAttempts} times, then the 502 is the answer`, async () => {
    const sent = { method: 'GET', path: '/down/get' };
    expect(ending({ request: sent, result: await client.send(sent) })).toBe('502 max-attempts');
    expect(await logged('/down/get')).toEqual(Array(maxAttempts).fill('502 -'));
  });

  it('502: a POST without a key is sent once', async () => {
    const sent = { method: 'POST', path: '/down/post', body: { kind: 'text', value: 'order' } } as const;
    expect(ending({ request: sent, result: await client.send(sent) })).toBe('502 method-not-idempotent');
    expect(await logged('/down/post')).toEqual(['502 -']);
  });

  it(`502: a POST with an Idempotency-Key is sent ${maxAttempts} times, with the same key`, async () => {
    const sent = {
      method: 'POST',
      path: '/down/keyed',
      headers: { 'Idempotency-Key': 'order-7' },
      body: { kind: 'text', value: 'order' },
    } as const;
    expect(ending({ request: sent, result: await client.send(sent) })).toBe('502 max-attempts');
    expect(await logged('/down/keyed')).toEqual(Array(maxAttempts).fill('502 order-7'));
  });

  it('504 when the backend is slower than proxy_read_timeout, then its 200', async () => {
    stack.backend.route('/slow/once', [
      { status: 200, body: 'late', delayMs: READ_TIMEOUT_MS * 4 },
      { status: 200, body: 'fast' },
    ]);
    const sent = { method: 'GET', path: '/slow/once' };
    const result = await client.send(sent);
    expect(ending({ request: sent, result })).toBe('200');
    expect(result.outcome.kind === 'response' && result.outcome.body).toBe('fast');
    expect(result.info?.attempts).toBe(2);
    const lines = (await stack.nginx.accessLog.settled()).filter((l) => l.uri === '/slow/once');
    expect(lines.map((l) => `${l.status} upstream ${l.upstreamStatus}`)).toEqual([
      '504 upstream 504',
      '200 upstream 200',
    ]);
    expect(stack.backend.seen('/slow/once')).toHaveLength(2);
  });
});
