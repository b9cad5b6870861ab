/**
 * Connection rotation over plain HTTP/1.1 (`keepalive_requests 5`: nginx closes each connection
 * after its fifth answer), through every client, 40 and then 20 requests in flight. A client never
 * sends a request on a connection nginx has announced it closes, so nothing is lost here.
 */
import { describe, it } from 'vitest';
import { CLIENTS } from '../support/node-clients.ts';
import { expectEveryRequestServed, runRotation } from './rotation.ts';

describe.each(CLIENTS)('nginx rotating HTTP/1.1 connections, %s', (client) => {
  it.each([40, 20])(
    '200 requests (half POST without a key), %i in flight: all 200, each POST sent once',
    async (inFlight) => {
      expectEveryRequestServed(await runRotation(client, 'http', inFlight), 'HTTP/1.1');
    },
  );
});
