/**
 * What a test's HAProxy does, as data, and the `haproxy.cfg` it becomes: one TLS frontend on
 * 127.0.0.1 offering HTTP/2 and HTTP/1.1 by ALPN, its idle keep-alive timeout, and routes by path
 * prefix to the test's Node backend or to a closed port (HAProxy answers 503), each with its own
 * `timeout server` (a slower backend gets the client a 504) and rate limit (a stick table counting
 * each client address's requests of the last second, refused past a limit with 429 and
 * `Retry-After`).
 *
 * Written for HAProxy 2.6 (Debian 12), run in master-worker mode in the foreground (`-W`): no
 * `daemon`, `chroot`, `user` or `group`; the log goes to the process's stdout, which the harness
 * writes to a file; the stats socket (through which a reloaded worker takes over the listening
 * sockets, so that a reload refuses no connection) and the certificate are in the run's folder.
 */
import { HAPROXY_LOG_FORMAT } from './log.ts';

/** A limit on each client address's requests in the last second. */
export interface HaproxyRateLimit {
  /** Requests let through per second; the ones above are answered 429 (HAProxy counts those too). */
  readonly perSecond: number;
  /** The refusal's `Retry-After`, seconds. */
  readonly retryAfterSeconds: number;
}

export interface HaproxyRoute {
  /** A path prefix (`/down/`). */
  readonly path: string;
  /** The test's Node backend, or a port on 127.0.0.1 nothing listens on. */
  readonly to: 'backend' | 'closed-port';
  /** `timeout server`: the backend's time to answer (default 5 s). */
  readonly timeoutServerMs?: number;
  readonly rateLimit?: HaproxyRateLimit;
}

export interface HaproxySetup {
  /** Tried in order; a request no route matches goes to the backend. */
  readonly routes?: readonly HaproxyRoute[];
  /**
   * `timeout http-keep-alive`: how long HAProxy keeps an idle client connection open for its next
   * request (HTTP/1.1: closes it; HTTP/2: a GOAWAY). Default 5 s.
   */
  readonly keepAliveMs?: number;
  /**
   * `option idle-close-on-response`: on a reload, the old worker keeps an idle HTTP/1.1 connection
   * until it has answered one more request on it (with `Connection: close`) instead of closing it
   * under a client that may be writing to it.
   */
  readonly idleCloseOnResponse?: boolean;
}

/** What is known only when a run starts. */
export interface HaproxyPlacement {
  /** The run's folder (absolute). */
  readonly dir: string;
  /** The frontend's TLS port. */
  readonly port: number;
  /** `host:port` of the Node backend. */
  readonly backend: string;
  /** A port nothing listens on. */
  readonly closedPort: number;
}

/** A string as one HAProxy word (quoted: a path may hold spaces). */
const quote = (value: string): string => `"${value.replace(/(["\\])/g, '\\$1')}"`;

const backendBlock = (name: string, route: HaproxyRoute | undefined, where: HaproxyPlacement): string[] => {
  const to = route?.to === 'closed-port' ? `127.0.0.1:${where.closedPort}` : where.backend;
  const limit = route?.rateLimit;
  return [
    `backend ${name}`,
    // A new backend connection per request: HAProxy then never sends a request to the backend again
    // on a new connection after a kept one closed, so the backend's count is what HAProxy forwarded.
    '  option http-server-close',
    ...(route?.timeoutServerMs === undefined ? [] : [`  timeout server ${route.timeoutServerMs}ms`]),
    // A closed port is answered 503 at once, without HAProxy's own connect retries.
    ...(route?.to === 'closed-port' ? ['  retries 0'] : []),
    ...(limit
      ? [
          '  stick-table type ip size 1k expire 10s store http_req_rate(1s)',
          '  http-request track-sc0 src',
          `  http-request return status 429 content-type text/plain string "rate limited" hdr Retry-After ${limit.retryAfterSeconds} if { sc_http_req_rate(0) gt ${limit.perSecond} }`,
        ]
      : []),
    `  server app ${to}`,
  ];
};

/** The `haproxy.cfg` for `setup` placed at `where`. */
export const haproxyConfig = (setup: HaproxySetup, where: HaproxyPlacement): string => {
  const { dir } = where;
  const routes = setup.routes ?? [];
  return [
    'global',
    '  log stdout format raw local0',
    `  stats socket ${quote(`${dir}/admin.sock`)} mode 600 level admin expose-fd listeners`,
    `  pidfile ${quote(`${dir}/haproxy.pid`)}`,
    // No server of a test needs more; HAProxy's default (from the file limit) costs memory per run.
    '  maxconn 4096',
    'defaults',
    '  mode http',
    '  log global',
    `  log-format ${quote(HAPROXY_LOG_FORMAT)}`,
    // A connection that sent nothing (the harness's own readiness check) is not logged.
    '  option dontlognull',
    '  timeout connect 1s',
    '  timeout client 10s',
    '  timeout server 5s',
    `  timeout http-keep-alive ${setup.keepAliveMs ?? 5_000}ms`,
    ...(setup.idleCloseOnResponse ? ['  option idle-close-on-response'] : []),
    'frontend api',
    `  bind 127.0.0.1:${where.port} ssl crt ${quote(`${dir}/site.pem`)} alpn h2,http/1.1`,
    '  http-request capture req.hdr(idempotency-key) len 100',
    ...routes.map((route, i) => `  use_backend route${i} if { path_beg ${quote(route.path)} }`),
    '  default_backend app',
    ...routes.flatMap((route, i) => backendBlock(`route${i}`, route, where)),
    ...backendBlock('app', undefined, where),
    '',
  ].join('\n');
};
