/**
 * Pacing against a real nginx (issue 24): a sustained load of 2.5 times the limit for 10 s (50 GETs
 * a second, each started on time whatever happened to the others), through withRetry over Node's
 * fetch, once with each request honouring its own Retry-After (`herd: false`: the defaults before
 * the herd line, which a burst test of its own measures, `herd.test.ts`) and once with
 * `pacer: createPacer()`, each against its own nginx and backend, side by side.
 *
 * - nginx's `limit_req` at 20 r/s, burst 10, nodelay, a 429 with `Retry-After: 1` (it advertises
 *   nothing): the pacer learns the pace from the 429s. nginx must serve at least 90 % fewer 429s
 *   than to per-request Retry-After, and no paced request may fail.
 * - An API behind nginx that advertises its quota (40 requests per fixed 2 s window, in
 *   `RateLimit-Policy` and `RateLimit`, the IETF draft's structured fields) and answers 429 past it:
 *   each client first sends one request and waits for its answer, so that the pacer knows the quota
 *   before the load starts; then nginx must serve no 429 after the first window, nor any to the
 *   paced client, and no paced request may fail. (Without that first answer the pacer knows nothing
 *   and lets requests go as they come: on a quiet machine the first answer is back within 0.2 s,
 *   some 10 requests; on a loaded one after 3.5 s (175 requests), or after all 500 had gone (16 s),
 *   each new connection's TLS handshake waiting for the CPU, and those requests' 429s fell in any
 *   window: nothing a client that has heard nothing from a server can promise.)
 *
 * Counted in nginx's access log. The table is printed for the record.
 */
import { createPacer, type RetryPolicyOptions } from '@jitterbug/core';
import { describe, expect, it } from 'vitest';
import type { ConformanceClient, ConformanceRequest } from '../conformance/driver.ts';
import type { NginxSetup } from '../support/nginx/config.ts';
import { createClient, tlsTransport } from '../support/node-clients.ts';
import { countBy, endings, type Sent } from '../support/sent.ts';
import { type Stack, startStack } from './stack.ts';

const LIMIT_PER_SEC = 20;
const LOAD = 2.5;
const SECONDS = 10;
const REQUESTS = LIMIT_PER_SEC * LOAD * SECONDS;
const WINDOW_S = 2;
const QUOTA = LIMIT_PER_SEC * WINDOW_S;
const CLIENT = 'fetch';

const limitReq: NginxSetup = {
  zones: { api: { rate: `${LIMIT_PER_SEC}r/s` } },
  servers: [
    {
      name: 'api',
      listen: ['https'],
      locations: [
        {
          path: '/',
          to: { proxy: 'backend' },
          limitReq: { zone: 'api', burst: 10, nodelay: true, status: 429, retryAfterSeconds: 1 },
        },
      ],
    },
  ],
};

const proxyOnly: NginxSetup = {
  servers: [{ name: 'api', listen: ['https'], locations: [{ path: '/', to: { proxy: 'backend' } }] }],
};

/**
 * The backend's quota on `/quota`: fixed windows of 2 s from its first request, every answer telling
 * what is left (`t` rounded up to whole seconds, as the draft has it), a 429 past the quota.
 */
const advertiseQuota = (stack: Stack): void => {
  let start = 0;
  let window = -1;
  let used = 0;
  stack.backend.route('/quota', () => {
    const now = Date.now();
    if (start === 0) start = now;
    const w = Math.floor((now - start) / (WINDOW_S * 1000));
    if (w !== window) {
      window = w;
      used = 0;
    }
    const resetS = Math.ceil((start + (w + 1) * WINDOW_S * 1000 - now) / 1000);
    const ok = used < QUOTA;
    if (ok) used++;
    const headers: Record<string, string> = {
      'ratelimit-policy': `"default";q=${QUOTA};w=${WINDOW_S}`,
      ratelimit: `"default";r=${QUOTA - used};t=${resetS}`,
    };
    if (!ok) headers['retry-after'] = String(resetS);
    return ok ? { status: 200, headers, body: 'ok' } : { status: 429, headers };
  });
};

/** Starts `REQUESTS` requests at `LOAD` times the limit, each on time, and waits for them all. */
const sustained = async (client: ConformanceClient, path: (i: number) => string): Promise<Sent[]> => {
  const gapMs = 1000 / (LIMIT_PER_SEC * LOAD);
  const start = performance.now();
  const pending: Promise<Sent>[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const due = start + i * gapMs;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const request: ConformanceRequest = { method: 'GET', path: path(i) };
    pending.push(client.send(request).then((result) => ({ request, result })));
  }
  return Promise.all(pending);
};

