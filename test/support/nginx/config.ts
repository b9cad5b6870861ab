/**
 * What a test's nginx does, as data, and the `nginx.conf` it becomes. A setup names servers (each
 * on its own ports), their locations (proxied to the test's Node backend or to a closed port,
 * a static folder, or a fixed answer) and what nginx does in front of them: `limit_req` zones, a
 * `Retry-After` on the refusals only, `keepalive_requests` (HTTP/1.1 close, HTTP/2 GOAWAY),
 * `proxy_read_timeout`, CORS for a page served from another server of the same nginx.
 *
 * The config is written for nginx 1.22 (Debian 12): HTTP/2 is the `http2` parameter of `listen`
 * (`http2 on;` came in 1.25). Everything nginx writes is under the run's folder, and it runs as a
 * single process in the foreground (`master_process off`, `daemon off`): its pid is all there is to
 * stop, and a KILL leaves no worker behind.
 */
import { ACCESS_LOG_FORMAT } from './access-log.ts';

/**
 * How a server is reached, one port each: plain HTTP/1.1 (`http`), HTTP/1.1 over TLS (`https`),
 * or TLS offering HTTP/2 and HTTP/1.1 by ALPN (`h2`).
 */
export type Listener = 'http' | 'https' | 'h2';

/** A `limit_req_zone`: `rate` as nginx writes it (`20r/s`, `60r/m`), keyed by `key` (default the client address). */
export interface RateZone {
  readonly rate: string;
  readonly key?: string;
}

/** `limit_req` in a location. */
export interface RateLimit {
  readonly zone: string;
  readonly burst?: number;
  readonly nodelay?: boolean;
  /** `limit_req_status` (nginx's own default is 503). */
  readonly status: number;
  /** A `Retry-After` (seconds) on the refusals only, never on the answers that got through. */
  readonly retryAfterSeconds?: number;
}

/**
 * CORS for a location called by a page on another origin: `OPTIONS` answered 204 by nginx with the
 * `Access-Control-Allow-*` headers, every other answer (errors too: `always`) with
 * `Access-Control-Allow-Origin` and `Access-Control-Expose-Headers`.
 */
export interface Cors {
  /**
   * `*`, or the origin of another server of this nginx: `<scheme>://<host>:<its port>` on its
   * `listener` (default `http`; `https` for `https` and `h2`), host default `localhost`.
   */
  readonly allowOrigin:
    | '*'
    | { readonly server: string; readonly host?: string; readonly listener?: Listener };
  readonly allowMethods?: string;
  readonly allowHeaders?: string;
  readonly exposeHeaders?: string;
  /**
   * Who answers a preflight: nginx itself at once (`'nginx'`, the default: `return 204`, before any
   * `limit_req`, which runs in a later phase), or the location's target like any other request
   * (`'target'`): the location's `limit_req` then counts and refuses preflights too, as an edge
   * limiter in front of an API does. nginx adds the preflight's `Access-Control-Allow-*` headers.
   */
  readonly preflight?: 'nginx' | 'target';
}

/** Where a location's requests go. */
export type Target =
  /** The test's Node backend (the URL given to `startNginx`). */
  | { readonly proxy: 'backend' }
  /** A port on 127.0.0.1 that nothing listens on: nginx answers 502. */
  | { readonly proxy: 'closed-port' }
  /** Files from this folder (`index.html` for a folder). */
  | { readonly root: string }
  /** nginx answers itself, its body of `contentType` (`default_type`; default `application/octet-stream`). */
  | { readonly status: number; readonly body?: string; readonly contentType?: string };

export interface Location {
  /** A prefix (`/burst/`), or the whole path with `exact`. */
  readonly path: string;
  readonly exact?: boolean;
  readonly to: Target;
  readonly limitReq?: RateLimit;
  /** `proxy_read_timeout`: a backend slower than this gets the client a 504. */
  readonly proxyReadTimeoutMs?: number;
  /** Response headers added to every answer of the location (`add_header … always`). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly cors?: Cors;
  /**
   * `error_page`: an answer of this status (nginx's own, or the backend's: `proxy_intercept_errors`)
   * is replaced by the answer of the location at this path, e.g. a named one (`@problem`), which
   * keeps the request's `$uri` in the access log.
   */
  readonly errorPages?: Readonly<Record<number, string>>;
}

export interface Server {
  /** The name tests use to ask for its URLs. */
  readonly name: string;
  readonly listen: readonly Listener[];
  /** `keepalive_requests`: requests per connection before nginx rotates it (nginx's default 1000). */
  readonly keepaliveRequests?: number;
  readonly locations: readonly Location[];
}

/**
 * A `map` block: `variable` (without `$`) takes the value of the first case whose regular
 * expression (nginx's, case-sensitive, with named captures) matches `source`, else `otherwise`
 * (default empty). A zone keyed by such a variable limits each value on its own, and requests that
 * get an empty value not at all.
 */
export interface NginxMap {
  readonly variable: string;
  /** What is matched: text with nginx variables, e.g. `$request_method $uri`. */
  readonly source: string;
  readonly cases: readonly (readonly [regex: string, value: string])[];
  readonly otherwise?: string;
}

