/**
 * Caddy's `reverse_proxy` in front of a backend that is down (a closed port: Caddy answers 502),
 * through every client over TLS, default jitterbug options: a GET is sent `maxAttempts` times, a
 * POST without a key once, a POST with an `Idempotency-Key` `maxAttempts` times with the same key,
 * by Caddy's log.
 */
import { DEFAULTS } from '@jitterbug/core';
import { describe, expect, it } from 'vitest';
import { startCaddy } from '../support/caddy/caddy.ts';
import { CLIENTS, createClient, tlsTransport } from '../support/node-clients.ts';
import { startProxyStack } from '../support/proxy-stack.ts';
import { ending } from '../support/sent.ts';

const { maxAttempts } = DEFAULTS;

describe.each(CLIENTS)('Caddy with its upstream down, %s', (name) => {
  it(`502: a GET is sent ${maxAttempts} times, a POST without a key once, a keyed POST ${maxAttempts} times`, async () => {
    const stack = await startProxyStack((backend) =>
      startCaddy({ routes: [{ path: '/down/', to: 'closed-port' }] }, backend),
    );
    try {
      const { proxy } = stack;
      const client = await createClient(name, proxy.url, {}, { name: tlsTransport(name), ca: proxy.ca });
      const get = { method: 'GET', path: '/down/get' };
      const post = { method: 'POST', path: '/down/post', body: { kind: 'text', value: 'order' } } as const;
      const keyed = { ...post, path: '/down/keyed', headers: { 'Idempotency-Key': 'order-7' } };
      try {
        expect(ending({ request: get, result: await client.send(get) })).toBe('502 max-attempts');
        expect(ending({ request: post, result: await client.send(post) })).toBe('502 method-not-idempotent');
        expect(ending({ request: keyed, result: await client.send(keyed) })).toBe('502 max-attempts');
      } finally {
        await client.close();
      }
      const log = await proxy.log.settled();
      const of = (path: string) =>
        log.filter((l) => l.uri === path).map((l) => `${l.status} ${l.idempotencyKey ?? '-'}`);
      expect(of('/down/get')).toEqual(Array(maxAttempts).fill('502 -'));
      expect(of('/down/post')).toEqual(['502 -']);
      expect(of('/down/keyed')).toEqual(Array(maxAttempts).fill('502 order-7'));
      expect(stack.backend.requests).toEqual([]);
    } finally {
      await stack.stop();
    }
  });
});