interface Measured {
  readonly sent: Sent[];
  readonly refused: number;
  readonly refusedAfterFirstWindow: number;
  readonly lastEndS: number;
}

/**
 * One client's run against its own nginx and backend: what it got, and nginx's 429s. With `firstAnswer`,
 * the client sends one request and waits for its answer before the load starts.
 */
const run = async (
  setup: NginxSetup,
  options: RetryPolicyOptions,
  path: (i: number) => string,
  prepare: (stack: Stack) => void = () => {},
  firstAnswer = false,
): Promise<Measured> => {
  const stack = await startStack(setup);
  try {
    prepare(stack);
    const transport = tlsTransport(CLIENT);
    const client = await createClient(CLIENT, stack.nginx.url('api', 'https'), options, {
      name: transport,
      ca: stack.nginx.ca,
    });
    const sent = await (async () => {
      if (firstAnswer)
        expect((await client.send({ method: 'GET', path: path(-1) })).outcome).toMatchObject({ status: 200 });
      return sustained(client, path);
    })().finally(() => client.close());
    const log = await stack.nginx.accessLog.settled();
    const first = Math.min(...log.map((l) => l.startMs));
    const refused = log.filter((l) => l.status === 429);
    return {
      sent,
      refused: refused.length,
      refusedAfterFirstWindow: refused.filter((l) => l.startMs >= first + WINDOW_S * 1000).length,
      lastEndS: (Math.max(...log.map((l) => l.endMs)) - first) / 1000,
    };
  } finally {
    await stack.stop();
  }
};

const record = (scenario: string, runs: Record<string, Measured>): void => {
  const rows = Object.entries(runs).map(
    ([name, m]) =>
      `  ${name.padEnd(12)} 429s ${String(m.refused).padStart(4)}, after ${WINDOW_S} s ${String(m.refusedAfterFirstWindow).padStart(4)}, last answer at ${m.lastEndS.toFixed(1)} s, ended ${JSON.stringify(endings(m.sent))}`,
  );
  console.info(
    `${scenario} (${CLIENT}, ${REQUESTS} GETs at ${LOAD}× the limit for ${SECONDS} s):\n${rows.join('\n')}`,
  );
};

// Each scenario runs its two clients at once, against nginx's and backends of their own; the two
// scenarios run at once too: together about 35 s, mostly the paced requests waiting their turn.
describe.concurrent('pacing a sustained load above the limit, through nginx', () => {
  it('limit_req 20 r/s burst 10 nodelay, Retry-After 1: the pacer gets at least 90 % fewer 429s, none failing', async () => {
    const items = (i: number) => `/items/${i}`;
    const [perRequest, paced] = await Promise.all([
      run(limitReq, { herd: false }, items),
      run(limitReq, { pacer: createPacer() }, items),
    ]);
    record('nginx limit_req', { 'retry-after': perRequest, pacer: paced });
    expect(perRequest.refused).toBeGreaterThan(200);
    expect(paced.refused).toBeLessThanOrEqual(0.1 * perRequest.refused);
    expect(endings(paced.sent)).toEqual({ '200': REQUESTS });
  }, 90_000);

  it('an API advertising its quota (RateLimit, 40 per 2 s): once it is known, no 429, none failing', async () => {
    const quota = () => '/quota';
    const [perRequest, paced] = await Promise.all([
      run(proxyOnly, { herd: false }, quota, advertiseQuota, true),
      run(proxyOnly, { pacer: createPacer() }, quota, advertiseQuota, true),
    ]);
    record('RateLimit fields from the backend', { 'retry-after': perRequest, pacer: paced });
    expect(perRequest.refusedAfterFirstWindow).toBeGreaterThan(100);
    expect(paced.refusedAfterFirstWindow).toBe(0);
    expect(paced.refused).toBe(0);
    expect(endings(paced.sent)).toEqual({ '200': REQUESTS });
    // Each paced request reached the backend once, through nginx's one 200 for it.
    expect(Object.fromEntries(countBy(paced.sent, (s) => String(s.result.info?.attempts)))).toEqual({
      '1': REQUESTS,
    });
  }, 90_000);
});
