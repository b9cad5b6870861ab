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
 * - `GET /me/:client`         401 unless `Authorization: Bearer <the last token POST /token gave>`
 * - `POST /token`             a new token, as text
 * - `GET /signed/:client`     503 to the first request, then 200 for a request signed (see
 *                              `between-attempts/recipes.ts`) within the last 5 s and not at the
 *                              time the request before it was (a signature is used once), else 403
 * - `GET /report/:client`     always 503 (a primary that is down), or 200 from a server started as a
 *                              mirror (`startFlakyServer(0, { mirror: true })`: see `between-attempts.ts`)
 *
 * Run alone: node examples/flaky-server.ts  (prints its URL; Ctrl-C stops it)
 */
import { createHmac } from 'node:crypto';
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

/** What a server remembers besides its counts. */
interface State {
  /** When its first `/quota` request came. */
  quotaStart: number;
  /** The last token `POST /token` gave. */
  token: string;
  /** Started as a mirror: it has the reports the primary cannot serve. */
  readonly mirror: boolean;
  /** The time each signed path was last signed at (a signature is used once). */
  readonly signedAt: Map<string, string>;
}

/** The examples' signing secret (a stand-in for a real one). */
export const SIGNING_SECRET = 'example-secret';

/** Whether a request carries a signature over its method, path and time, made in the last 5 s. */
const signedNow = (req: IncomingMessage, path: string): boolean => {
  const date = String(req.headers['x-amz-date'] ?? '');
  const age = Date.now() - Date.parse(date);
  if (!(age >= 0 && age < 5_000)) return false;
  const mac = createHmac('sha256', SIGNING_SECRET).update(`${req.method}\n${path}\n${date}`).digest('hex');
  return req.headers.authorization === `HMAC-SHA256 Signature=${mac}`;
};

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
  if (method === 'POST' && path === '/token') {
    state.token = `t-${Math.random().toString(36).slice(2)}`;
    return { status: 200, body: state.token };
  }
  if (path.startsWith('/me/')) {
    return state.token !== '' && req.headers.authorization === `Bearer ${state.token}`
      ? json(200, { me: 'ada' })
      : json(401, { error: 'token expired' });
  }
  if (path.startsWith('/signed/')) {
    const date = String(req.headers['x-amz-date']);
    const fresh = signedNow(req, path) && state.signedAt.get(path) !== date;
    state.signedAt.set(path, date);
    if (n < 1) return json(503, { error: 'busy' });
    return fresh ? json(200, { signed: true }) : json(403, { error: 'bad or used signature' });
  }
  if (path.startsWith('/report/'))
    return state.mirror ? json(200, { report: 'ready', from: 'mirror' }) : json(503, { error: 'down' });
  return json(404, { error: 'not found' });
};

/** Starts the server on 127.0.0.1 (port 0 = any free port). */
export const startFlakyServer = async (port = 0, { mirror = false } = {}): Promise<FlakyServer> => {
  const hits = new Map<string, number>();
  const state: State = { quotaStart: 0, token: '', mirror, signedAt: new Map() };
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
