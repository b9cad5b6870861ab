/**
 * The signals of an answer besides its status, through a real nginx over TLS, every client, default
 * jitterbug options with a virtual clock and sleep (`test/conformance/virtual-time.ts`) and no
 * jitter: a wait costs no time and is read back exactly.
 *
 * - An idempotency key (draft-ietf-httpapi-idempotency-key-header-07): `/orders/` proxies to the
 *   Node backend, whose 409 ("a request with this key is still being processed") and 422 ("this key
 *   was used with another payload") nginx passes on.
 * - A spent quota (draft-ietf-httpapi-ratelimit-headers, and the `X-RateLimit-*` convention):
 *   `/daily/` is nginx's own 429 with `RateLimit: "default";r=0;t=7200` added by nginx; `/repos/`
 *   passes on the backend's 429 with `X-RateLimit-Remaining: 0` and an `X-RateLimit-Reset` hours
 *   away; `/search/` turns the backend's 429 into nginx's own with a quota back in 2 s
 *   (`proxy_intercept_errors` and an `error_page` to a named location, which keeps the request's
 *   path in the log), so the backend's next 200 is what the retry gets.
 *
 * Each checked in nginx's access log, and in the backend's record where there is a backend.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConformanceBody, ConformanceResult } from '../conformance/driver.ts';
import type { VirtualTime } from '../conformance/virtual-time.ts';
import type { NginxSetup } from '../support/nginx/config.ts';
import { CLIENTS, type ClientName } from '../support/node-clients.ts';
import { ending } from '../support/sent.ts';
import type { Stack } from './stack.ts';
import { startVirtualScenario, type VirtualScenario } from './virtual-scenario.ts';

/** Where the virtual clock starts: nginx's and the backend's resets are written against it. */
const START_MS = Date.UTC(2026, 11, 2, 9, 0, 0);
const DAILY_RESET_S = 7200;
/** An `X-RateLimit-Reset` in epoch seconds (GitHub's form), 3 hours after the start. */
const REPOS_RESET_MS = START_MS + 3 * 3_600_000;

const setup: NginxSetup = {
  servers: [
    {
      name: 'api',
      listen: ['https', 'h2'],
      locations: [
        { path: '/orders/', to: { proxy: 'backend' } },
        {
          path: '/daily/',
          to: { status: 429, body: 'daily quota spent', contentType: 'text/plain' },
          headers: {
            'RateLimit-Policy': '"default";q=1000;w=86400',
            RateLimit: `"default";r=0;t=${DAILY_RESET_S}`,
          },
        },
        { path: '/repos/', to: { proxy: 'backend' } },
        { path: '/search/', to: { proxy: 'backend' }, errorPages: { 429: '@burst-spent' } },
        {
          path: '@burst-spent',
          to: { status: 429, body: 'burst spent', contentType: 'text/plain' },
          headers: { RateLimit: '"burst";r=0;t=2' },
        },
      ],
    },
  ],
};

const order = (sku: string): ConformanceBody => ({
  kind: 'text',
  value: JSON.stringify({ sku, quantity: 2 }),
});

/** A request ended at once for a spent quota: sent once, no wait, and when the quota is back. */
const endedSpent = (result: ConformanceResult, waits: readonly number[], quotaResetAt: number): void => {
  expect(result.info).toMatchObject({
    attempts: 1,
    retries: [],
    reason: 'quota-exceeded',
    outcome: 'failure',
    quotaResetAt,
  });
  expect(waits).toEqual([]);
};

