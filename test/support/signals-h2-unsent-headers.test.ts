/**
 * Research, recorded as assertions: what undici 8 and undici 7 show for requests whose HTTP/2
 * stream was opened on a connection just before its GOAWAY arrived, so that their HEADERS were
 * never written. The server sends a graceful GOAWAY naming the highest stream id (2^31-1, what a
 * server shutting down in two steps sends first), and the client opens its streams in the same
 * turn of the event loop: Node writes a stream's HEADERS in a later turn (a native immediate), after
 * the GOAWAY was read, and nghttp2 then refuses to send them.
 *
 * What this shows:
 * - undici 8 keeps such a stream on the session (the GOAWAY names it) and learns of it from the
 *   stream's `frameError` for the HEADERS frame (type 1). It sends the request again itself on a new
 *   connection when its body can be replayed (none, a Buffer); otherwise the caller gets
 *   `InformationalError('HTTP/2: "frameError" received - type 1, code …')` (`UND_ERR_INFO`), and the
 *   server never saw it: provably unprocessed. `fetch()` turns every body into a stream, so its
 *   POSTs end this way. undici writes no trailers on a request, and a frame of the connection
 *   (stream 0) is never a HEADERS frame, so type 1 is always a request's own HEADERS. Through
 *   jitterbug's interceptor (which hands undici a body it can send again) undici 8 replays such a
 *   request itself (tried: the POST arrives once, on the next connection, after one attempt); the
 *   interceptor meets this error when undici 8's one replay after a GOAWAY is spent.
 * - undici 7 ignores the GOAWAY's last stream id: the request at the head of its queue gets
 *   `SocketError('HTTP/2: "GOAWAY" frame received with code 0')`, never processed here, while
 *   against nginx (`test/nginx/`) the same error goes to requests nginx had processed: ambiguous.
 *   The requests behind it undici 7 sends again itself, whatever their method.
 */
import { once } from 'node:events';
import { createSecureServer, type Http2SecureServer, type ServerHttp2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import * as undici8 from 'undici';
import * as undici7 from 'undici7';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refusedUnprocessed } from '../../packages/undici/src/signals.ts';
import { type ErrorShape, errorShape } from './signal-probe.ts';
import { testCertificate, trustingAgentOptions } from './tls.ts';

const LAST_STREAM_ID = 2 ** 31 - 1;
const UNSENT_HEADERS = {
  name: 'InformationalError',
  code: 'UND_ERR_INFO',
  message: expect.stringMatching(/^HTTP\/2: "frameError" received - type 1, code /),
};

interface Seen {
  readonly method: string;
  readonly path: string;
  /** Which connection it came on, counted from 1. */
  readonly connection: number;
}

let server: Http2SecureServer;
let url: string;
let ca: string;
const sessions: ServerHttp2Session[] = [];
const seen: Seen[] = [];

