/**
 * Hostile delay headers end to end: a real server sends garbage, negative, fractional, huge,
 * far-future and past `Retry-After` / `RateLimit-Reset` / `X-RateLimit-Reset` values (also
 * repeated headers) to every client. Each wait the policy asks for is finite, `>= 0` and within the
 * configured maximum, and every request still ends with the server's final answer.
 */
import { createPacer } from '@jitterbug/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ConformanceClient } from '../conformance/driver.ts';
import { drivers } from '../conformance/drivers/index.ts';
import { type ScriptedServer, startScriptedServer } from '../support/scripted-server.ts';
import { tinySleep } from './support.ts';

const MAX_MS = 5_000;
const CAP_MS = 50;

const VALUES: readonly string[] = [
  'soon',
  '-1',
  '-99999999999',
  '0',
  '0.5',
  '1.999',
  '1e3',
  '+3',
  ' 2 ',
  '0x1F',
  '9'.repeat(400),
  String(Number.MAX_SAFE_INTEGER),
  '1.7976931348623157e+308',
  'Infinity',
  'NaN',
  'Wed, 21 Oct 2015 07:28:00 GMT',
  'Fri, 31 Dec 9999 23:59:59 GMT',
  'Sun, 06 Nov 1994 08:49:37 GMT',
  'Sunday, 06-Nov-94 08:49:37 GMT',
  'Sun Nov  6 08:49:37 1994',
  'Mon, 99 Foo 2025 99:99:99 GMT',
  new Date(Date.now() + 3_000).toUTCString(),
  new Date(Date.now() + 86_400_000).toUTCString(),
  String(Math.floor(Date.now() / 1000) + 2),
  String(Math.floor(Date.now() / 1000) - 3600),
  String(Date.now() + 1500),
  String(Date.now() + 10 ** 12),
  '',
];

/** Header sets: each value in each header, plus repeated and conflicting headers. */
const HEADER_SETS: ReadonlyArray<Readonly<Record<string, string | string[]>>> = [
  ...VALUES.map((v) => ({ 'retry-after': v })),
  ...VALUES.map((v) => ({ 'ratelimit-reset': v })),
  ...VALUES.map((v) => ({ 'x-ratelimit-reset': v, 'retry-after': 'garbage' })),
  { 'retry-after': ['1', '99999'] },
  { 'retry-after': ['-1', 'soon'], 'ratelimit-reset': ['2', '3'] },
  { 'ratelimit-reset': ['x', '1'], 'x-ratelimit-reset': '4' },
];

describe.each(drivers.map((d) => [d.name, d] as const))('hostile delay headers: %s', (_name, driver) => {
  let server: ScriptedServer;
  const clients: ConformanceClient[] = [];

  beforeAll(async () => {
    server = await startScriptedServer();
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close();
    expect(await server.waitForIdle(3_000)).toBe(0);
    server.reset();
  });
  afterAll(() => server.close());

  // With the origin-wide pacer on, one far-future header holds every later request to this one
  // server: with 'give-up' they fail at once (tested in the pacer suites), with 'cap' the hold is
  // cut to maxMs — so the hostile values go through the pacer's arithmetic too.
  it.each([
    ['give-up', false],
    ['cap', false],
    ['cap', true],
  ] as const)(
    `${HEADER_SETS.length} header sets, whenLonger %s, pacer %s: waits finite, in [0, max]`,
    async (whenLonger, paced) => {
      const recorder = tinySleep();
      const c = await driver.create(server.url, {
        maxAttempts: 2,
        budget: false,
        pacer: paced && createPacer(),
        retryAfter: { maxMs: MAX_MS, whenLonger },
        backoff: { strategy: 'full', baseMs: 10, capMs: CAP_MS },
        sleep: recorder.sleep,
      });
      clients.push(c);
      for (const [i, headers] of HEADER_SETS.entries()) {
        const path = `/hostile/${i}`;
        // Node writes each element of an array value as its own header line.
        server.route(path, [
          { status: 429, headers: headers as Record<string, string>, body: 'limited' },
          { status: 200, body: 'fine' },
        ]);
        const result = await c.send({ method: 'GET', path });
        const status = result.outcome.kind === 'error' ? undefined : result.outcome.status;
        const attempts = server.seen(path).length;
        // Either it waited and retried (and got the 200), or it gave up on a too-long delay at once.
        if (attempts === 2) expect(status).toBe(200);
        else {
          expect(whenLonger).toBe('give-up');
          expect(status).toBe(429);
        }
      }
      expect(recorder.waits.length).toBeGreaterThan(HEADER_SETS.length / 2);
      for (const ms of recorder.waits) {
        expect(Number.isFinite(ms)).toBe(true);
        expect(ms).toBeGreaterThanOrEqual(0);
        expect(ms).toBeLessThanOrEqual(Math.max(MAX_MS, CAP_MS));
      }
    },
  );
});