describe.each(CLIENTS)('nginx passing on the signals of an answer, %s', (name: ClientName) => {
  let stack: Stack;
  let time: VirtualTime;
  let send: VirtualScenario['send'];
  let stop: VirtualScenario['stop'];
  beforeEach(async () => {
    ({ stack, time, send, stop } = await startVirtualScenario(setup, name, START_MS));
  });
  afterEach(() => stop());

  /** nginx's lines for `path`: status, what the backend answered it (nothing for nginx's own answers), the key. */
  const logged = async (path: string) =>
    (await stack.nginx.accessLog.settled())
      .filter((l) => l.uri === path)
      .map((l) => [l.status, l.upstreamStatus, l.idempotencyKey] as const);
  const keyed = (key: string) => ({ 'Idempotency-Key': key, 'content-type': 'application/json' });

  it('a keyed POST answered 409 waits its Retry-After and is sent again with the same key: 200 in 2', async () => {
    stack.backend.route('/orders/o-409', [
      { status: 409, headers: { 'Retry-After': '1' }, body: 'a request with this key is being processed' },
      { status: 200, body: 'made' },
    ]);
    const sent = { method: 'POST', path: '/orders/o-409', headers: keyed('order-7'), body: order('A-1') };
    const result = await send(sent);
    expect(ending({ request: sent, result })).toBe('200');
    expect(result.outcome.kind === 'response' && result.outcome.body).toBe('made');
    expect(result.info).toMatchObject({ attempts: 2, retries: ['key-in-use'], outcome: 'success' });
    expect(time.waits).toEqual([1000]);
    expect(await logged('/orders/o-409')).toEqual([
      [409, 409, 'order-7'],
      [200, 200, 'order-7'],
    ]);
    const seen = stack.backend.seen('/orders/o-409');
    expect(seen.map((r) => r.headers['idempotency-key'])).toEqual(['order-7', 'order-7']);
    for (const r of seen) expect(JSON.parse(r.body.toString())).toEqual({ sku: 'A-1', quantity: 2 });
  });

  it('a keyed POST answered 422 (its key used with another payload) is sent once: key-reused', async () => {
    stack.backend.route('/orders/o-422', [
      { status: 422, body: 'key reused with another payload' },
      { status: 200, body: 'made' },
    ]);
    const sent = { method: 'POST', path: '/orders/o-422', headers: keyed('order-8'), body: order('B-2') };
    const result = await send(sent);
    expect(ending({ request: sent, result })).toBe('422 key-reused');
    expect(result.info).toMatchObject({ attempts: 1, retries: [], reason: 'key-reused', outcome: 'failure' });
    expect(time.waits).toEqual([]);
    expect(await logged('/orders/o-422')).toEqual([[422, 422, 'order-8']]);
    expect(stack.backend.seen('/orders/o-422')).toHaveLength(1);
  });

  it('a POST without a key answered 409 keeps the status rules: sent once', async () => {
    stack.backend.route('/orders/o-unkeyed', [{ status: 409 }, { status: 200, body: 'made' }]);
    const sent = { method: 'POST', path: '/orders/o-unkeyed', body: order('C-3') };
    const result = await send(sent);
    expect(ending({ request: sent, result })).toBe('409 status-not-retryable');
    expect(result.info).toMatchObject({ attempts: 1, retries: [] });
    expect(await logged('/orders/o-unkeyed')).toEqual([[409, 409, undefined]]);
    expect(stack.backend.seen('/orders/o-unkeyed')).toHaveLength(1);
  });

  it("nginx's 429 with RateLimit r=0 and t=7200 is sent once: quota-exceeded, back in 2 hours", async () => {
    const sent = { method: 'GET', path: '/daily/completions' };
    const result = await send(sent);
    expect(ending({ request: sent, result })).toBe('429 quota-exceeded');
    endedSpent(result, time.waits, START_MS + DAILY_RESET_S * 1000);
    if (result.outcome.kind === 'response')
      expect(result.outcome.headers.get('ratelimit')).toBe(`"default";r=0;t=${DAILY_RESET_S}`);
    expect(await logged('/daily/completions')).toEqual([[429, undefined, undefined]]);
  });

  it("the backend's 429 with X-RateLimit-Remaining: 0 and a reset 3 hours away is sent once: quota-exceeded", async () => {
    stack.backend.route('/repos/octo', [
      {
        status: 429,
        headers: {
          'X-RateLimit-Limit': '5000',
          'X-RateLimit-Remaining': '0',
          'X-RateLimit-Reset': String(REPOS_RESET_MS / 1000),
        },
        body: 'API rate limit exceeded',
      },
      { status: 200, body: 'repo' },
    ]);
    const sent = { method: 'GET', path: '/repos/octo' };
    const result = await send(sent);
    expect(ending({ request: sent, result })).toBe('429 quota-exceeded');
    endedSpent(result, time.waits, REPOS_RESET_MS);
    expect(await logged('/repos/octo')).toEqual([[429, 429, undefined]]);
    expect(stack.backend.seen('/repos/octo')).toHaveLength(1);
  });

  it("nginx's 429 with a quota back in 2 s is waited for, then the backend's 200", async () => {
    stack.backend.route('/search/q', [{ status: 429 }, { status: 200, body: 'results' }]);
    const sent = { method: 'GET', path: '/search/q' };
    const result = await send(sent);
    expect(ending({ request: sent, result })).toBe('200');
    expect(result.outcome.kind === 'response' && result.outcome.body).toBe('results');
    expect(result.info).toMatchObject({
      attempts: 2,
      retries: ['status'],
      outcome: 'success',
      quotaResetAt: undefined,
    });
    expect(time.waits).toEqual([2000]);
    // nginx answered the backend's 429 with its own RateLimit, then passed the backend's 200 on.
    expect(await logged('/search/q')).toEqual([
      [429, 429, undefined],
      [200, 200, undefined],
    ]);
    expect(stack.backend.seen('/search/q')).toHaveLength(2);
  });
});
