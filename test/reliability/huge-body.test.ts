/**
 * A server that answers with a 1 GB error body (streamed lazily by the scripted server from one
 * shared 64 KiB chunk: never allocated) must not make any client buffer it when the response is
 * discarded for a retry: the server's own count of bytes written stays far below 1 GB and the
 * client's memory does not grow by anything like it. With and without a `content-length`.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ConformanceClient } from '../conformance/driver.ts';
import { drivers } from '../conformance/drivers/index.ts';
import { type ScriptedServer, startScriptedServer } from '../support/scripted-server.ts';
import { tinySleep } from './support.ts';

const GIB = 1024 ** 3;
/** Far below 1 GiB, far above the 64 KiB drain cap plus loopback socket buffers. */
const MAX_WRITTEN = 64 * 1024 ** 2;
const MAX_GROWTH = 128 * 1024 ** 2;

const memory = (): number => {
  const m = process.memoryUsage();
  return m.rss + m.arrayBuffers;
};

describe.each(drivers.map((d) => [d.name, d] as const))('1 GB error body: %s', (_name, driver) => {
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

  it.each([
    ['with content-length', false],
    ['chunked, size unknown', true],
  ])(
    'a discarded 503 %s is not buffered; the retry succeeds',
    async (_label, chunked) => {
      server.route('/huge', [
        { status: 503, bodyBytes: GIB, chunked },
        { status: 200, body: 'small' },
      ]);
      const c = await driver.create(server.url, { sleep: tinySleep().sleep });
      clients.push(c);
      const before = memory();
      const result = await c.send({ method: 'GET', path: '/huge' });
      const grown = memory() - before;
      expect(result.outcome.kind).toBe('response');
      if (result.outcome.kind === 'response') {
        expect(result.outcome.status).toBe(200);
        expect(result.outcome.body).toBe('small');
      }
      const [discarded] = server.responses;
      expect(discarded!.finished).toBe(false);
      expect(discarded!.bytesWritten).toBeLessThan(MAX_WRITTEN);
      expect(grown).toBeLessThan(MAX_GROWTH);
      expect(server.seen('/huge')).toHaveLength(2);
    },
    30_000,
  );
});
