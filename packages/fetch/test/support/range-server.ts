/**
 * A real `node:http` server on 127.0.0.1 that serves representations with byte ranges, as a file
 * server does: `Accept-Ranges: bytes`, a strong or weak ETag and/or Last-Modified, `Range: bytes=N-`
 * answered `206` with `Content-Range` when `If-Range` still matches (else `200` with the whole
 * body). Each request to a path follows a plan — reset the connection after K body bytes, change the
 * representation, ignore Range, answer at a wrong offset, with another ETag or status, slowly — so
 * that resuming clients meet every way a resume can go wrong. It logs what it saw and sent, and
 * tracks its sockets so tests can check that clients leave none open.
 *
 * Shared by the resume tests of `@jitterbug/fetch`, `@jitterbug/undici` and `test/conformance`.
 */
import { once } from 'node:events';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gzipSync } from 'node:zlib';

/** What a path serves. */
export interface Representation {
  /** The bytes as sent (already gzipped when `gzip` is set). */
  readonly body: Buffer;
  /** A strong (`"v1"`) or weak (`W/"v1"`) ETag; none when absent. */
  readonly etag?: string;
  readonly lastModified?: string;
  /** Sent with `Content-Encoding: gzip` (ranges then count the gzipped bytes). */
  readonly gzip?: boolean;
}

/** How the server answers one request to a path (the n-th request gets the n-th answer, then the last). */
export interface Answer {
  /** The path serves this from now on (before answering this request). */
  readonly serve?: Representation;
  /** Destroy the connection after this many body bytes of this answer. */
  readonly resetAfter?: number;
  /** Answer `200` with the whole representation, whatever `Range` says (no range support). */
  readonly ignoreRange?: boolean;
  /** Answer a range request from this many bytes after the byte asked for (a broken server). */
  readonly shiftBy?: number;
  /** Send this ETag on a `206` instead of the representation's (a server that changed without saying). */
  readonly rangeEtag?: string;
  /**
   * Send this many bytes more than the `206`'s range says, without a `content-length` (undici
   * #4970: a range of 2 bytes carrying 70).
   */
  readonly extraBytes?: number;
  /** Answer this status, with a short body, instead of the representation. */
  readonly status?: number;
  /** Wait this long before the headers. */
  readonly delayMs?: number;
  /** Answer only when the test calls `release()` (or the server closes). */
  readonly held?: boolean;
}

/** A request as the server saw it, and what it answered. */
export interface Exchange {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly range: string | undefined;
  readonly ifRange: string | undefined;
  status: number | undefined;
  /** Body bytes written before the answer ended or the connection was destroyed. */
  bytesWritten: number;
  /** The connection closed before the answer was complete (the client went away, or a reset). */
  cut: boolean;
}

export interface RangeServer {
  readonly url: string;
  readonly exchanges: Exchange[];
  /** Exchanges of one path. */
  seen(path: string): Exchange[];
  /** Serves `representation` at `path`, the n-th request answered as `answers[n]` (then the last). */
  serve(path: string, representation: Representation, answers?: readonly Answer[]): void;
  /** Lets every `held` answer go. */
  release(): void;
  /** Waits until every client socket is closed (or `timeoutMs` passes); returns how many remain. */
  waitForIdle(timeoutMs?: number): Promise<number>;
  reset(): void;
  close(): Promise<void>;
}

/**
 * `length` bytes of printable ASCII that differ with `seed`: text comparisons show any splice, and
 * bytes from a wrong offset or another representation never line up by chance.
 */
export const content = (length: number, seed = 0): Buffer => {
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i++) bytes[i] = 33 + ((i * 7 + Math.floor(i / 94) + seed * 31) % 94);
  return bytes;
};

/** A gzipped representation of `plain`. */
export const gzipped = (plain: Buffer, etag: string): Representation => ({
  body: gzipSync(plain),
  etag,
  gzip: true,
});

const RANGE = /^bytes=(\d+)-$/;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Whether `If-Range` (absent: yes) still names this representation: its strong ETag (quoted, or bare
 * as some servers send it) or its exact date.
 */
const stillCurrent = (ifRange: string | undefined, current: Representation): boolean => {
  if (ifRange === undefined) return true;
  if (current.etag !== undefined && !current.etag.startsWith('W/') && ifRange === current.etag) return true;
  return current.lastModified !== undefined && ifRange === current.lastModified;
};