export interface NginxSetup {
  /** `limit_req_zone`s by name. */
  readonly zones?: Readonly<Record<string, RateZone>>;
  readonly maps?: readonly NginxMap[];
  readonly servers: readonly Server[];
}

/** What is known only when a run starts. */
export interface Placement {
  /** The run's folder (absolute): config, pid, logs, temp paths and certificate go there. */
  readonly dir: string;
  /** Each server's port per listener. */
  readonly ports: ReadonlyMap<string, Readonly<Partial<Record<Listener, number>>>>;
  /** `host:port` of the Node backend, when a location proxies to it. */
  readonly backend?: string;
  /** A port nothing listens on, when a location proxies to it. */
  readonly closedPort?: number;
}

/** A string as one nginx token (quoted: values may hold spaces, `;` or `$`-less text). */
const quote = (value: string): string => `"${value.replace(/(["\\])/g, '\\$1')}"`;

const ALLOW_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';
const ALLOW_HEADERS = 'content-type, idempotency-key, user-agent';
const EXPOSE_HEADERS =
  'retry-after, ratelimit, ratelimit-policy, ratelimit-reset, x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset, content-length';

/** The map variable holding `seconds` when `$status` is `status`, and nothing otherwise. */
const retryAfterVariable = (limit: RateLimit): string =>
  `$jitterbug_retry_after_${limit.status}_${limit.retryAfterSeconds}`;

const originOf = (cors: Cors, where: Placement): string => {
  if (cors.allowOrigin === '*') return '*';
  const { server, host = 'localhost', listener = 'http' } = cors.allowOrigin;
  const port = where.ports.get(server)?.[listener];
  if (port === undefined)
    throw new TypeError(`cors.allowOrigin: server "${server}" has no ${listener} listener`);
  return `${listener === 'http' ? 'http' : 'https'}://${host}:${port}`;
};

/**
 * The variable that holds `value` for a preflight and nothing for any other request, named by a
 * hash of the header and the value (short: nginx's variable hash refuses long names), so that
 * locations with the same header share one map.
 */
const preflightVariable = (name: string, value: string): string =>
  `$jitterbug_pf_${[...`${name}:${value}`].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7).toString(36)}`;

/** The preflight's own headers: name and value. */
const preflightHeaders = (cors: Cors): [string, string][] => [
  ['Access-Control-Allow-Methods', cors.allowMethods ?? ALLOW_METHODS],
  ['Access-Control-Allow-Headers', cors.allowHeaders ?? ALLOW_HEADERS],
  ['Access-Control-Max-Age', '600'],
];

const targetLines = (location: Location, where: Placement): string[] => {
  const { to } = location;
  if ('root' in to) return [`root ${quote(to.root)};`, 'index index.html;'];
  if ('status' in to)
    return [
      ...(to.contentType === undefined ? [] : [`default_type ${quote(to.contentType)};`]),
      `return ${to.status}${to.body === undefined ? '' : ` ${quote(to.body)}`};`,
    ];
  const upstream =
    to.proxy === 'backend'
      ? where.backend
      : where.closedPort === undefined
        ? undefined
        : `127.0.0.1:${where.closedPort}`;
  if (upstream === undefined)
    throw new TypeError(`location ${location.path}: no address for proxy "${to.proxy}"`);
  return [
    `proxy_pass http://${upstream};`,
    'proxy_http_version 1.1;',
    // One backend connection per request (no upstream keepalive): nginx then never sends a request
    // to the backend again on a fresh connection after a kept one closed, so the backend's count of
    // a request is what nginx forwarded once.
    'proxy_set_header Connection close;',
    ...(location.proxyReadTimeoutMs === undefined
      ? []
      : [`proxy_read_timeout ${location.proxyReadTimeoutMs}ms;`]),
  ];
};

const locationBlock = (location: Location, where: Placement): string[] => {
  const lines: string[] = [];
  const added: string[] = Object.entries(location.headers ?? {}).map(
    ([name, value]) => `add_header ${name} ${quote(value)} always;`,
  );
  const { limitReq, cors } = location;
  if (limitReq) {
    lines.push(
      `limit_req zone=${limitReq.zone}${limitReq.burst === undefined ? '' : ` burst=${limitReq.burst}`}${limitReq.nodelay ? ' nodelay' : ''};`,
      `limit_req_status ${limitReq.status};`,
    );
    // An empty value adds no header: the map gives one only to the refusals.
    if (limitReq.retryAfterSeconds !== undefined)
      added.push(`add_header Retry-After ${retryAfterVariable(limitReq)} always;`);
  }
  if (cors) {
    const origin = quote(originOf(cors, where));
    if (cors.preflight === 'target') {
      // Through a map, these are empty (and not sent) on anything but a preflight.
      for (const [name, value] of preflightHeaders(cors))
        added.push(`add_header ${name} ${preflightVariable(name, value)} always;`);
    } else {
      // add_header inside `if` replaces the location's, so the preflight's list is whole.
      lines.push(
        'if ($request_method = OPTIONS) {',
        `  add_header Access-Control-Allow-Origin ${origin} always;`,
        ...preflightHeaders(cors).map(([name, value]) => `  add_header ${name} ${quote(value)} always;`),
        '  return 204;',
        '}',
      );
    }
    added.push(
      `add_header Access-Control-Allow-Origin ${origin} always;`,
      `add_header Access-Control-Expose-Headers ${quote(cors.exposeHeaders ?? EXPOSE_HEADERS)} always;`,
    );
  }
  const errorPages = Object.entries(location.errorPages ?? {});
  if (errorPages.length > 0 && 'proxy' in location.to) lines.push('proxy_intercept_errors on;');
  for (const [status, path] of errorPages) lines.push(`error_page ${status} ${path};`);
  lines.push(...added, ...targetLines(location, where));
  return [`location ${location.exact ? '= ' : ''}${location.path} {`, ...lines.map((l) => `  ${l}`), '}'];
};

