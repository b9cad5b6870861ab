/**
 * The HTTP/2 scripted server, checked frame by frame where it matters with Node's own `http2`
 * client (it reports the GOAWAY last stream id and the RST_STREAM codes as received), and end to
 * end with undici 8 (`allowH2`). The conformance and reliability suites trust its `processed` log.
 */
import { type ClientHttp2Session, connect, constants } from 'node:http2';
import { Agent, request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type H2ScriptedServer, startH2ScriptedServer } from './h2-scripted-server.ts';
import { trustingAgentOptions } from './tls.ts';

interface Exchange {
  readonly status: number | undefined;
  readonly body: string;
  /** The RST_STREAM code the stream closed with (0: it ended normally). */
  readonly rstCode: number;
  readonly streamId: number | undefined;
}

/** One request on a Node http2 session, settled when its stream closes, whatever happened. */
const exchange = (
  session: ClientHttp2Session,
  path: string,
  init: { method?: string; body?: string } = {},
): Promise<Exchange> =>
  new Promise((resolve) => {
    const stream = session.request({ ':path': path, ':method': init.method ?? 'GET' });
    let status: number | undefined;
    const chunks: Buffer[] = [];
    stream.on('response', (headers) => {
      status = Number(headers[':status']);
    });
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('error', () => {});
    stream.on('close', () =>
      resolve({
        status,
        body: Buffer.concat(chunks).toString(),
        rstCode: stream.rstCode ?? 0,
        streamId: stream.id,
      }),
    );
    stream.end(init.body);
  });