export const startRangeServer = async (): Promise<RangeServer> => {
  const plans = new Map<string, { current: Representation; answers: readonly Answer[]; count: number }>();
  const exchanges: Exchange[] = [];
  const sockets = new Set<Socket>();
  let held: Array<() => void> = [];

  const write = (res: ServerResponse, bytes: Buffer, answer: Answer, exchange: Exchange): void => {
    const limit = answer.resetAfter;
    if (limit === undefined) {
      exchange.bytesWritten = bytes.length;
      res.end(bytes);
      return;
    }
    const part = bytes.subarray(0, limit);
    exchange.bytesWritten = part.length;
    // Destroyed once the part has left: the client reads it, then the connection is gone.
    res.write(part, () => setTimeout(() => res.socket?.destroy(), 5));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const header = (name: string) => {
      const value = req.headers[name];
      return Array.isArray(value) ? value.join(', ') : value;
    };
    const exchange: Exchange = {
      path,
      headers: req.headers,
      range: header('range'),
      ifRange: header('if-range'),
      status: undefined,
      bytesWritten: 0,
      cut: false,
    };
    exchanges.push(exchange);
    res.on('close', () => {
      if (!res.writableFinished) exchange.cut = true;
    });
    const plan = plans.get(path);
    if (!plan) {
      exchange.status = 404;
      res.writeHead(404).end();
      return;
    }
    const answer = plan.answers[Math.min(plan.count++, plan.answers.length - 1)] ?? {};
    if (answer.serve) plan.current = answer.serve;
    if (answer.held) await new Promise<void>((resolve) => held.push(resolve));
    if (answer.delayMs) await sleep(answer.delayMs);
    if (res.destroyed) return;
    const current = plan.current;
    if (answer.status !== undefined) {
      exchange.status = answer.status;
      res.writeHead(answer.status, { 'content-type': 'text/plain', 'content-length': '2' });
      exchange.bytesWritten = 2;
      res.end('no');
      return;
    }
    const headers: Record<string, string> = {
      'content-type': 'application/octet-stream',
      'accept-ranges': 'bytes',
    };
    if (current.etag) headers.etag = current.etag;
    if (current.lastModified) headers['last-modified'] = current.lastModified;
    if (current.gzip) headers['content-encoding'] = 'gzip';
    const total = current.body.length;
    const range = RANGE.exec(exchange.range ?? '');
    if (range && !answer.ignoreRange && stillCurrent(exchange.ifRange, current)) {
      const start = Number(range[1]) + (answer.shiftBy ?? 0);
      if (start >= total) {
        exchange.status = 416;
        res.writeHead(416, { 'content-range': `bytes */${total}`, 'content-length': '0' }).end();
        return;
      }
      exchange.status = 206;
      if (answer.rangeEtag) headers.etag = answer.rangeEtag;
      headers['content-range'] = `bytes ${start}-${total - 1}/${total}`;
      if (answer.extraBytes) {
        // Chunked: nothing but the range says where the body should end.
        res.writeHead(206, headers);
        const long = Buffer.concat([current.body.subarray(start), Buffer.alloc(answer.extraBytes, 0x78)]);
        exchange.bytesWritten = long.length;
        res.end(long);
        return;
      }
      headers['content-length'] = String(total - start);
      res.writeHead(206, headers);
      write(res, current.body.subarray(start), answer, exchange);
      return;
    }
    exchange.status = 200;
    headers['content-length'] = String(total);
    res.writeHead(200, headers);
    write(res, current.body, answer, exchange);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => req.socket.destroy());
  });
  server.keepAliveTimeout = 5_000;
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const release = () => {
    const waiting = held;
    held = [];
    for (const go of waiting) go();
  };

  return {
    url: `http://127.0.0.1:${port}`,
    exchanges,
    seen: (path) => exchanges.filter((e) => e.path === path),
    serve(path, representation, answers = [{}]) {
      plans.set(path, { current: representation, answers, count: 0 });
    },
    release,
    async waitForIdle(timeoutMs = 2_000) {
      const until = Date.now() + timeoutMs;
      while (sockets.size > 0 && Date.now() < until) await sleep(10);
      return sockets.size;
    },
    reset() {
      release();
      plans.clear();
      exchanges.length = 0;
    },
    async close() {
      release();
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
