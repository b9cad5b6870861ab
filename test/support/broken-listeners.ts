/**
 * Endpoints on 127.0.0.1 where a connection fails before any HTTP byte is exchanged: a port
 * nothing listens on (ECONNREFUSED), a listener that accepts and stays silent (a TLS handshake
 * that never completes: the only connect timeout loopback can give, since a TCP connect to
 * 127.0.0.1 is answered at once, refused or accepted), and one that resets the connection as soon
 * as the client's first bytes (its TLS ClientHello) arrive.
 */
import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';

export interface BrokenListener {
  /** `https://127.0.0.1:<port>` (the listener speaks no TLS, which is the point). */
  readonly url: string;
  /** Connections accepted so far. */
  accepted(): number;
  openSockets(): number;
  close(): Promise<void>;
}

const listen = async (server: Server): Promise<number> => {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as { port: number }).port;
};

/** A port on 127.0.0.1 that was free a moment ago: connecting to it is refused. */
export const refusedPort = async (): Promise<number> => {
  const server = createServer();
  const port = await listen(server);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
};

const start = async (onSocket: (socket: Socket) => void): Promise<BrokenListener> => {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    onSocket(socket);
  });
  const port = await listen(server);
  return {
    url: `https://127.0.0.1:${port}`,
    accepted: () => accepted,
    openSockets: () => sockets.size,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};

/** Accepts connections and never sends a byte: a TLS client waits for the server's hello forever. */
export const startSilentListener = (): Promise<BrokenListener> =>
  start((socket) => {
    // Read what the client sends so that it is never held back by a full window.
    socket.resume();
  });

/** Resets each connection (TCP RST) when the client's first bytes arrive, mid TLS handshake. */
export const startHandshakeResetListener = (): Promise<BrokenListener> =>
  start((socket) => {
    socket.once('data', () => socket.resetAndDestroy());
  });
