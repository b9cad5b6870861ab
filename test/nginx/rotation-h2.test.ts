/**
 * Connection rotation over HTTP/2 (`keepalive_requests 5`: nginx sends a GOAWAY after the fifth
 * stream of a connection and never processes the streams above its last stream id), through
 * undici 8's `request()` and `fetch()`, 40 and then 20 requests in flight. The refused streams were
 * never processed: they must be sent again, whatever their method, and every POST still reach the
 * backend exactly once (issue 24's done-criterion).
 */
import { describe, it } from 'vitest';
import { H2_CLIENTS } from '../support/node-clients.ts';
import { expectEveryRequestServed, runRotation } from './rotation.ts';

describe.each(H2_CLIENTS)('nginx rotating HTTP/2 connections, %s', (client) => {
  it.each([40, 20])(
    '200 requests (half POST without a key), %i in flight: all 200, each POST sent once',
    async (inFlight) => {
      expectEveryRequestServed(await runRotation(client, 'h2', inFlight), 'HTTP/2.0');
    },
  );
});
