/**
 * The page's own server on 127.0.0.1: the page, its script (bundled from the packages' sources at
 * start), and every other path forwarded to the flaky server, so the page calls its API on its own
 * origin as a web app does. Every answer closes its connection, and a connection the flaky server
 * resets is reset here too: a browser sends a GET again by itself when a *reused* connection
 * closes before the answer, which would hide the failure from jitterbug.
 */
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface PageSite {
  readonly url: string;
  close(): Promise<void>;
}

const forward = (api: URL, req: IncomingMessage, res: ServerResponse): void => {
  const { host: _, connection: __, ...headers } = req.headers;
  const upstream = request(
    new URL(req.url ?? '/', api),
    { method: req.method ?? 'GET', headers, agent: false },
    (answer) => {
      const { connection: ___, ...answerHeaders } = answer.headers;
      res.writeHead(answer.statusCode ?? 502, { ...answerHeaders, connection: 'close' });
      answer.pipe(res);
    },
  );
  upstream.on('error', () => req.socket.destroy());
  req.pipe(upstream);
};

export const startPageSite = async (apiUrl: string, script: string): Promise<PageSite> => {
  const page = await readFile(new URL('index.html', import.meta.url), 'utf8');
  const api = new URL(apiUrl);
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (req.method === 'GET' && (path === '/' || path === '/app.js')) {
      const [type, body] =
        path === '/' ? ['text/html; charset=utf-8', page] : ['text/javascript; charset=utf-8', script];
      res
        .writeHead(200, { 'content-type': type, 'cache-control': 'no-store', connection: 'close' })
        .end(body);
      return;
    }
    forward(api, req, res);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
