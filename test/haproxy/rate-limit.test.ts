/**
 * A burst against HAProxy's rate limit, through every client over TLS with default jitterbug
 * options: a stick table counts each client address's requests of the last second
 * (`http_req_rate(1s)`, the refused ones too), and past 20 HAProxy answers 429 with
 * `Retry-After: 1` itself. 22 GETs at once from one client: the server said when to come back, so
 * every one must end 200, each reaching the backend once, and each retry after a 429 must come at
 * least the second it asked for later, by HAProxy's log. How many 429s HAProxy served is printed for
 * the record. (22, not nginx's 30: the herd line sends the refused ones back a few a second at first,
 * and 30 took 8 s per client.)
 */
import { describe, expect, it } from 'vitest';
import { startHaproxy } from '../support/haproxy/haproxy.ts';
import { CLIENTS, createClient, tlsTransport } from '../support/node-clients.ts';
import { expectRetriesAfter429 } from '../support/polite-retries.ts';
import { startProxyStack } from '../support/proxy-stack.ts';
import { countBy, endings, sendAll } from '../support/sent.ts';

const BURST = 22;
const PER_SECOND = 20;
const RETRY_AFTER_S = 1;

describe.each(CLIENTS)('HAProxy http_req_rate limit 20/s, %s', (name) => {
  it(`${BURST} concurrent GETs, default options: all end 200`, async () => {
    const stack = await startProxyStack((backend) =>
      startHaproxy(
        {
          routes: [
            {
              path: '/',
              to: 'backend',
              rateLimit: { perSecond: PER_SECOND, retryAfterSeconds: RETRY_AFTER_S },
            },
          ],
        },
        backend,
      ),
    );
    try {
      const { proxy } = stack;
      const client = await createClient(name, proxy.url, {}, { name: tlsTransport(name), ca: proxy.ca });
      const requests = Array.from({ length: BURST }, (_, i) => ({ method: 'GET', path: `/items/${i}` }));
      const sent = await sendAll(client, requests, BURST).finally(() => client.close());
      const log = await proxy.log.settled();
      const statuses = Object.fromEntries(countBy(log, (l) => String(l.status)));
      console.info(
        `${name}: HAProxy served ${JSON.stringify(statuses)}; clients got ${JSON.stringify(endings(sent))}`,
      );

      expect(endings(sent)).toEqual({ '200': BURST });
      expect(Object.fromEntries(countBy(stack.backend.requests, (r) => r.path))).toEqual(
        Object.fromEntries(requests.map((r) => [r.path, 1])),
      );
      expect(statuses['200']).toBe(BURST);
      // HAProxy answered the 429s itself: none reached the backend.
      expect(log.filter((l) => l.status === 429 && l.server !== undefined)).toEqual([]);
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
