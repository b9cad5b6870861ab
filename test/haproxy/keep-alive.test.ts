/**
 * HAProxy's `timeout http-keep-alive 300ms` (see `keep-alive.ts`), 5 waves of 40 requests through
 * every client, default options: over HTTP/1.1, where a connection HAProxy closes as a request is
 * written to it resets that request, and over HTTP/2 (every client that speaks it here: axios'
 * http adapter does not), where the request meets a GOAWAY. Every GET and every keyed POST must end
 * 200, no POST without a key reach the backend twice, and nothing fail `budget-exhausted`: a
 * reset of a reused connection is the race, not a failing server (issue 36). What each client
 * ended with is printed for the record.
 */
import { describe, it } from 'vitest';
import { expectMixedServed } from '../support/mixed-load.ts';
import { CLIENTS, type ClientName } from '../support/node-clients.ts';
import { runKeepAlive, WAVE_SIZE, WAVES } from './keep-alive.ts';

const H2_SPEAKERS: readonly ClientName[] = CLIENTS.filter((c) => c !== 'axios');

const run = async (client: ClientName, transport: 'tls' | 'h2') => {
  const { outcome, connections } = await runKeepAlive(client, transport);
  console.info(`${client} over ${transport}: ${connections} connections; ${JSON.stringify(outcome)}`);
  expectMixedServed(outcome, WAVES * WAVE_SIZE);
};

describe.each(CLIENTS)('HAProxy timeout http-keep-alive 300ms over HTTP/1.1, %s', (client) => {
  it(`${WAVES} waves of ${WAVE_SIZE}: every GET and keyed POST 200, no POST twice, no budget-exhausted`, () =>
    run(client, 'tls'));
});

describe.each(H2_SPEAKERS)('HAProxy timeout http-keep-alive 300ms over HTTP/2, %s', (client) => {
  it(`${WAVES} waves of ${WAVE_SIZE}: every GET and keyed POST 200, no POST twice, no budget-exhausted`, () =>
    run(client, 'h2'));
});
