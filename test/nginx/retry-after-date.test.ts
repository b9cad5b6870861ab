/**
 * A 503 whose `Retry-After` is an HTTP-date a few seconds ahead (the backend's, passed on by
 * nginx), through every client over TLS with default jitterbug options: the request is sent again
 * no sooner than that date, by nginx's own record of when the second one arrived, and then gets
 * the backend's 200.
 */
import { describe, expect, it } from 'vitest';
import type { NginxSetup } from '../support/nginx/config.ts';
import { CLIENTS, createClient, tlsTransport } from '../support/node-clients.ts';
import { ending } from '../support/sent.ts';
import { startStack } from './stack.ts';

const setup: NginxSetup = {
  servers: [{ name: 'api', listen: ['https', 'h2'], locations: [{ path: '/', to: { proxy: 'backend' } }] }],
};

/** How far ahead the date is, in whole seconds past the current one. */
const AHEAD_S = 2;
/**
 * nginx's `$msec` and `$request_time` are whole milliseconds, and Node's timers may fire up to a
 * millisecond before their time by the wall clock: the arrival nginx records may read that much
 * before the date the client honoured.
 */
const CLOCK_GRAIN_MS = 3;

// Concurrent: each test has its own nginx and backend, and spends its time waiting for the date.
describe.concurrent.each(CLIENTS)('nginx passing on a 503 with an HTTP-date Retry-After, %s', (name) => {
  it(`is sent again no sooner than the date (${AHEAD_S} to ${AHEAD_S + 1} s ahead)`, async () => {
    const stack = await startStack(setup);
    try {
      let askedMs = 0;
      stack.backend.route('/maintenance', (seen) => {
        if (seen.nth > 0) return { status: 200, body: 'back' };
        askedMs = (Math.floor(Date.now() / 1000) + AHEAD_S + 1) * 1000;
        return { status: 503, headers: { 'retry-after': new Date(askedMs).toUTCString() } };
      });
      const transport = tlsTransport(name);
      const client = await createClient(
        name,
        stack.nginx.url('api', transport === 'h2' ? 'h2' : 'https'),
        {},
        { name: transport, ca: stack.nginx.ca },
      );
      const request = { method: 'GET', path: '/maintenance' };
      const result = await client.send(request).finally(() => client.close());
      expect(ending({ request, result })).toBe('200');
      expect(result.info?.retries).toEqual(['status']);
      const [refused, retried, ...more] = await stack.nginx.accessLog.settled();
      expect(more).toEqual([]);
      expect([refused?.status, retried?.status]).toEqual([503, 200]);
      // nginx's record of the retry's arrival, to its millisecond: not before the date.
      expect(retried!.startMs).toBeGreaterThanOrEqual(askedMs - CLOCK_GRAIN_MS);
    } finally {
      await stack.stop();
    }
  });
});
