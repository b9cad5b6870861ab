/**
 * A real `node:http` server on 127.0.0.1 (ephemeral port) that answers each request from a script:
 * statuses, Retry-After, resets before headers or in the middle of a body, slow headers, huge
 * bodies. It records what it saw (method, path, headers, body) so tests assert on the server's own
 * log, and tracks its sockets so tests can check that clients leave none open.
 *
 * Options for clients in other runtimes (`test/runtimes/`): `cors` makes it a cross-origin API a
 * browser page may call, and `keepAlive: false` closes every connection after its answer.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One scripted answer. */
export type Step =
  | {
      readonly status: number;
      readonly headers?: Readonly<Record<string, string>>;
      readonly body?: string | Uint8Array;
      /** Send a body of this many bytes (in 64 KiB chunks) instead of `body`. */
      readonly bodyBytes?: number;
      /** With `bodyBytes`: send no `content-length` (chunked encoding), so the size is unknown up front. */
      readonly chunked?: boolean;
      /** Wait this long before sending headers. */
      readonly delayMs?: number;
      /**
       * Never answer: hold the request until its connection closes (a hedged copy the client must
       * cancel). No timer runs on the server meanwhile.
       */
      readonly held?: true;
    }
  /** Destroy the connection before any response byte. */
  | { readonly destroy: 'before-headers'; readonly delayMs?: number }
  /** Send headers and part of the body, then destroy the connection. */
  | {
      readonly destroy: 'mid-body';
      readonly status?: number;
      readonly sentBytes?: number;
      readonly declaredBytes?: number;
      /** Send no `content-length` (chunked encoding): nothing then tells how long the body was to be. */
      readonly chunked?: boolean;
      /** Headers over the defaults (an `etag`, to make the body resumable). */
      readonly headers?: Readonly<Record<string, string>>;
    };

/** A request as the server saw it. */
export interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  body: Buffer;
  /** The request body arrived in full (the client did not abort it). */
  bodyComplete: boolean;
  /** Index among all requests to the same path (0-based). */
  readonly nth: number;
}

/** What the server did with one response. */
export interface SentResponse {
  readonly path: string;
  readonly step: Step;
  /** Body bytes the server managed to write before the response ended or the socket closed. */
  bytesWritten: number;
  /** The whole response was written. */
  finished: boolean;
}

export type Script = (request: SeenRequest) => Step | Promise<Step>;

export interface ScriptedServer {
  readonly url: string;
  readonly requests: SeenRequest[];
  readonly responses: SentResponse[];
  /** Requests to one path. */
  seen(path: string): SeenRequest[];
  /** Scripts a path: the n-th request gets `steps[n]`, later ones the last step. */
  route(path: string, steps: readonly Step[] | Script): void;
  /** Sockets open now. */
  openSockets(): number;
  /**
   * Waits until every socket the clients opened is closed, or at most `atMost` remain (or
   * `timeoutMs` passes); returns how many remain.
   */
  waitForIdle(timeoutMs?: number, atMost?: number): Promise<number>;
  reset(): void;
  close(): Promise<void>;
}

export interface ScriptedServerOptions {
  /**
   * Answer as a cross-origin API that a page on another origin may call: CORS headers on every
   * answer (the request headers jitterbug's scenarios send allowed, `Retry-After` and the rate-limit
   * headers exposed), and CORS preflights answered at once. A preflight is the browser's, not the
   * client's: it is logged in `preflights`, never in `requests`/`seen()`, and takes no step.
   */
  readonly cors?: boolean;
  /**
   * `false`: every answer says `Connection: close` and its connection is closed after it, so no
   * request is ever sent on a reused connection. Browsers, Deno and Bun send a request again on
   * their own when a *reused* connection closes before any response byte (a POST too), which would
   * hide from a test what a lost connection does to the client under test. Default `true`.
   */
  readonly keepAlive?: boolean;
}

/** A CORS preflight the server answered (with `cors`). */
export interface SeenPreflight {
  readonly path: string;
  /** `Access-Control-Request-Method`. */
  readonly method: string;
  /** `Access-Control-Request-Headers`, lower case, as the browser listed them. */
  readonly headers: readonly string[];
}

/** The HTTP/1.1 scripted server: the shared shape plus what only it has. */
export interface HttpScriptedServer extends ScriptedServer {
  /** CORS preflights answered (empty without `cors`). */
  readonly preflights: SeenPreflight[];
}

/**
 * Request headers a cross-origin page may send (besides the CORS-safelisted ones). `user-agent`:
 * axios' fetch adapter sets `User-Agent: axios/<version>` in browsers too; Chromium drops it, but
 * Firefox sends it, so Firefox preflights every axios call and fails it unless this allows it.
 */
const CORS_ALLOW_HEADERS = 'content-type, idempotency-key, user-agent, authorization, x-amz-date';
/** Response headers a cross-origin page may read: what jitterbug reads for its delays. */
const CORS_EXPOSE_HEADERS = 'retry-after, retry-after-ms, ratelimit-reset, x-ratelimit-reset, content-length';
const CORS_ALLOW_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';

const corsHeaders = (): Record<string, string> => ({
  'access-control-allow-origin': '*',
  'access-control-expose-headers': CORS_EXPOSE_HEADERS,
});

const isPreflight = (req: IncomingMessage): boolean =>
  req.method === 'OPTIONS' && typeof req.headers['access-control-request-method'] === 'string';

