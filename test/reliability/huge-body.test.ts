/**
 * A server that answers with a 1 GB error body (streamed lazily by the scripted server from one
 * shared 64 KiB chunk: never allocated) must not make any client buffer it when the response is
 * discarded for a retry: the server's own count of bytes written stays far below 1 GB and the
 * client's memory does not grow by anything like it. With and without a `content-length`.
 *
 * axios runs here both ways `attachRetry` can: the conformance drivers attach it with
 * `{ discardedBodyCap: createDiscardedBodyCap() }` (jitterbug reads a body that may be discarded, within
 * `discardBodyMaxBytes`), so they pass the test above; by default axios reads every body itself, as
 * without jitterbug, and the bounds are axios' own `maxContentLength` (a huge body) and
 * `attemptTimeoutMs` (an endless one), tested below for what they are.
 */
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ConformanceClient } from '../conformance/driver.ts';
import { createAxiosClient } from '../conformance/drivers/axios.ts';
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

describe.each(['http', 'fetch'] as const)('axios %s adapter by default (no discardedBodyCap)', (adapter) => {
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

  const MAX_CONTENT_LENGTH = 1024 * 1024;

  it.each([
    ['with content-length', false],
    ['chunked, size unknown', true],
  ])(
    "a 1 GB 503 %s is bounded by axios' own maxContentLength: axios' error, not retried",
    async (_label, chunked) => {
      server.route('/huge', [
        { status: 503, bodyBytes: GIB, chunked },
        { status: 200, body: 'small' },
      ]);
      const c = createAxiosClient(
        server.url,
        { sleep: tinySleep().sleep },
        { adapter, defaults: { maxContentLength: MAX_CONTENT_LENGTH } },
      );
      clients.push(c);
      const before = memory();
      const result = await c.send({ method: 'GET', path: '/huge' });
      const grown = memory() - before;
      // axios rejects while reading the body, before anything shows jitterbug the status: the
      // request fails with axios' error, as it would without jitterbug.
      expect(result.outcome.kind).toBe('error');
      if (result.outcome.kind === 'error') {
        expect(result.outcome.error).toMatchObject({
          code: 'ERR_BAD_RESPONSE',
          message: `maxContentLength size of ${MAX_CONTENT_LENGTH} exceeded`,
        });
      }
      expect(result.info).toMatchObject({ attempts: 1, reason: 'error-not-retryable' });
      const [discarded] = server.responses;
      expect(discarded!.finished).toBe(false);
      expect(discarded!.bytesWritten).toBeLessThan(MAX_WRITTEN);
      expect(grown).toBeLessThan(MAX_GROWTH);
      expect(server.seen('/huge')).toHaveLength(1);
    },
    30_000,
  );
});

/** A server whose first answer is a 503 whose body never ends (1 KiB every 10 ms), then 200 `small`. */
const startEndlessServer = async () => {
  const sockets = new Set<Socket>();
  const bodies: { written: number; ended: boolean; closed: boolean }[] = [];
  const timers = new Set<ReturnType<typeof setInterval>>();
  const trickle = (res: ServerResponse): void => {
    const body = { written: 0, ended: false, closed: false };
    bodies.push(body);
    res.writeHead(503, { 'content-type': 'text/plain' });
    const timer = setInterval(() => {
      if (res.destroyed) return;
      res.write(Buffer.alloc(1024, 0x61));
      body.written += 1024;
    }, 10);
    timers.add(timer);
    res.on('close', () => {
      clearInterval(timer);
      timers.delete(timer);
      body.ended = res.writableFinished;
      body.closed = true;
    });
  };
  let requests = 0;
  const server = createServer((req, res) => {
    req.resume();
    if (requests++ === 0) trickle(res);
    else res.end('small');
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    bodies,
    requests: () => requests,
    openSockets: () => sockets.size,
    close: async () => {
      for (const timer of timers) clearInterval(timer);
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
};

describe.each(['http', 'fetch'] as const)('axios %s adapter by default: an endless 503 body', (adapter) => {
  it('is bounded by attemptTimeoutMs: the attempt times out, its connection is closed, the retry succeeds', async () => {
    const server = await startEndlessServer();
    const c = createAxiosClient(server.url, { sleep: tinySleep().sleep, attemptTimeoutMs: 300 }, { adapter });
    try {
      const result = await c.send({ method: 'GET', path: '/endless' });
      expect(result.outcome).toMatchObject({ kind: 'response', status: 200, body: 'small' });
      expect(result.info).toMatchObject({ attempts: 2, retries: ['error'] });
      expect(server.requests()).toBe(2);
      const [endless] = server.bodies;
      // The client closed the timed-out attempt's connection (before it is itself closed).
      for (let i = 0; i < 100 && !endless!.closed; i++) await new Promise((r) => setTimeout(r, 10));
      expect(endless).toMatchObject({ closed: true, ended: false });
      // What the attempt read before its timer fired: a trickle, not an unbounded download.
      expect(endless!.written).toBeLessThan(1024 * 1024);
    } finally {
      await c.close();
    }
    for (let i = 0; i < 100 && server.openSockets() > 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(server.openSockets()).toBe(0);
    await server.close();
  }, 10_000);
});