beforeAll(async () => {
  const { cert, key } = await testCertificate();
  ca = cert;
  server = createSecureServer({ cert, key });
  server.on('session', (session) => sessions.push(session));
  server.on('stream', (stream, headers) => {
    seen.push({
      method: String(headers[':method']),
      path: String(headers[':path']),
      connection: sessions.indexOf(stream.session as ServerHttp2Session) + 1,
    });
    stream.resume();
    stream.on('end', () => {
      stream.respond({ ':status': 200 });
      stream.end('ok');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const session of sessions) session.destroy();
  await new Promise((resolve) => server.close(resolve));
});

type Outcome = { readonly status: number; readonly body: string } | { readonly error: ErrorShape };
type Send = (path: string) => Promise<Outcome>;

/**
 * Makes one request to open a connection, then, in one turn of the event loop, has the server
 * send its GOAWAY and the client open a stream per path; returns what each path ended with and
 * what the server saw after the first request.
 */
const goawayWhileOpening = async (send: Send, paths: readonly string[]) => {
  seen.length = 0;
  sessions.length = 0;
  expect(await send('/open')).toEqual({ status: 200, body: 'ok' });
  const outcomes = await new Promise<Outcome[]>((resolve) => {
    sessions.at(-1)!.goaway(0, LAST_STREAM_ID);
    // After the server's GOAWAY is written (a native immediate, run before the JS ones) and before
    // the client reads it (the next poll): the client's streams are opened, their HEADERS unsent.
    setImmediate(() => {
      Promise.all(paths.map(send)).then(resolve);
    });
  });
  return { outcomes, seen: seen.slice(1) };
};

/** undici `request()` on an agent of `undici` (7 or 8) with `allowH2`, a `stream` body for POSTs. */
const viaRequest =
  (undici: typeof undici8 | typeof undici7, agent: { request: unknown }, method: 'GET' | 'POST'): Send =>
  async (path) => {
    try {
      const res = await (
        undici.request as (url: string, options: object) => Promise<undici8.Dispatcher.ResponseData>
      )(url + path, {
        dispatcher: agent,
        method: path === '/open' ? 'GET' : method,
        ...(method === 'POST' && path !== '/open' ? { body: Readable.from([Buffer.from('order')]) } : {}),
      });
      return { status: res.statusCode, body: await res.body.text() };
    } catch (error) {
      return { error: errorShape(error) };
    }
  };

describe('undici 8: a stream opened as the GOAWAY arrived', () => {
  it('request(), GET: undici 8 sends it again itself on a new connection', async () => {
    const agent = new undici8.Agent(trustingAgentOptions(ca, { allowH2: true }));
    try {
      const { outcomes, seen } = await goawayWhileOpening(viaRequest(undici8, agent, 'GET'), ['/b']);
      expect(outcomes).toEqual([{ status: 200, body: 'ok' }]);
      expect(seen).toEqual([{ method: 'GET', path: '/b', connection: 2 }]);
    } finally {
      await agent.close();
    }
  });

  it('request(), POST with a stream body: UND_ERR_INFO "frameError" type 1, never seen by the server', async () => {
    const agent = new undici8.Agent(trustingAgentOptions(ca, { allowH2: true }));
    try {
      const { outcomes, seen } = await goawayWhileOpening(viaRequest(undici8, agent, 'POST'), ['/b', '/c']);
      expect(outcomes).toEqual([{ error: UNSENT_HEADERS }, { error: UNSENT_HEADERS }]);
      expect(seen).toEqual([]);
    } finally {
      await agent.close();
    }
  });

  it('fetch(), POST with a string body: the same, as the cause of "fetch failed"', async () => {
    const agent = new undici8.Agent(trustingAgentOptions(ca, { allowH2: true }));
    let cause: unknown;
    const send: Send = async (path) => {
      try {
        const post = path === '/open' ? {} : { method: 'POST', body: 'order' };
        const res = await undici8.fetch(url + path, { dispatcher: agent, ...post });
        return { status: res.status, body: await res.text() };
      } catch (error) {
        cause = (error as { cause?: unknown }).cause;
        return { error: errorShape(error) };
      }
    };
    try {
      const { outcomes, seen } = await goawayWhileOpening(send, ['/b']);
      expect(outcomes).toEqual([
        { error: { name: 'TypeError', message: 'fetch failed', cause: UNSENT_HEADERS } },
      ]);
      expect(seen).toEqual([]);
      // What the interceptor reads as proof that the server never processed it.
      expect(refusedUnprocessed(cause)).toBe(true);
    } finally {
      await agent.close();
    }
  });
});

describe('undici 7: a stream opened as the GOAWAY arrived', () => {
  it('request(): the head of its queue gets the GOAWAY as a SocketError, the others it sends again itself', async () => {
    const agent = new undici7.Agent(trustingAgentOptions(ca, { allowH2: true }));
    try {
      const { outcomes, seen } = await goawayWhileOpening(viaRequest(undici7, agent, 'POST'), [
        '/b',
        '/c',
        '/d',
      ]);
      const goaway = {
        name: 'SocketError',
        code: 'UND_ERR_SOCKET',
        message: 'HTTP/2: "GOAWAY" frame received with code 0',
      };
      expect(outcomes).toEqual([{ error: goaway }, ...Array(2).fill({ status: 200, body: 'ok' })]);
      // /b was never processed, but the same error reaches requests nginx processed: no proof.
      expect(seen.map((s) => s.path).sort()).toEqual(['/c', '/d']);
      expect(refusedUnprocessed(goaway)).toBe(false);
    } finally {
      await agent.close();
    }
  });
});