const CHUNK = Buffer.alloc(64 * 1024, 0x61);

const readBody = (req: IncomingMessage, seen: SeenRequest): Promise<void> =>
  new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.body = Buffer.concat(chunks);
      seen.bodyComplete = true;
      resolve();
    });
    req.on('error', () => resolve());
    req.on('close', () => {
      seen.body = Buffer.concat(chunks);
      resolve();
    });
  });

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const writeBody = async (res: ServerResponse, bytes: number, sent: SentResponse): Promise<void> => {
  let left = bytes;
  while (left > 0 && !res.destroyed) {
    const chunk = left >= CHUNK.length ? CHUNK : CHUNK.subarray(0, left);
    left -= chunk.length;
    sent.bytesWritten += chunk.length;
    if (!res.write(chunk)) {
      const drained = await new Promise<boolean>((resolve) => {
        const done = (ok: boolean) => () => {
          res.off('drain', onDrain);
          res.off('close', onClose);
          resolve(ok);
        };
        const onDrain = done(true);
        const onClose = done(false);
        res.on('drain', onDrain);
        res.on('close', onClose);
      });
      if (!drained) return;
    }
  }
};

/** Starts a scripted server. Unscripted paths answer `200 ok`. */
export const startScriptedServer = async (
  options: ScriptedServerOptions = {},
): Promise<HttpScriptedServer> => {
  const { cors = false, keepAlive = true } = options;
  const scripts = new Map<string, readonly Step[] | Script>();
  const requests: SeenRequest[] = [];
  const responses: SentResponse[] = [];
  const preflights: SeenPreflight[] = [];
  const sockets = new Set<Socket>();
  const perPath = new Map<string, number>();
  // Headers every answer carries, besides its step's own.
  const common: Record<string, string> = {
    ...(cors ? corsHeaders() : {}),
    ...(keepAlive ? {} : { connection: 'close' }),
  };

  const answerPreflight = (req: IncomingMessage, res: ServerResponse, path: string): void => {
    const requested = req.headers['access-control-request-headers'] ?? '';
    preflights.push({
      path,
      method: String(req.headers['access-control-request-method']),
      headers: requested
        .split(',')
        .map((h) => h.trim().toLowerCase())
        .filter((h) => h !== ''),
    });
    req.resume();
    res.writeHead(204, {
      ...common,
      'access-control-allow-methods': CORS_ALLOW_METHODS,
      'access-control-allow-headers': CORS_ALLOW_HEADERS,
      'access-control-max-age': '600',
    });
    res.end();
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (cors && isPreflight(req)) {
      answerPreflight(req, res, path);
      return;
    }
    const nth = perPath.get(path) ?? 0;
    perPath.set(path, nth + 1);
    const seen: SeenRequest = {
      method: req.method ?? '',
      path,
      headers: req.headers,
      body: Buffer.alloc(0),
      bodyComplete: false,
      nth,
    };
    requests.push(seen);
    await readBody(req, seen);
    const script = scripts.get(path);
    let step: Step;
    if (typeof script === 'function') step = await script(seen);
    else if (script && script.length > 0) step = script[Math.min(nth, script.length - 1)]!;
    else step = { status: 200, body: 'ok' };
    const sent: SentResponse = { path, step, bytesWritten: 0, finished: false };
    responses.push(sent);

    if ('destroy' in step) {
      if (step.destroy === 'before-headers') {
        if (step.delayMs) await sleep(step.delayMs);
        req.socket.destroy();
        return;
      }
      const total = step.declaredBytes ?? 1000;
      res.writeHead(step.status ?? 200, {
        ...common,
        'content-type': 'text/plain',
        ...step.headers,
        ...(step.chunked ? {} : { 'content-length': String(total) }),
      });
      const part = Buffer.alloc(step.sentBytes ?? Math.floor(total / 2), 0x62);
      sent.bytesWritten = part.length;
      res.write(part, () => setTimeout(() => req.socket.destroy(), 5));
      return;
    }
    if (step.held) {
      if (!res.destroyed) await once(res, 'close');
      return;
    }
    if (step.delayMs) {
      await sleep(step.delayMs);
      if (res.destroyed || req.socket.destroyed) return;
    }
    const headers: Record<string, string> = { ...common, 'content-type': 'text/plain', ...step.headers };
    if (step.bodyBytes !== undefined) {
      if (!step.chunked) headers['content-length'] = String(step.bodyBytes);
      res.writeHead(step.status, headers);
      await writeBody(res, step.bodyBytes, sent);
      if (!res.destroyed) res.end();
    } else {
      const body = step.body ?? '';
      headers['content-length'] = String(Buffer.byteLength(body));
      res.writeHead(step.status, headers);
      sent.bytesWritten = Buffer.byteLength(body);
      res.end(body);
    }
    res.on('finish', () => {
      sent.finished = true;
    });
    if (res.writableFinished) sent.finished = true;
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

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    responses,
    preflights,
    seen: (path) => requests.filter((r) => r.path === path),
    route(path, steps) {
      scripts.set(path, steps);
    },
    openSockets: () => sockets.size,
    async waitForIdle(timeoutMs = 2_000, atMost = 0) {
      const until = Date.now() + timeoutMs;
      while (sockets.size > atMost && Date.now() < until) await sleep(10);
      return sockets.size;
    },
    reset() {
      scripts.clear();
      requests.length = 0;
      responses.length = 0;
      preflights.length = 0;
      perPath.clear();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
