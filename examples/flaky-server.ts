/**
 * A local flaky HTTP server for the examples and the demo (never the internet). Each path fails in
 * its own way, counted per path, so every run tells the same story:
 *
 * - `GET /orders/:id`         503, 503, then 200
 * - `GET /rate-limited`       429 with `Retry-After: 1`, then 200
 * - `GET /quota`              429 with `Retry-After: 1` to every request in the second after the
 *                              first one, then 200 (an API-wide quota: see the pacer)
 * - `GET /slow-down`          503 with `Retry-After: 120` (longer than the policy accepts)
 * - `GET /flaky-connection`   connection reset before the response, then 200
 * - `POST /payments/:id`      503 (without an Idempotency-Key it must reach the server once)
 * - `POST /orders`            503, then 201 (retried only because it carries an Idempotency-Key)
 * - `GET /reports/:id`        503 four times, then 200 (a route rule allows more attempts)
 * - `GET /down/:id`           always 503 (an outage: watch the retry budget)
 * - `GET /not-found`          404 (never retried)
 *
 * Run alone: node examples/flaky-server.ts  (prints its URL; Ctrl-C stops it)
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FlakyServer {
  readonly url: string;
  /** Requests the server received per `METHOD path`. */
  readonly hits: Map<string, number>;
  close(): Promise<void>;
}

type Answer = { status: number; headers?: Record<string, string>; body?: string } | 'reset';

/** What a server remembers besides its counts: when its first `/quota` request came. */
interface State {
  quotaStart: number;
}

const answer = (method: string, path: string, n: number, req: IncomingMessage, state: State): Answer => {
  const json = (status: number, value: unknown): Answer => ({
    status,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(value),
  });
  if (method === 'GET' && path.startsWith('/orders/')) {
    return n < 2 ? json(503, { error: 'busy' }) : json(200, { id: path.slice(8), status: 'shipped' });
  }
  if (path === '/rate-limited') {
    return n < 1
      ? { status: 429, headers: { 'retry-after': '1' }, body: 'slow down' }
      : json(200, { ok: true });
  }
  if (path === '/quota') {
    if (n === 0) state.quotaStart = Date.now();
    return Date.now() - state.quotaStart < 1_000
      ? { status: 429, headers: { 'retry-after': '1' }, body: 'quota used up' }
      : json(200, { ok: true });
  }
  if (path === '/slow-down') return { status: 503, headers: { 'retry-after': '120' }, body: 'maintenance' };
  if (path === '/flaky-connection') return n < 1 ? 'reset' : json(200, { ok: true });
  if (method === 'POST' && path.startsWith('/payments/')) return json(503, { error: 'busy' });
  if (method === 'POST' && path === '/orders') {
    return n < 1
      ? json(503, { error: 'busy' })
      : json(201, { id: 'o-1', key: req.headers['idempotency-key'] });
  }
  if (path.startsWith('/reports/'))
    return n < 4 ? json(503, { error: 'busy' }) : json(200, { report: 'ready' });
  if (path.startsWith('/down/')) return json(503, { error: 'outage' });
  return json(404, { error: 'not found' });
};

/** Starts the server on 127.0.0.1 (port 0 = any free port). */
export const startFlakyServer = async (port = 0): Promise<FlakyServer> => {
  const hits = new Map<string, number>();
  const state: State = { quotaStart: 0 };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const key = `${req.method} ${path}`;
      const n = hits.get(key) ?? 0;
      hits.set(key, n + 1);
      const a = answer(req.method ?? 'GET', path, n, req, state);
      if (a === 'reset') {
        req.socket.destroy();
        return;
      }
      res.writeHead(a.status, a.headers);
      res.end(a.body ?? '');
    });
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  const { port: actual } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${actual}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

if (import.meta.main) {
  const server = await startFlakyServer(Number(process.env.PORT ?? 0));
  console.log(`flaky server on ${server.url}`);
}
