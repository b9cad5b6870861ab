/**
 * Connection rotation: nginx with `keepalive_requests 5` closes an HTTP/1.1 connection after its
 * fifth request, and on HTTP/2 sends a GOAWAY after the fifth stream; streams above its last stream
 * id are refused unprocessed and never reach its access log. 200 requests from one client with
 * default jitterbug options, half GET and half POST without an `Idempotency-Key`, some in flight at
 * a time: every one must end 200, and every POST reach the backend exactly once.
 */
import { expect } from 'vitest';
import type { ConformanceRequest } from '../conformance/driver.ts';
import type { AccessLogLine } from '../support/nginx/access-log.ts';
import type { Listener, NginxSetup } from '../support/nginx/config.ts';
import { type ClientName, createClient } from '../support/node-clients.ts';
import { countBy, ending, type Sent, sendAll } from '../support/sent.ts';
import { startStack } from './stack.ts';

export const ROTATION_REQUESTS = 200;
export const KEEPALIVE_REQUESTS = 5;

const setup: NginxSetup = {
  servers: [
    {
      name: 'api',
      listen: ['http', 'h2'],
      keepaliveRequests: KEEPALIVE_REQUESTS,
      locations: [{ path: '/', to: { proxy: 'backend' } }],
    },
  ],
};

/** Request `i`: a GET of `/rotation/i` for even `i`, a POST to it (text body, no key) for odd. */
const request = (i: number): ConformanceRequest =>
  i % 2 === 0
    ? { method: 'GET', path: `/rotation/${i}` }
    : { method: 'POST', path: `/rotation/${i}`, body: { kind: 'text', value: `payload ${i}` } };

export interface RotationRun {
  readonly sent: readonly Sent[];
  /** nginx's access log, whole. */
  readonly log: readonly AccessLogLine[];
  /** Requests the backend got, per path. */
  readonly backendCounts: ReadonlyMap<string, number>;
  /** Lines nginx logged for a request it forwarded to the backend, per path. */
  readonly forwardedCounts: ReadonlyMap<string, number>;
}

/** Runs the 200 requests through `client` over plain HTTP/1.1 (`http`) or HTTP/2 (`h2`), `inFlight` at a time. */
export const runRotation = async (
  client: ClientName,
  over: Listener,
  inFlight: number,
): Promise<RotationRun> => {
  const stack = await startStack(setup);
  try {
    const transport =
      over === 'h2' ? ({ name: 'h2', ca: stack.nginx.ca } as const) : ({ name: 'http' } as const);
    const api = await createClient(client, stack.nginx.url('api', over), {}, transport);
    let sent: Sent[];
    try {
      sent = await sendAll(
        api,
        Array.from({ length: ROTATION_REQUESTS }, (_, i) => request(i)),
        inFlight,
      );
    } finally {
      await api.close();
    }
    const log = await stack.nginx.accessLog.settled();
    return {
      sent,
      log,
      backendCounts: countBy(stack.backend.requests, (r) => r.path),
      forwardedCounts: countBy(
        log.filter((l) => l.upstreamStatus !== undefined),
        (l) => l.uri,
      ),
    };
  } finally {
    await stack.stop();
  }
};

/** Paths of the requests whose method is `method`. */
export const pathsOf = (run: RotationRun, method: string): string[] =>
  run.sent.filter((s) => s.request.method === method).map((s) => s.request.path);

/**
 * How many requests ended each way, a request nginx never logged (it never received it, or
 * refused it unprocessed) marked so: `{ '200': 198, 'error max-attempts … (not in nginx's log)': 2 }`.
 */
export const endingsSeenByNginx = (run: RotationRun): Record<string, number> => {
  const logged = new Set(run.log.map((l) => l.uri));
  return Object.fromEntries(
    countBy(run.sent, (s) => `${ending(s)}${logged.has(s.request.path) ? '' : " (not in nginx's log)"}`),
  );
};

/**
 * The done-criterion, checked on all three records: the client's (every request ended 200), the
 * backend's (every POST reached it once) and nginx's (it forwarded each request as often as the
 * backend counted it, answered every one 200, over `protocol`, and rotated its connections).
 */
export const expectEveryRequestServed = (run: RotationRun, protocol: 'HTTP/1.1' | 'HTTP/2.0'): void => {
  expect(endingsSeenByNginx(run)).toEqual({ '200': ROTATION_REQUESTS });
  const posts = pathsOf(run, 'POST');
  expect(posts.filter((p) => run.backendCounts.get(p) !== 1)).toEqual([]);
  expect(pathsOf(run, 'GET').filter((p) => (run.backendCounts.get(p) ?? 0) < 1)).toEqual([]);
  expect(Object.fromEntries(run.forwardedCounts)).toEqual(Object.fromEntries(run.backendCounts));
  expect(Object.fromEntries(countBy(run.log, (l) => `${l.protocol} ${l.status}`))).toEqual({
    [`${protocol} 200`]: run.log.length,
  });
  // Rotated: no connection served more than five requests, so at least 40 were used (a client that
  // spread its requests over more connections may have reached five on none).
  expect(Math.max(...run.log.map((l) => l.connectionRequest))).toBeLessThanOrEqual(KEEPALIVE_REQUESTS);
  expect(new Set(run.log.map((l) => l.connection)).size).toBeGreaterThanOrEqual(
    ROTATION_REQUESTS / KEEPALIVE_REQUESTS,
  );
};
