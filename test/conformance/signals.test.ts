/**
 * The signals an answer carries besides its status, through every client: an idempotency key's 409
 * and 422 (draft-ietf-httpapi-idempotency-key-header-07), a `Proxy-Status` that proves no
 * intermediary sent the request on (RFC 9209), a quota the server says is spent
 * (draft-ietf-httpapi-ratelimit-headers), and a `temporary-reduced-capacity` problem. Each against
 * the scripted `node:http` server, which answers as a proxy or an API would, headers and bodies.
 *
 * The RateLimit problem types are in the body of the answer: each client reads a failed answer's
 * `application/problem+json` body (within `discardBodyMaxBytes`) before the decision, and the
 * response the caller gets still carries all of it.
 */
import { createIdempotencyKeys } from '@jitterbug/core';
import { expect } from 'vitest';
import { drivers } from './drivers/index.ts';
import { describeRuns } from './harness.ts';

const PROBLEM = 'https://iana.org/assignments/http-problem-types#';
const problem = (type: string, title: string) => ({
  'content-type': 'application/problem+json',
  body: JSON.stringify({ type: `${PROBLEM}${type}`, title }),
});
const order = { kind: 'json', value: { sku: 'A-1', quantity: 2 } } as const;

describeRuns(drivers, (run) => {
  const { scenario, client, waits, expectFinalStatus } = run;

  scenario(
    ['http'],
    'a keyed POST answered 409 waits its Retry-After and is sent again: 200 in 2',
    async () => {
      const { server } = run;
      server.route('/orders', [
        { status: 409, headers: { 'retry-after': '1' }, body: 'a request with this key is being processed' },
        { status: 201, body: 'made' },
      ]);
      const result = await (await client()).send({
        method: 'POST',
        path: '/orders',
        headers: { 'Idempotency-Key': 'order-7', 'content-type': 'application/json' },
        body: order,
      });
      expectFinalStatus(result, 201);
      const seen = server.seen('/orders');
      expect(seen.map((r) => r.headers['idempotency-key'])).toEqual(['order-7', 'order-7']);
      for (const r of seen) expect(JSON.parse(r.body.toString())).toEqual(order.value);
      expect(waits).toEqual([1000]);
      expect(result.info).toMatchObject({ attempts: 2, retries: ['key-in-use'], outcome: 'success' });
    },
  );

  scenario(
    ['http'],
    'a POST keyed by jitterbug, answered 409 without a delay, goes again after the backoff',
    async () => {
      const { server } = run;
      server.route('/charges', [{ status: 409 }, { status: 201 }]);
      const result = await (await client({ idempotencyKey: createIdempotencyKeys() })).send({
        method: 'POST',
        path: '/charges',
        body: { kind: 'text', value: 'amount=10' },
      });
      expectFinalStatus(result, 201);
      const keys = server.seen('/charges').map((r) => r.headers['idempotency-key']);
      expect(keys).toHaveLength(2);
      expect(keys[1]).toBe(keys[0]);
      expect(result.info).toMatchObject({ attempts: 2, retries: ['key-in-use'] });
    },
  );

  scenario(
    ['http'],
    'a keyed POST answered 422 (its key used with another payload) is sent once, and says why',
    async () => {
      const { server } = run;
      server.route('/orders-reused', [{ status: 422, body: 'key reused' }, { status: 201 }]);
      const result = await (await client()).send({
        method: 'POST',
        path: '/orders-reused',
        headers: { 'Idempotency-Key': 'order-7', 'content-type': 'application/json' },
        body: order,
      });
      expectFinalStatus(result, 422);
      expect(server.seen('/orders-reused')).toHaveLength(1);
      expect(waits).toEqual([]);
      expect(result.info).toMatchObject({ attempts: 1, reason: 'key-reused', outcome: 'failure' });
    },
  );

  scenario(['http'], 'an unkeyed POST answered 409 keeps the status rules: sent once', async () => {
    const { server } = run;
    server.route('/conflict', [{ status: 409 }, { status: 201 }]);
    const result = await (await client()).send({ method: 'POST', path: '/conflict', body: order });
    expectFinalStatus(result, 409);
    expect(server.seen('/conflict')).toHaveLength(1);
    expect(result.info).toMatchObject({ attempts: 1, reason: 'status-not-retryable' });
  });

  scenario(
    ['http'],
    'a POST answered 502 whose Proxy-Status says connection_refused is sent again: 200 in 2',
    async () => {
      const { server } = run;
      server.route('/checkout', [
        {
          status: 502,
          headers: { 'proxy-status': 'edge-lb; error=connection_refused; next-hop="app:8080", cdn' },
          body: 'Bad Gateway',
        },
        { status: 200, body: 'paid' },
      ]);
      const result = await (await client({ maxAttempts: 1 })).send({
        method: 'POST',
        path: '/checkout',
        body: { kind: 'text', value: 'charge $10' },
      });
      expectFinalStatus(result, 200);
      expect(server.seen('/checkout').map((r) => r.body.toString())).toEqual(['charge $10', 'charge $10']);
      expect(result.info).toMatchObject({ attempts: 2, retries: ['not-forwarded'], outcome: 'success' });
    },
  );

  scenario(
    ['http'],
    'a POST answered 504 whose Proxy-Status says http_response_timeout (the origin had it) is sent once',
    async () => {
      const { server } = run;
      server.route('/slow-checkout', [
        { status: 504, headers: { 'proxy-status': 'edge-lb; error=http_response_timeout' } },
        { status: 200 },
      ]);
      const result = await (await client()).send({
        method: 'POST',
        path: '/slow-checkout',
        body: { kind: 'text', value: 'charge $10' },
      });
      expectFinalStatus(result, 504);
      expect(server.seen('/slow-checkout')).toHaveLength(1);
      expect(result.info).toMatchObject({ attempts: 1, reason: 'method-not-idempotent' });
    },
  );

  scenario(
    ['http'],
    'a temporary-reduced-capacity 503 with Retry-After: 1 is sent again at that time: 200 in 2',
    async () => {
      const { server } = run;
      const { body, ...headers } = problem('temporary-reduced-capacity', 'Reduced capacity');
      server.route('/reports', [
        { status: 503, headers: { ...headers, 'retry-after': '1' }, body },
        { status: 200, body: 'report' },
      ]);
      const result = await (await client()).send({ method: 'GET', path: '/reports' });
      expectFinalStatus(result, 200);
      expect(server.seen('/reports')).toHaveLength(2);
      expect(waits).toEqual([1000]);
      expect(result.info).toMatchObject({ attempts: 2, retries: ['reduced-capacity'], outcome: 'success' });
    },
  );

  scenario(
    ['http'],
    'a 429 whose problem body says quota-exceeded (its headers say nothing more) is sent once, body and all',
    async () => {
      const { server } = run;
      const { body, ...headers } = problem('quota-exceeded', 'Quota exceeded');
      server.route('/quota', [{ status: 429, headers, body }, { status: 200 }]);
      const result = await (await client()).send({ method: 'GET', path: '/quota' });
      expectFinalStatus(result, 429);
      if (result.outcome.kind === 'response') expect(result.outcome.body).toBe(body);
      expect(server.seen('/quota')).toHaveLength(1);
      expect(waits).toEqual([]);
      expect(result.info).toMatchObject({ attempts: 1, reason: 'quota-exceeded', outcome: 'failure' });
    },
  );

  scenario(
    ['http'],
    'a shouldRetry that answers later sees the problem decided, and the caller still gets the whole body',
    async () => {
      const { server } = run;
      const { body, ...headers } = problem('quota-exceeded', 'Quota exceeded');
      server.route('/quota-hooked', [{ status: 429, headers, body }, { status: 200 }]);
      const asked: (number | undefined)[] = [];
      const result = await (
        await client({
          shouldRetry: async (info) => {
            asked.push(info.status);
            return undefined;
          },
        })
      ).send({ method: 'GET', path: '/quota-hooked' });
      expectFinalStatus(result, 429);
      if (result.outcome.kind === 'response') expect(result.outcome.body).toBe(body);
      expect(asked).toEqual([429]);
      expect(server.seen('/quota-hooked')).toHaveLength(1);
      expect(result.info).toMatchObject({ attempts: 1, reason: 'quota-exceeded' });
    },
  );

  scenario(['http'], 'a 429 of problem type abnormal-usage-detected is sent once', async () => {
    const { server } = run;
    const { body, ...headers } = problem('abnormal-usage-detected', 'Abnormal usage');
    server.route('/abuse', [
      { status: 429, headers: { ...headers, 'retry-after': '1' }, body },
      { status: 200 },
    ]);
    const result = await (await client()).send({ method: 'GET', path: '/abuse' });
    expectFinalStatus(result, 429);
    expect(server.seen('/abuse')).toHaveLength(1);
    expect(result.info).toMatchObject({ attempts: 1, reason: 'abnormal-usage' });
  });

  scenario(
    ['http'],
    'a problem type is read only from application/problem+json, and only within discardBodyMaxBytes',
    async () => {
      const { server } = run;
      const { body } = problem('quota-exceeded', 'Quota exceeded');
      const long = JSON.stringify({ ...JSON.parse(body), detail: 'x'.repeat(200) });
      server.route('/plain-json', [
        { status: 429, headers: { 'content-type': 'application/json' }, body },
        { status: 200 },
      ]);
      server.route('/long-problem', [
        { status: 429, headers: { 'content-type': 'application/problem+json' }, body: long },
        { status: 200 },
      ]);
      const c = await client({ discardBodyMaxBytes: 128 });
      const plain = await c.send({ method: 'GET', path: '/plain-json' });
      expectFinalStatus(plain, 200);
      expect(plain.info).toMatchObject({ attempts: 2, retries: ['status'] });
      const longer = await c.send({ method: 'GET', path: '/long-problem' });
      expectFinalStatus(longer, 200);
      expect(longer.info).toMatchObject({ attempts: 2, retries: ['status'] });
    },
  );

  scenario(
    ['http'],
    'a 429 whose RateLimit field says the daily quota is spent for 5 hours is sent once: quota-exceeded, and when it is back',
    async () => {
      const { server } = run;
      const now = Date.UTC(2026, 11, 1, 9, 0, 0);
      const { body, ...headers } = problem('quota-exceeded', 'Quota exceeded');
      server.route('/completions', [
        {
          status: 429,
          headers: {
            ...headers,
            'ratelimit-policy': '"daily";q=1000;w=86400',
            ratelimit: '"daily";r=0;t=18000',
          },
          body,
        },
        { status: 200 },
      ]);
      const result = await (await client({ now: () => now })).send({ method: 'GET', path: '/completions' });
      expectFinalStatus(result, 429);
      expect(server.seen('/completions')).toHaveLength(1);
      expect(waits).toEqual([]);
      expect(result.info).toMatchObject({
        attempts: 1,
        reason: 'quota-exceeded',
        quotaResetAt: now + 18_000_000,
      });
    },
  );

  scenario(
    ['http'],
    'X-RateLimit-Remaining: 0 with an X-RateLimit-Reset 3 hours away (epoch seconds) is sent once',
    async () => {
      const { server } = run;
      const now = Date.UTC(2026, 11, 1, 9, 0, 0);
      const reset = now + 3 * 3_600_000;
      server.route('/repos', [
        {
          status: 429,
          headers: {
            'x-ratelimit-limit': '5000',
            'x-ratelimit-remaining': '0',
            'x-ratelimit-reset': String(reset / 1000),
          },
        },
        { status: 200 },
      ]);
      const result = await (await client({ now: () => now })).send({ method: 'GET', path: '/repos' });
      expectFinalStatus(result, 429);
      expect(server.seen('/repos')).toHaveLength(1);
      expect(result.info).toMatchObject({ attempts: 1, reason: 'quota-exceeded', quotaResetAt: reset });
    },
  );

  scenario(['http'], 'a spent quota back in 2 s is waited for, then the request goes again', async () => {
    const { server } = run;
    server.route('/search', [{ status: 429, headers: { ratelimit: '"burst";r=0;t=2' } }, { status: 200 }]);
    const result = await (await client()).send({ method: 'GET', path: '/search' });
    expectFinalStatus(result, 200);
    expect(waits).toEqual([2000]);
    expect(result.info).toMatchObject({ attempts: 2, retries: ['status'], quotaResetAt: undefined });
  });
});
