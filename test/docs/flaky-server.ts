/**
 * The server the documentation's snippets run against (`run-snippets.ts` rewrites their example
 * hosts to it): a real `node:http` server on 127.0.0.1 that answers each path the way the text around
 * the snippet says it does, counting requests per `METHOD path` so that every run tells the same
 * story. One server per snippet run, so no run sees another's counts.
 *
 * - `/orders/:id`, `/reports/:id`, `/exports/:id`, `/items`, `/items/:id`: 503, then 200 with JSON
 *   (the flaky endpoint every quick start retries once)
 * - `/flaky`: always 503 (retries run out; the caller catches the error)
 * - `/quota`, `/jobs/:id`: 200 with a JSON body that says "error" (`RATE_LIMIT`, `TEMPORARY`),
 *   then 200 `{ "ok": true }` (retried only by a `shouldRetry` that reads the body)
 * - `/audit`, `/search`, `/find`: 200 at once (requests sent once, or hedged)
 * - `/big.iso`: a 128 KiB file with a strong ETag whose first download breaks after 32 KiB; a `Range`
 *   with a matching `If-Range` gets the rest as a `206` (for `resume: createResume()`)
 * - anything else: 404 with a body naming this file, so that a new snippet's path is added here
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface DocsServer {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly url: string;
  /** Every request, in order: `GET /orders/42 → 503`. */
  readonly log: readonly string[];
  close(): Promise<void>;
}

const BIG_SIZE = 128 * 1024;
const BIG_BREAK_AT = 32 * 1024;
const BIG_ETAG = '"big-iso-1"';
const bigFile = Buffer.alloc(BIG_SIZE, 0);
for (let i = 0; i < BIG_SIZE; i++) bigFile[i] = (i * 31 + (i >> 8)) & 0xff;

const json = (res: ServerResponse, status: number, value: unknown): void => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
};

/** `/big.iso`: whole but broken the first time, the rest on a `Range` of the same representation. */
const serveBigFile = (req: IncomingMessage, res: ServerResponse, n: number): number => {
  const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
  const sameFile = req.headers['if-range'] === undefined || req.headers['if-range'] === BIG_ETAG;
  const headers = { 'content-type': 'application/octet-stream', etag: BIG_ETAG, 'accept-ranges': 'bytes' };
  if (range && sameFile && Number(range[1]) < BIG_SIZE) {
    const start = Number(range[1]);
    res.writeHead(206, {
      ...headers,
      'content-length': String(BIG_SIZE - start),
      'content-range': `bytes ${start}-${BIG_SIZE - 1}/${BIG_SIZE}`,
    });
    res.end(bigFile.subarray(start));
    return 206;
  }
  res.writeHead(200, { ...headers, 'content-length': String(BIG_SIZE) });
  if (n > 0) {
    res.end(bigFile);
    return 200;
  }
  // Let the head and the first part reach the client, then lose the connection.
  res.write(bigFile.subarray(0, BIG_BREAK_AT), () => setTimeout(() => req.socket.destroy(), 50));
  return 200;
};

/** Answers one request; returns the status sent. */
const answer = (req: IncomingMessage, res: ServerResponse, path: string, n: number): number => {
  if (/^\/(orders|reports|exports)\/[^/]+$/.test(path) || /^\/items(\/[^/]+)?$/.test(path)) {
    if (n === 0) {
      json(res, 503, { error: 'busy' });
      return 503;
    }
    json(res, 200, { path, ok: true });
    return 200;
  }
  if (path === '/flaky') {
    json(res, 503, { error: 'busy' });
    return 503;
  }
  if (path === '/quota' || /^\/jobs\/[^/]+$/.test(path)) {
    const code = path === '/quota' ? 'RATE_LIMIT' : 'TEMPORARY';
    json(res, 200, n === 0 ? { error: { code } } : { ok: true });
    return 200;
  }
  if (path === '/audit' || path === '/search' || path === '/find') {
    json(res, 200, { path, ok: true });
    return 200;
  }
  if (path === '/big.iso') return serveBigFile(req, res, n);
  json(res, 404, { error: `no answer for ${req.method} ${path}: add one to test/docs/flaky-server.ts` });
  return 404;
};

/** Starts a server on 127.0.0.1, on a free port. */
export const startDocsServer = async (): Promise<DocsServer> => {
  const hits = new Map<string, number>();
  const log: string[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://localhost').pathname;
      const key = `${req.method} ${path}`;
      const n = hits.get(key) ?? 0;
      hits.set(key, n + 1);
      const range = req.headers.range ? ` (${req.headers.range})` : '';
      log.push(`${key}${range} → ${answer(req, res, path, n)}`);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    log,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
};
