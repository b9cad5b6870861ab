/**
 * The HTTP/1.1 scripted server over TLS: a TLS terminator on 127.0.0.1 in front of a plain
 * `startScriptedServer()`, one backend connection per TLS connection. Its steps, request log and
 * response log are the plain server's own, so everything that server learns (CORS, new steps)
 * holds over TLS with no second copy of its logic; a backend connection the plain server destroys
 * (`destroy` steps) is passed on as the TLS connection's end once the bytes before it are sent.
 */
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { createServer, type TLSSocket } from 'node:tls';
import { type ScriptedServer, startScriptedServer } from './scripted-server.ts';
import { testCertificate } from './tls.ts';

export interface TlsScriptedServer extends ScriptedServer {
  /** The certificate clients must trust (self-signed: it is its own CA). */
  readonly ca: string;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Relays one TLS connection to the plain server and back. */
const relay = (client: TLSSocket, port: number): void => {
  const backend = connect({ port, host: '127.0.0.1', noDelay: true });
  // Errors end up as 'close' on either side, handled below.
  backend.on('error', () => {});
  client.on('error', () => {});
  client.pipe(backend);
  backend.pipe(client, { end: false });
  // The client went away: the plain server must see its connection go too (an aborted upload).
  client.on('close', () => backend.destroy());
  // The plain server ended or destroyed the connection: flush what it sent, then close.
  backend.on('close', () => {
    if (client.destroyed) return;
    client.end(() => client.destroy());
  });
};

/** Starts the plain scripted server and a TLS front for it; `url` is the `https:` one. */
export const startTlsScriptedServer = async (): Promise<TlsScriptedServer> => {
  const [inner, { cert, key }] = await Promise.all([startScriptedServer(), testCertificate()]);
  const innerPort = Number(new URL(inner.url).port);
  const sockets = new Set<Socket>();
  // noDelay, as Node's http server sets it: Nagle would hold the relayed writes back until the
  // peer's delayed ACK (about 40 ms on Linux), which no real server does.
  const server = createServer({ key, cert, ALPNProtocols: ['http/1.1'], noDelay: true }, (socket) =>
    relay(socket, innerPort),
  );
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
    requests: inner.requests,
    responses: inner.responses,
    seen: (path) => inner.seen(path),
    route: (path, steps) => inner.route(path, steps),
    openSockets: () => sockets.size,
    async waitForIdle(timeoutMs = 2_000, atMost = 0) {
      const until = Date.now() + timeoutMs;
      while (sockets.size > atMost && Date.now() < until) await sleep(10);
      // Each TLS connection had one backend connection: those must be gone as well.
      const backend = await inner.waitForIdle(Math.max(0, until - Date.now()), atMost);
      return Math.max(sockets.size, backend);
    },
    reset: () => inner.reset(),
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await inner.close();
    },
  };
};