const serverBlock = (server: Server, where: Placement): string[] => {
  const ports = where.ports.get(server.name);
  const listens = server.listen.map((listener) => {
    const port = ports?.[listener];
    if (port === undefined) throw new TypeError(`server ${server.name}: no port for listener ${listener}`);
    const params = { http: '', https: ' ssl', h2: ' ssl http2' }[listener];
    return `listen 127.0.0.1:${port}${params};`;
  });
  const tls = server.listen.some((l) => l !== 'http')
    ? [
        `ssl_certificate ${quote(`${where.dir}/cert.pem`)};`,
        `ssl_certificate_key ${quote(`${where.dir}/key.pem`)};`,
      ]
    : [];
  const lines = [
    ...listens,
    `server_name ${server.name};`,
    ...tls,
    ...(server.keepaliveRequests === undefined ? [] : [`keepalive_requests ${server.keepaliveRequests};`]),
    ...server.locations.flatMap((l) => locationBlock(l, where)),
  ];
  return ['server {', ...lines.map((l) => `  ${l}`), '}'];
};

/** The `nginx.conf` for `setup` placed at `where`. Throws a `TypeError` for a setup that names what it lacks. */
export const nginxConfig = (setup: NginxSetup, where: Placement): string => {
  const { dir } = where;
  const zones = Object.entries(setup.zones ?? {}).map(
    ([name, zone]) =>
      `limit_req_zone ${zone.key ?? '$binary_remote_addr'} zone=${name}:1m rate=${zone.rate};`,
  );
  const limits = setup.servers.flatMap((s) => s.locations.flatMap((l) => (l.limitReq ? [l.limitReq] : [])));
  for (const limit of limits)
    if (!setup.zones?.[limit.zone]) throw new TypeError(`limitReq.zone: no zone named "${limit.zone}"`);
  const maps = [
    ...new Set(
      limits
        .filter((l) => l.retryAfterSeconds !== undefined)
        .map(
          (l) => `map $status ${retryAfterVariable(l)} { ${l.status} ${l.retryAfterSeconds}; default ""; }`,
        ),
    ),
  ];
  const preflightMaps = setup.servers.flatMap((s) =>
    s.locations.flatMap((l) =>
      l.cors?.preflight === 'target'
        ? preflightHeaders(l.cors).map(
            ([name, value]) =>
              `map $request_method ${preflightVariable(name, value)} { OPTIONS ${quote(value)}; default ""; }`,
          )
        : [],
    ),
  );
  const userMaps = (setup.maps ?? []).map(
    (m) =>
      `map ${quote(m.source)} $${m.variable} { ${m.cases.map(([regex, value]) => `${quote(`~${regex}`)} ${quote(value)}; `).join('')}default ${quote(m.otherwise ?? '')}; }`,
  );
  const http = [
    `log_format jitterbug escape=json ${quote(ACCESS_LOG_FORMAT)};`,
    `access_log ${quote(`${dir}/access.log`)} jitterbug;`,
    `client_body_temp_path ${quote(`${dir}/client_body`)};`,
    `proxy_temp_path ${quote(`${dir}/proxy`)};`,
    `fastcgi_temp_path ${quote(`${dir}/fastcgi`)};`,
    `uwsgi_temp_path ${quote(`${dir}/uwsgi`)};`,
    `scgi_temp_path ${quote(`${dir}/scgi`)};`,
    // Its own types, not /etc/nginx/mime.types: the run depends on no file outside its folder.
    'types { text/html html; text/javascript js mjs; text/css css; application/json json; text/plain txt; }',
    'default_type application/octet-stream;',
    ...userMaps,
    ...zones,
    ...maps,
    ...new Set(preflightMaps),
    ...setup.servers.flatMap((s) => serverBlock(s, where)),
  ];
  return [
    'daemon off;',
    'master_process off;',
    `pid ${quote(`${dir}/nginx.pid`)};`,
    `error_log ${quote(`${dir}/error.log`)} warn;`,
    'events { worker_connections 1024; }',
    'http {',
    ...http.map((l) => `  ${l}`),
    '}',
    '',
  ].join('\n');
};