describe('HTTP/2 scripted server', () => {
  let server: H2ScriptedServer;
  const sessions: ClientHttp2Session[] = [];
  const agents: Agent[] = [];
  /** GOAWAY frames each session received: [errorCode, lastStreamId]. */
  const goaways = new Map<ClientHttp2Session, [number, number][]>();

  const open = (): ClientHttp2Session => {
    const session = connect(server.url, { ca: server.ca });
    session.on('error', () => {});
    const received: [number, number][] = [];
    goaways.set(session, received);
    session.on('goaway', (code, last) => received.push([code, last]));
    sessions.push(session);
    return session;
  };
  const undici = (): Agent => {
    const agent = new Agent(trustingAgentOptions(server.ca, { allowH2: true }));
    agents.push(agent);
    return agent;
  };
  const closed = (session: ClientHttp2Session): Promise<void> =>
    session.closed || session.destroyed ? Promise.resolve() : new Promise((r) => session.once('close', r));

  beforeAll(async () => {
    server = await startH2ScriptedServer();
  });
  afterEach(async () => {
    for (const session of sessions.splice(0)) session.close();
    for (const agent of agents.splice(0)) await agent.close();
    goaways.clear();
    expect(await server.waitForIdle(3_000)).toBe(0);
    expect(server.openSessions()).toBe(0);
    server.reset();
  });
  afterAll(() => server.close());

  it('answers steps in order over h2 and records streams, connections and bodies', async () => {
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const dispatcher = undici();
    server.route('/a', [
      { status: 503, headers: { 'retry-after': '1' } },
      { status: 200, body: 'fine' },
    ]);
    const first = await request(`${server.url}/a`, { dispatcher, method: 'PUT', body: 'x1' });
    expect(first.statusCode).toBe(503);
    expect(first.headers['retry-after']).toBe('1');
    await first.body.dump();
    const second = await request(`${server.url}/a`, { dispatcher });
    expect(await second.body.text()).toBe('fine');
    const third = await request(`${server.url}/a`, { dispatcher });
    expect(await third.body.text()).toBe('fine');
    const connection = server.seen('/a')[0]!.connection;
    expect(
      server
        .seen('/a')
        .map((r) => [r.method, r.nth, r.body.toString(), r.connection, r.streamId, r.processed]),
    ).toEqual([
      ['PUT', 0, 'x1', connection, 1, true],
      ['GET', 1, '', connection, 3, true],
      ['GET', 2, '', connection, 5, true],
    ]);
    expect(server.seen('/a')[0]!.headers[':scheme']).toBe('https');
  });

  it('refuses a stream with REFUSED_STREAM at once, without reading its body: not processed', async () => {
    const session = open();
    server.route('/r', [
      { destroy: 'before-headers', rst: 'REFUSED_STREAM' },
      { status: 200, body: 'then' },
    ]);
    const refused = await exchange(session, '/r', { method: 'POST', body: 'payload' });
    expect(refused).toMatchObject({ status: undefined, rstCode: constants.NGHTTP2_REFUSED_STREAM });
    const next = await exchange(session, '/r', { method: 'POST', body: 'payload' });
    expect(next).toMatchObject({ status: 200, body: 'then', rstCode: 0 });
    expect(server.seen('/r').map((r) => [r.processed, r.body.toString(), r.bodyComplete])).toEqual([
      [false, '', false],
      [true, 'payload', true],
    ]);
  });

  it.each([
    ['CANCEL', constants.NGHTTP2_CANCEL],
    ['INTERNAL_ERROR', constants.NGHTTP2_INTERNAL_ERROR],
  ] as const)('resets with %s before any response, after reading the body: processed', async (name, code) => {
    const session = open();
    server.route('/c', [{ destroy: 'before-headers', rst: name }]);
    const result = await exchange(session, '/c', { method: 'POST', body: 'payload' });
    expect(result).toMatchObject({ status: undefined, rstCode: code });
    expect(server.seen('/c').map((r) => [r.processed, r.body.toString()])).toEqual([[true, 'payload']]);
  });

  it('resets a stream mid-body with its own code, after exactly the bytes it sent', async () => {
    const session = open();
    server.route('/m', [{ destroy: 'mid-body', rst: 'INTERNAL_ERROR', sentBytes: 10, declaredBytes: 100 }]);
    const result = await exchange(session, '/m');
    expect(result).toMatchObject({
      status: 200,
      body: 'b'.repeat(10),
      rstCode: constants.NGHTTP2_INTERNAL_ERROR,
    });
    expect(server.responses.at(-1)).toMatchObject({ bytesWritten: 10, finished: false });
    // The stream was reset, not the connection: it still serves.
    expect(await exchange(session, '/after')).toMatchObject({ status: 200, body: 'ok' });
  });

  it('sends a GOAWAY naming no stream below the first one, and refuses later streams', async () => {
    const session = open();
    server.route('/g', [{ destroy: 'before-headers', goaway: 'below' }]);
    const [first, second] = await Promise.all([
      exchange(session, '/g', { method: 'POST', body: 'one' }),
      exchange(session, '/other', { method: 'POST', body: 'two' }),
    ]);
    // Node's client closes streams above the GOAWAY's last stream id as REFUSED_STREAM.
    expect(first).toMatchObject({
      status: undefined,
      rstCode: constants.NGHTTP2_REFUSED_STREAM,
      streamId: 1,
    });
    expect(second).toMatchObject({ status: undefined, rstCode: constants.NGHTTP2_REFUSED_STREAM });
    await closed(session);
    // Every GOAWAY said 0, the server's own (on close) included: it never raised the last stream id.
    expect(goaways.get(session)!.length).toBeGreaterThan(0);
    for (const [code, last] of goaways.get(session)!) expect([code, last]).toEqual([0, 0]);
    expect(server.requests.every((r) => !r.processed)).toBe(true);
  });

  it('sends a GOAWAY below a later stream: the earlier one was processed, this one not', async () => {
    const session = open();
    server.route('/g', [
      { status: 200, body: 'first' },
      { destroy: 'before-headers', goaway: 'below' },
    ]);
    expect(await exchange(session, '/g')).toMatchObject({ status: 200, body: 'first' });
    expect(await exchange(session, '/g')).toMatchObject({
      rstCode: constants.NGHTTP2_REFUSED_STREAM,
      streamId: 3,
    });
    await closed(session);
    expect(goaways.get(session)![0]).toEqual([0, 1]);
    expect(server.seen('/g').map((r) => [r.streamId, r.processed])).toEqual([
      [1, true],
      [3, false],
    ]);
  });

  it('answers after a GOAWAY including the stream, then closes the connection', async () => {
    const session = open();
    server.route('/i', [{ status: 200, body: 'answered', goaway: 'including', goawayCode: 'NO_ERROR' }]);
    expect(await exchange(session, '/i', { method: 'POST', body: 'p' })).toMatchObject({
      status: 200,
      body: 'answered',
      rstCode: 0,
    });
    await closed(session);
    expect(goaways.get(session)![0]).toEqual([0, 1]);
    expect(server.seen('/i')[0]).toMatchObject({ processed: true });
  });

  it('loses the connection after a GOAWAY including the stream: processed, no answer', async () => {
    const session = open();
    server.route('/i', [{ destroy: 'before-headers', goaway: 'including', goawayCode: 'INTERNAL_ERROR' }]);
    const result = await exchange(session, '/i', { method: 'POST', body: 'p' });
    expect(result.status).toBeUndefined();
    expect(result.rstCode).not.toBe(constants.NGHTTP2_REFUSED_STREAM);
    expect(goaways.get(session)![0]).toEqual([constants.NGHTTP2_INTERNAL_ERROR, 1]);
    expect(server.seen('/i')[0]).toMatchObject({ processed: true, body: Buffer.from('p') });
  });

  it('loses the whole connection for the plain destroy steps', async () => {
    const dispatcher = undici();
    server.route('/lost', [{ destroy: 'before-headers' }]);
    await expect(request(`${server.url}/lost`, { dispatcher })).rejects.toMatchObject({
      code: 'UND_ERR_SOCKET',
    });
    server.route('/mid', [{ destroy: 'mid-body', sentBytes: 10, declaredBytes: 100 }]);
    const res = await request(`${server.url}/mid`, { dispatcher });
    expect(res.statusCode).toBe(200);
    await expect(res.body.text()).rejects.toThrow();
    const [lost, mid] = server.requests;
    expect(mid!.connection).toBe(lost!.connection + 1);
  });

  it('sends large bodies with flow control and backpressure', async () => {
    const dispatcher = undici();
    server.route('/big', [{ status: 200, bodyBytes: 3_000_000 }]);
    const res = await request(`${server.url}/big`, { dispatcher });
    expect((await res.body.arrayBuffer()).byteLength).toBe(3_000_000);
    expect(server.responses.at(-1)).toMatchObject({ bytesWritten: 3_000_000, finished: true });
  });

  it('goawayAll: a graceful GOAWAY mid-load answers the streams in flight and takes no new ones', async () => {
    const session = open();
    server.route('/slow', [{ status: 200, body: 'done', delayMs: 100 }]);
    const inFlight = [exchange(session, '/slow'), exchange(session, '/slow'), exchange(session, '/slow')];
    await expect.poll(() => server.seen('/slow').length).toBe(3);
    await server.goawayAll();
    await expect.poll(() => goaways.get(session)).toContainEqual([0, 5]);
    for (const result of await Promise.all(inFlight))
      expect(result).toMatchObject({ status: 200, body: 'done' });
    await closed(session);
    // A client that follows the GOAWAY opens a new connection for what comes next.
    const next = open();
    expect(await exchange(next, '/slow')).toMatchObject({ status: 200 });
    const [c] = server.seen('/slow').map((r) => r.connection);
    expect(server.seen('/slow').map((r) => r.connection)).toEqual([c, c, c, c! + 1]);
  });

  it('goawayAll abrupt: the connections are lost right after the GOAWAY', async () => {
    const a = open();
    const b = open();
    server.route('/slow', [{ status: 200, body: 'done', delayMs: 1_000 }]);
    const inFlight = [exchange(a, '/slow'), exchange(b, '/slow')];
    await expect.poll(() => server.seen('/slow').length).toBe(2);
    expect(server.openSessions()).toBe(2);
    await server.goawayAll({ abrupt: true, code: 'INTERNAL_ERROR' });
    for (const result of await Promise.all(inFlight)) expect(result.status).toBeUndefined();
    expect(goaways.get(a)).toEqual([[constants.NGHTTP2_INTERNAL_ERROR, 1]]);
    expect(goaways.get(b)).toEqual([[constants.NGHTTP2_INTERNAL_ERROR, 1]]);
    expect(server.seen('/slow').every((r) => r.processed)).toBe(true);
  });

  it('goawayAll mid-load with undici 8: every POST settles once, later ones on a new connection', async () => {
    const dispatcher = undici();
    let sentGoaway: Promise<void> | undefined;
    server.route('/load', (req) => {
      // The tenth request to arrive sends the GOAWAY while the others keep coming.
      if (req.nth === 9) sentGoaway = server.goawayAll();
      return { status: 200, body: String(req.headers['x-request-id']), delayMs: 5 };
    });
    const ids = Array.from({ length: 40 }, (_, i) => String(i));
    const queue = [...ids];
    const results = new Map<string, string>();
    const worker = async (): Promise<void> => {
      for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
        const res = await request(`${server.url}/load`, {
          dispatcher,
          method: 'POST',
          headers: { 'x-request-id': id },
          body: `payload ${id}`,
        });
        results.set(id, await res.body.text());
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    await sentGoaway;
    expect([...results.entries()].every(([id, body]) => id === body)).toBe(true);
    expect(results.size).toBe(ids.length);
    const processed = server.seen('/load').filter((r) => r.processed);
    expect(processed.map((r) => r.headers['x-request-id']).sort()).toEqual([...ids].sort());
    expect(new Set(processed.map((r) => r.connection)).size).toBeGreaterThan(1);
  });

  it('calls a script function with the request, body included, and records its refusal', async () => {
    const session = open();
    server.route('/s', (req) =>
      req.body.toString() === 'refuse me'
        ? { destroy: 'before-headers', rst: 'REFUSED_STREAM' }
        : { status: 201, body: `#${req.nth} on ${req.connection}` },
    );
    expect(await exchange(session, '/s', { method: 'POST', body: 'refuse me' })).toMatchObject({
      rstCode: constants.NGHTTP2_REFUSED_STREAM,
    });
    expect(await exchange(session, '/s', { method: 'POST', body: 'take me' })).toMatchObject({
      status: 201,
      body: `#1 on ${server.seen('/s')[0]!.connection}`,
    });
    expect(server.seen('/s').map((r) => [r.processed, r.body.toString()])).toEqual([
      [false, 'refuse me'],
      [true, 'take me'],
    ]);
  });
});
