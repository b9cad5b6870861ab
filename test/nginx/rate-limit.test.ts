/**
 * A burst against nginx's rate limit, through every client over TLS with default jitterbug options
 * but `maxAttempts: 6`: nginx lets 20 requests a second through with a burst of 10 (`nodelay`) and
 * refuses the rest with 429 and `Retry-After: 1`. 30 GETs at once from one client: the server said
 * when to come back, so every one must end 200 (issue 24's done-criterion). How many 429s nginx
 * served is printed for the record; each retry after one came at least the second it asked for
 * later, by nginx's log.
 */
import { describe, expect, it } from 'vitest';
import { CLIENTS, createClient, tlsTransport } from '../support/node-clients.ts';
import { expectRetriesAfter429 } from '../support/polite-retries.ts';
import { countBy, endings, sendAll } from '../support/sent.ts';
import { limitReq20 } from './limit-req.ts';
import { startStack } from './stack.ts';

const BURST = 30;
const RETRY_AFTER_S = 1;
const setup = limitReq20(RETRY_AFTER_S);

describe.each(CLIENTS)('nginx limit_req 20r/s burst=10 nodelay, %s', (name) => {
  it(`${BURST} concurrent GETs, maxAttempts 6: all end 200`, async () => {
    const stack = await startStack(setup);
    try {
      const transport = tlsTransport(name);
      const url = stack.nginx.url('api', transport === 'h2' ? 'h2' : 'https');
      const client = await createClient(
        name,
        url,
        { maxAttempts: 6 },
        { name: transport, ca: stack.nginx.ca },
      );
      const requests = Array.from({ length: BURST }, (_, i) => ({ method: 'GET', path: `/items/${i}` }));
      const sent = await sendAll(client, requests, BURST).finally(() => client.close());
      const log = await stack.nginx.accessLog.settled();
      const statuses = Object.fromEntries(countBy(log, (l) => String(l.status)));
      console.info(
        `${name}: nginx served ${JSON.stringify(statuses)}; clients got ${JSON.stringify(endings(sent))}`,
      );

      expect(endings(sent)).toEqual({ '200': BURST });
      // Each request reached the backend once, through nginx's one 200 for it.
      expect(Object.fromEntries(countBy(stack.backend.requests, (r) => r.path))).toEqual(
        Object.fromEntries(requests.map((r) => [r.path, 1])),
      );
      expect(statuses['200']).toBe(BURST);
      // Polite: every retry after a 429 arrived at least Retry-After later, by the server's clock.
      expectRetriesAfter429(
        log,
        requests.map((r) => r.path),
        RETRY_AFTER_S,
      );
    } finally {
      await stack.stop();
    }
  });
});
