/**
 * The nginx the browser scenarios run against, as an operator would set it up for a web app: TLS
 * with HTTP/2 everywhere; `site` serves the page and the API on one origin; `api` is the same API
 * on a second origin, with CORS for the page's; `rotating` serves the page and the API again, and
 * rotates its connections after five requests (HTTP/2: a GOAWAY), for a page of its own (the API
 * same-origin) and for the page on `site` (cross-origin). Every location proxies to the one Node backend (or, under
 * `/api/down/`, to a closed port: 502).
 *
 * Scenarios never share state in nginx: each run's paths hold its own id (`/api/burst/<run>/…`),
 * and the rate limits are keyed by it.
 */
import type { Cors, Location, NginxSetup } from '../support/nginx/config.ts';

/** nginx's rate for the 429 burst: 20 a second, 10 more at once (`nodelay`), then `429` with `Retry-After: 1`. */
export const BURST_RATE = { rate: '20r/s', burst: 10, retryAfterSeconds: 1 } as const;
export const KEEPALIVE_REQUESTS = 5;

/**
 * The request headers a page may send cross-origin: the content type (JSON is preflighted), the
 * idempotency key, and a bearer token. Not `User-Agent`: the axios client removes axios' own, as
 * its README says to.
 */
const ALLOW_HEADERS = 'content-type, idempotency-key, authorization';
/** The headers jitterbug reads for a delay, as its READMEs tell an API to expose them. */
const EXPOSED = 'retry-after, retry-after-ms, ratelimit-reset, x-ratelimit-reset, content-length';

const corsFor = (extra: Partial<Cors> = {}): Cors => ({
  allowOrigin: { server: 'site', host: '127.0.0.1', listener: 'h2' },
  allowHeaders: ALLOW_HEADERS,
  exposeHeaders: EXPOSED,
  ...extra,
});

const burstLimit = {
  zone: 'burst',
  burst: BURST_RATE.burst,
  nodelay: true,
  status: 429,
  retryAfterSeconds: BURST_RATE.retryAfterSeconds,
} as const;

/** The API's locations under `/api/`, with CORS headers when `cors` is given. */
const apiLocations = (cors: Cors | undefined): Location[] => {
  const withCors = cors ? { cors } : {};
  return [
    { path: '/api/', to: { proxy: 'backend' }, ...withCors },
    { path: '/api/burst/', to: { proxy: 'backend' }, limitReq: burstLimit, ...withCors },
    { path: '/api/down/', to: { proxy: 'closed-port' }, ...withCors },
  ];
};

export const browserSetup = (pages: string): NginxSetup => ({
  maps: [
    // The run (`burst/<browser>/<client>/<server>`, `burst-hidden/…`): a rate-limit bucket each.
    {
      variable: 'jitterbug_burst_run',
      source: '$uri',
      cases: [['^/api/(burst[^/]*/[^/]+/[^/]+/[^/]+)/', '$1']],
    },
    // Preflights only, per run: the edge limiter counts nothing else.
    {
      variable: 'jitterbug_edge_run',
      source: '$request_method $uri',
      cases: [['^OPTIONS /api/edge/([^/]+/[^/]+)/', '$1']],
    },
  ],
  zones: {
    burst: { rate: BURST_RATE.rate, key: '$jitterbug_burst_run' },
    // One preflight a minute per run: after the first, every preflight of the run is refused.
    edge: { rate: '1r/m', key: '$jitterbug_edge_run' },
  },
  servers: [
    {
      name: 'site',
      listen: ['h2'],
      locations: [{ path: '/', to: { root: pages } }, ...apiLocations(undefined)],
    },
    {
      name: 'api',
      listen: ['h2'],
      locations: [
        ...apiLocations(corsFor()),
        // The same limit, on an API that exposes nothing but content-length: Retry-After hidden.
        {
          path: '/api/burst-hidden/',
          to: { proxy: 'backend' },
          limitReq: burstLimit,
          cors: corsFor({ exposeHeaders: 'content-length' }),
        },
        // An edge limiter that counts preflights too, and answers them like any request.
        {
          path: '/api/edge/',
          to: { proxy: 'backend' },
          limitReq: { zone: 'edge', nodelay: true, status: 429, retryAfterSeconds: 60 },
          cors: corsFor({ preflight: 'target' }),
        },
      ],
    },
    {
      name: 'rotating',
      listen: ['h2'],
      keepaliveRequests: KEEPALIVE_REQUESTS,
      locations: [{ path: '/', to: { root: pages } }, ...apiLocations(corsFor())],
    },
  ],
});
