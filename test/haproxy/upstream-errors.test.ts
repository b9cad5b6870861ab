/**
 * HAProxy in front of a backend that is down (a closed port: HAProxy answers 503 once its connect
 * retries are spent) or stalls once (`timeout server 300ms`: a 504), through every client over TLS,
 * default jitterbug options: a GET is retried to `maxAttempts`, a POST without a key is sent once,
 * a POST with an `Idempotency-Key` is retried; a 504 is followed by the 200 of the backend's second,
 * fast answer. Each checked in HAProxy's log (its termination state says who failed) and the
 * backend's record.
 */
import { DEFAULTS } from '@jitterbug/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConformanceClient } from '../conformance/driver.ts';
import { type RunningHaproxy, startHaproxy } from '../support/haproxy/haproxy.ts';
import { CLIENTS, type ClientName, createClient, tlsTransport } from '../support/node-clients.ts';
import { type ProxyStack, startProxyStack } from '../support/proxy-stack.ts';
import { ending } from '../support/sent.ts';

const TIMEOUT_SERVER_MS = 300;
const { maxAttempts } = DEFAULTS;

describe.each(CLIENTS)('HAProxy with its backend down or stalled, %s', (name: ClientName) => {
  let stack: ProxyStack<RunningHaproxy>;
  let client: ConformanceClient;
  beforeEach(async () => {
    stack = await startProxyStack((backend) =>
      startHaproxy(
        {
          routes: [
            { path: '/down/', to: 'closed-port' },
            { path: '/slow/', to: 'backend', timeoutServerMs: TIMEOUT_SERVER_MS },
          ],
        },
        backend,
      ),
    );
    client = await createClient(name, stack.proxy.url, {}, { name: tlsTransport(name), ca: stack.proxy.ca });
  });
  afterEach(async () => {
    await client.close();
    await stack.stop();
  });

  /** HAProxy's lines for one path: status, termination state and the Idempotency-Key it logged. */
  const logged = async (path: string) =>
    (await stack.proxy.log.settled())
      .filter((l) => l.uri === path)
      .map((l) => `${l.status} ${l.termination} ${l.idempotencyKey ?? '-'}`);

  it(`503 (down): a GET is sent ${maxAttempts} times, a POST without a key once, a keyed POST ${maxAttempts} times`, async () => {
    const get = { method: 'GET', path: '/down/get' };
    const post = { method: 'POST', path: '/down/post', body: { kind: 'text', value: 'order' } } as const;
    const keyed = { ...post, path: '/down/keyed', headers: { 'Idempotency-Key': 'order-7' } };
    expect(ending({ request: get, result: await client.send(get) })).toBe('503 max-attempts');
    expect(ending({ request: post, result: await client.send(post) })).toBe('503 method-not-idempotent');
    expect(ending({ request: keyed, result: await client.send(keyed) })).toBe('503 max-attempts');
    expect(await logged('/down/get')).toEqual(Array(maxAttempts).fill('503 SC -'));
    expect(await logged('/down/post')).toEqual(['503 SC -']);
    expect(await logged('/down/keyed')).toEqual(Array(maxAttempts).fill('503 SC order-7'));
  });

  it('504 when the backend stalls past timeout server, then its 200', async () => {
    stack.backend.route('/slow/once', [
      { status: 200, body: 'late', delayMs: TIMEOUT_SERVER_MS * 3 },
      { status: 200, body: 'fast' },
    ]);
    const sent = { method: 'GET', path: '/slow/once' };
    const result = await client.send(sent);
    expect(ending({ request: sent, result })).toBe('200');
    expect(result.outcome.kind === 'response' && result.outcome.body).toBe('fast');
    expect(result.info?.attempts).toBe(2);
    expect(await logged('/slow/once')).toEqual(['504 sH -', '200 -- -']);
    expect(stack.backend.seen('/slow/once')).toHaveLength(2);
  });
});
