/**
 * A rate-limit herd against a real nginx, through every client with jitterbug's default options:
 * 100 GETs at once from one client, nginx's `limit_req` letting 20 a second through with a burst of
 * 10 (`nodelay`) and refusing the rest with 429 and `Retry-After: 1`. The first wave's refusals
 * cannot be avoided (nginx lets 11 of the 100 through); the herd they make must come back in line,
 * not all at once: every request ends 200, with at most 15 429s after the first wave, and each
 * retry after a 429 comes at least the second it was told later, by nginx's log. ky keeps its
 * default `timeout` (10 s), the run's deadline under kyRetry: the line must serve its last request
 * within it. 20 r/s rather than the conformance suite's 10/s: 100 requests at 10 a second take more
 * than ky's 10 s however they are sent. How many 429s nginx served is printed for the record.
 */
import { describe, expect, it } from 'vitest';
import { CLIENTS, createClient, tlsTransport } from '../support/node-clients.ts';
import { countBy, endings, sendAll } from '../support/sent.ts';
import { limitReq20 } from './limit-req.ts';
import { startStack } from './stack.ts';

const IN_FLIGHT = 100;
const RETRY_AFTER_S = 1;
const setup = limitReq20(RETRY_AFTER_S);

describe.each(CLIENTS)('nginx limit_req 20r/s burst=10 nodelay, %s', (name) => {
  it(`${IN_FLIGHT} concurrent GETs with the defaults: all end 200, the herd comes back in line`, async () => {
    const stack = await startStack(setup);
    try {
      const transport = tlsTransport(name);
      const url = stack.nginx.url('api', transport === 'h2' ? 'h2' : 'https');
      const client = await createClient(name, url, {}, { name: transport, ca: stack.nginx.ca });
      const requests = Array.from({ length: IN_FLIGHT }, (_, i) => ({ method: 'GET', path: `/items/${i}` }));
      const startedAt = Date.now();
      const sent = await sendAll(client, requests, IN_FLIGHT).finally(() => client.close());
      const tookMs = Date.now() - startedAt;
      const log = await stack.nginx.accessLog.settled();
      const statuses = Object.fromEntries(countBy(log, (l) => String(l.status)));
      // The first wave: every request's first attempt, in nginx's log before any retry (a retry
      // waits the second it was told).
      const afterFirstWave = [...log].sort((a, b) => a.startMs - b.startMs).slice(IN_FLIGHT);
      const lateRefusals = afterFirstWave.filter((l) => l.status === 429).length;
      console.info(
        `${name}: nginx served ${JSON.stringify(statuses)}, ${lateRefusals} 429s after the first wave, in ${tookMs} ms; clients got ${JSON.stringify(endings(sent))}`,
      );

      expect(endings(sent)).toEqual({ '200': IN_FLIGHT });
      expect(statuses['200']).toBe(IN_FLIGHT);
      expect(lateRefusals).toBeLessThanOrEqual(15);
      for (const { path } of requests) {
        const lines = log.filter((l) => l.uri === path);
        for (let i = 1; i < lines.length; i++)
          if (lines[i - 1]!.status === 429)
            expect(lines[i]!.startMs - lines[i - 1]!.endMs).toBeGreaterThanOrEqual(RETRY_AFTER_S * 1000 - 3);
      }
    } finally {
      await stack.stop();
    }
  }, 30_000);
});
