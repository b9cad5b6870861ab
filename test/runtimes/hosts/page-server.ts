/**
 * A static server on 127.0.0.1 for browser pages: a page and its bundle, nothing else. It is a
 * server of its own so that the page's origin differs from the scripted API's (another port): the
 * page calls the API as a cross-origin app does, CORS preflights included.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface PageFile {
  readonly type: string;
  readonly body: string;
}

export interface PageServer {
  readonly url: string;
  close(): Promise<void>;
}

export const startPageServer = async (files: Readonly<Record<string, PageFile>>): Promise<PageServer> => {
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const file = files[new URL(req.url ?? '/', 'http://x').pathname];
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': file.type, 'cache-control': 'no-store' }).end(file.body);
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

/** A page that loads `/runtime.js` as a module. */
export const modulePage = (title: string): PageFile => ({
  type: 'text/html; charset=utf-8',
  body: `<!doctype html>\n<html><head><meta charset="utf-8"><title>${title}</title></head>\n<body><script type="module" src="/runtime.js"></script></body></html>\n`,
});
