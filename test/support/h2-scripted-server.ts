/**
 * The scripted server over HTTP/2: a `node:http2` server behind TLS on 127.0.0.1 (ALPN `h2` only),
 * with the HTTP/1.1 server's shape (`ScriptedServer`) and steps, plus HTTP/2's faults (see
 * `h2-steps.ts`): RST_STREAM with any code before the response or mid-body, GOAWAY below or
 * including a stream, and a GOAWAY to every open connection at any moment (`goawayAll`).
 *
 * Each request records whether the application took it on (`processed`), so tests can check that a
 * non-idempotent request was processed once however often a client sent it. Steps from a list are
 * picked when the stream arrives (a refusal is sent before the body is read); a script function is
 * called once the body is in, as on the HTTP/1.1 server.
 */
import { once } from 'node:events';
import {
  createServer as createH2Server,
  type IncomingHttpHeaders,
  type ServerHttp2Session,
  type ServerHttp2Stream,
} from 'node:http2';
import type { Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { FrameRelay } from './h2-frame-relay.ts';
import {
  H2_ERROR_CODES,
  type H2ErrorName,
  type H2Script,
  type H2SeenRequest,
  type H2SentResponse,
  type H2Step,
  refuses,
} from './h2-steps.ts';
import {
  act,
  type Connection,
  closeStream,
  closeWhenDone,
  GoawayWouldLie,
  goawayIncluding,
  readBody,
  sleep,
} from './h2-stream-steps.ts';
import type { ScriptedServer } from './scripted-server.ts';
import { testCertificate } from './tls.ts';

export interface GoawayAllOptions {
  /** The GOAWAY's error code; default `NO_ERROR`. */
  readonly code?: H2ErrorName;
  /**
   * `false` (default): a graceful shutdown, the GOAWAY names the last stream each connection
   * received, those streams are answered, and each connection closes when they are done. `true`:
   * each connection is lost right after its GOAWAY, so the streams it named get no answer.
   */
  readonly abrupt?: boolean;
}

export interface H2ScriptedServer extends ScriptedServer {
  /** The certificate clients must trust (self-signed: it is its own CA). */
  readonly ca: string;
  readonly requests: H2SeenRequest[];
  readonly responses: H2SentResponse[];
  seen(path: string): H2SeenRequest[];
  route(path: string, steps: readonly H2Step[] | H2Script): void;
  /** HTTP/2 connections (sessions) open now. */
  openSessions(): number;
  /** Sends GOAWAY on every open connection; resolves once each one is written (or the connection gone). */
  goawayAll(options?: GoawayAllOptions): Promise<void>;
}

/** Starts an HTTP/2 scripted server. Unscripted paths answer `200 ok`. */
export const startH2ScriptedServer = async (): Promise<H2ScriptedServer> => {
  const { cert, key } = await testCertificate();
  const scripts = new Map<string, readonly H2Step[] | H2Script>();
  const requests: H2SeenRequest[] = [];
  const responses: H2SentResponse[] = [];
  const perPath = new Map<string, number>();
  const sockets = new Set<Socket>();
  const connections = new Set<Connection>();
  const bySession = new Map<ServerHttp2Session, Connection>();
  let connectionCount = 0;
  let accepting: Connection | undefined;

  const record = (path: string, step: H2Step): H2SentResponse => {
    const sent: H2SentResponse = { path, step, bytesWritten: 0, finished: false };
    responses.push(sent);
    return sent;
  };

  const handle = async (stream: ServerHttp2Stream, headers: IncomingHttpHeaders): Promise<void> => {
    const conn = bySession.get(stream.session as ServerHttp2Session);
    if (!conn) return void stream.close(H2_ERROR_CODES.INTERNAL_ERROR);
    // A server stream has its id from the start (undefined only for a client's unsent stream).
    const streamId = stream.id ?? 0;
    const path = new URL(String(headers[':path'] ?? '/'), 'http://x').pathname;
    const nth = perPath.get(path) ?? 0;
    perPath.set(path, nth + 1);
    const seen: H2SeenRequest = {
      method: String(headers[':method'] ?? ''),
      path,
      headers,
      body: Buffer.alloc(0),
      bodyComplete: false,
      nth,
      connection: conn.id,
      streamId,
      processed: true,
    };
    requests.push(seen);

    // A stream that reached the session after its GOAWAY below an earlier one: never processed.
    if (conn.refusedAbove !== undefined && streamId > conn.refusedAbove) {
      seen.processed = false;
      record(path, { destroy: 'before-headers', rst: 'REFUSED_STREAM' });
      closeStream(stream, 'REFUSED_STREAM');
      return;
    }
    const script = scripts.get(path);
    let step: H2Step | undefined;
    if (Array.isArray(script))
      step = script.length > 0 ? script[Math.min(nth, script.length - 1)] : undefined;
    if (step && refuses(step)) {
      seen.processed = false;
      await act(stream, streamId, conn, step, record(path, step));
      return;
    }
    conn.maxProcessed = Math.max(conn.maxProcessed, streamId);
    await readBody(stream, seen);
    if (typeof script === 'function') step = await script(seen);
    step ??= { status: 200, body: 'ok' };
    if (refuses(step)) seen.processed = false;
    await act(stream, streamId, conn, step, record(path, step));
  };

  const h2 = createH2Server();
  h2.on('session', (session: ServerHttp2Session) => {
    const conn = accepting;
    if (!conn) return void session.destroy();
    conn.session = session;
    bySession.set(session, conn);
    session.on('error', () => {});
    session.on('close', () => {
      bySession.delete(session);
      connections.delete(conn);
    });
  });
  h2.on('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => {
    stream.on('error', () => {});
    handle(stream, headers).catch((error: unknown) => {
      if (error instanceof GoawayWouldLie)
        bySession.get(stream.session as ServerHttp2Session)?.relay.destroy();
      else closeStream(stream, 'INTERNAL_ERROR');
    });
  });

  // noDelay, as node:http2's own server sets it: Nagle would hold the relay's frames back until the
  // client's delayed ACK (about 40 ms on Linux) and change which of them arrive together.
  const server = createTlsServer({ key, cert, ALPNProtocols: ['h2'], noDelay: true }, (socket) => {
    const conn: Connection = { id: ++connectionCount, relay: new FrameRelay(socket), maxProcessed: 0 };
    connections.add(conn);
    socket.on('close', () => connections.delete(conn));
    accepting = conn;
    h2.emit('connection', conn.relay.session);
    accepting = undefined;
  });
  // The raw TCP sockets, so that one whose handshake failed counts as open until it is closed.
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('tlsClientError', () => {});
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };

  return {
    url: `https://127.0.0.1:${port}`,
    ca: cert,
    requests,
    responses,
    seen: (path) => requests.filter((r) => r.path === path),
    route(path, steps) {
      scripts.set(path, steps);
    },
    openSockets: () => sockets.size,
    openSessions: () => bySession.size,
    async waitForIdle(timeoutMs = 2_000, atMost = 0) {
      const until = Date.now() + timeoutMs;
      const open = () => Math.max(sockets.size, bySession.size);
      while (open() > atMost && Date.now() < until) await sleep(10);
      return open();
    },
    async goawayAll(options = {}) {
      const code = options.code ?? 'NO_ERROR';
      await Promise.all(
        [...connections].map(async (conn) => {
          await goawayIncluding(conn, code);
          if (options.abrupt) conn.relay.destroy();
          else closeWhenDone(conn);
        }),
      );
    },
    reset() {
      scripts.clear();
      requests.length = 0;
      responses.length = 0;
      perPath.clear();
    },
    async close() {
      for (const conn of connections) conn.relay.destroy();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
