/**
 * @jitterbug/otel with undici 8 (`request()` and `fetch` through `retryInterceptor`) and
 * `@opentelemetry/instrumentation-undici`, whose `requestHook` is `attemptSpanHook`: the real SDK,
 * a real server on 127.0.0.1, delays made exact by an injected `random` and `sleep`.
 */
import { createRetryPolicy, type RetryPolicyOptions } from '@jitterbug/core';
import { retryInterceptor } from '@jitterbug/undici';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { Agent, fetch, request } from 'undici';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ScriptedServer, startScriptedServer } from '../../../test/support/scripted-server.ts';
import { attemptSpanHook, type InstrumentRetriesOptions, instrumentRetries } from '../src/index.ts';
import { expectedMetrics } from './support/expected-metrics.ts';
import { installContextManager, removeContextManager } from './support/otel-context.ts';
import { createTelemetry, type Telemetry } from './support/telemetry.ts';
import { attemptSpan } from './support/undici-spans.ts';

let server: ScriptedServer;
let telemetry: Telemetry;
let undiciInstrumentation: UndiciInstrumentation;
const stops: (() => void)[] = [];
const agents: Agent[] = [];

/** Exact delays: full jitter with random 0.5 waits 50 ms, then 100 ms; the sleep returns at once. */
const EXACT: RetryPolicyOptions = { random: () => 0.5, sleep: () => Promise.resolve() };

const instrument = (options: InstrumentRetriesOptions = {}): void => {
  stops.push(instrumentRetries({ meterProvider: telemetry.meterProvider, ...options }));
};

const dispatcher = (options: RetryPolicyOptions = {}) => {
  const agent = new Agent();
  agents.push(agent);
  return agent.compose(retryInterceptor(createRetryPolicy({ ...EXACT, ...options })));
};

const get = async (path: string, options?: RetryPolicyOptions): Promise<number> => {
  const { statusCode, body } = await request(server.url + path, { dispatcher: dispatcher(options) });
  await body.dump();
  return statusCode;
};

/** The attributes every metric point of a request to the server has. */
const requestAttributes = (method: string) => ({
  'http.request.method': method,
  'server.address': '127.0.0.1',
  'server.port': Number(new URL(server.url).port),
});

beforeAll(async () => {
  server = await startScriptedServer();
  installContextManager();
});
beforeEach(() => {
  telemetry = createTelemetry();
  undiciInstrumentation = new UndiciInstrumentation({ requestHook: attemptSpanHook });
  undiciInstrumentation.setTracerProvider(telemetry.tracerProvider);
});
afterEach(async () => {
  for (const stop of stops.splice(0)) stop();
  undiciInstrumentation.disable();
  for (const agent of agents.splice(0)) await agent.close();
  expect(await server.waitForIdle(3_000)).toBe(0);
  server.reset();
  await telemetry.shutdown();
});
afterAll(async () => {
  removeContextManager();
  await server.close();
});

describe('undici request() and fetch with instrumentation-undici', () => {
  it('a retried GET: one span per attempt, each resend numbered, a retry event on each 503', async () => {
    instrument();
    server.route('/orders/1', [{ status: 503 }, { status: 503 }, { status: 200, body: 'ok' }]);
    expect(await get('/orders/1')).toBe(200);

    const retry = (attempt: number, delayMs: number, budgetTokens: number) => ({
      name: 'jitterbug.retry',
      attributes: {
        'jitterbug.attempt': attempt,
        'jitterbug.retry.reason': 'status',
        'jitterbug.retry.delay_ms': delayMs,
        'jitterbug.retry.delay_source': 'backoff',
        'http.response.status_code': 503,
        'jitterbug.retry.server_delay_unread': true,
        'jitterbug.budget.tokens': budgetTokens,
      },
    });
    expect(telemetry.spans()).toEqual([
      attemptSpan(server.url, { method: 'GET', path: '/orders/1', status: 503, events: [retry(1, 50, 9)] }),
      attemptSpan(server.url, {
        method: 'GET',
        path: '/orders/1',
        status: 503,
        resendCount: 1,
        events: [retry(2, 100, 8)],
      }),
      attemptSpan(server.url, { method: 'GET', path: '/orders/1', status: 200, resendCount: 2 }),
    ]);
    expect(await telemetry.metrics()).toEqual([
      {
        name: 'jitterbug.request.attempts',
        unit: '{attempt}',
        kind: 'histogram',
        points: [
          {
            attributes: { ...requestAttributes('GET'), 'jitterbug.outcome': 'success' },
            value: { count: 1, sum: 3, buckets: [[3, 1]] },
          },
        ],
      },
      {
        name: 'jitterbug.request.wait_time',
        unit: 's',
        kind: 'histogram',
        points: [
          {
            attributes: { ...requestAttributes('GET'), 'jitterbug.outcome': 'success' },
            value: { count: 1, sum: 0.15, buckets: [[0.25, 1]] },
          },
        ],
      },
      {
        name: 'jitterbug.retries',
        unit: '{retry}',
        kind: 'sum',
        points: [
          {
            attributes: {
              ...requestAttributes('GET'),
              'jitterbug.retry.reason': 'status',
              'http.response.status_code': 503,
            },
            value: 2,
          },
        ],
      },
    ]);
  });

  it('a POST without an Idempotency-Key (fetch): sent once, its give-up says why, no resend count', async () => {
    instrument();
    server.route('/payments/p-1', [{ status: 503 }]);
    const response = await fetch(`${server.url}/payments/p-1`, {
      method: 'POST',
      body: '{"amount":10}',
      dispatcher: dispatcher(),
    });
    await response.arrayBuffer();
    expect(response.status).toBe(503);
    expect(server.seen('/payments/p-1')).toHaveLength(1);

    // A 503 is retried, but not for a POST without a key: the core reports that as a give-up.
    const giveUp = {
      'jitterbug.give_up.reason': 'method-not-idempotent',
      'http.response.status_code': 503,
    };
    expect(telemetry.spans()).toEqual([
      attemptSpan(server.url, {
        method: 'POST',
        path: '/payments/p-1',
        status: 503,
        userAgent: 'undici',
        events: [{ name: 'jitterbug.give_up', attributes: { 'jitterbug.attempt': 1, ...giveUp } }],
      }),
    ]);
    expect(await telemetry.metrics()).toEqual(
      expectedMetrics({
        request: requestAttributes('POST'),
        outcome: 'failure',
        attempts: 1,
        waitMs: 0,
        giveUps: [[giveUp, 1]],
      }),
    );
  });

  it("a Retry-After longer than retryAfter.maxMs: a give-up event on the 503's span, the give-up counted", async () => {
    instrument();
    server.route('/slow-down', [{ status: 503, headers: { 'retry-after': '120' } }]);
    expect(await get('/slow-down')).toBe(503);

    expect(telemetry.spans()).toEqual([
      attemptSpan(server.url, {
        method: 'GET',
        path: '/slow-down',
        status: 503,
        events: [
          {
            name: 'jitterbug.give_up',
            attributes: {
              'jitterbug.attempt': 1,
              'jitterbug.give_up.reason': 'retry-after-too-long',
              'jitterbug.give_up.refused_delay_ms': 120_000,
              'http.response.status_code': 503,
            },
          },
        ],
      }),
    ]);
    expect(await telemetry.metrics()).toEqual(
      expectedMetrics({
        request: requestAttributes('GET'),
        outcome: 'failure',
        attempts: 1,
        waitMs: 0,
        giveUps: [
          [{ 'jitterbug.give_up.reason': 'retry-after-too-long', 'http.response.status_code': 503 }, 1],
        ],
      }),
    );
  });

  it("a budget used up: one retry, then a give-up; the gauge reads the empty budget and a route's own", async () => {
    const policy = createRetryPolicy({
      ...EXACT,
      maxAttempts: 5,
      budget: { ratio: 0, burst: 1 },
      routes: [{ match: '/reports/*', name: 'reports', budget: { ratio: 0, burst: 5 } }],
    });
    instrument({ budgets: { api: policy } });
    server.route('/down/1', [{ status: 503 }]);
    const agent = new Agent();
    agents.push(agent);
    const { statusCode, body } = await request(`${server.url}/down/1`, {
      dispatcher: agent.compose(retryInterceptor(policy)),
    });
    await body.dump();
    expect(statusCode).toBe(503);

    expect(telemetry.spans()).toEqual([
      attemptSpan(server.url, {
        method: 'GET',
        path: '/down/1',
        status: 503,
        events: [
          {
            name: 'jitterbug.retry',
            attributes: {
              'jitterbug.attempt': 1,
              'jitterbug.retry.reason': 'status',
              'jitterbug.retry.delay_ms': 50,
              'jitterbug.retry.delay_source': 'backoff',
              'http.response.status_code': 503,
              'jitterbug.retry.server_delay_unread': true,
              'jitterbug.budget.tokens': 0,
            },
          },
        ],
      }),
      attemptSpan(server.url, {
        method: 'GET',
        path: '/down/1',
        status: 503,
        resendCount: 1,
        events: [
          {
            name: 'jitterbug.give_up',
            attributes: {
              'jitterbug.attempt': 2,
              'jitterbug.give_up.reason': 'budget-exhausted',
              'http.response.status_code': 503,
            },
          },
        ],
      }),
    ]);
    expect(await telemetry.metrics()).toEqual(
      expectedMetrics({
        request: requestAttributes('GET'),
        outcome: 'failure',
        attempts: 2,
        waitMs: 50,
        retries: [[{ 'jitterbug.retry.reason': 'status', 'http.response.status_code': 503 }, 1]],
        giveUps: [[{ 'jitterbug.give_up.reason': 'budget-exhausted', 'http.response.status_code': 503 }, 1]],
        budgets: [
          [{ 'jitterbug.budget.name': 'api' }, 0],
          [{ 'jitterbug.budget.name': 'api', 'jitterbug.route': 'reports' }, 5],
        ],
      }),
    );
  });

  it('a connection reset: its span ends with the error before the decision (no event); the resend is numbered', async () => {
    instrument();
    server.route('/flaky', [{ destroy: 'before-headers' }, { status: 200 }]);
    expect(await get('/flaky', { budget: false })).toBe(200);

    expect(telemetry.spans()).toEqual([
      attemptSpan(server.url, { method: 'GET', path: '/flaky', error: 'UND_ERR_SOCKET' }),
      attemptSpan(server.url, { method: 'GET', path: '/flaky', status: 200, resendCount: 1 }),
    ]);
    expect(await telemetry.metrics()).toEqual(
      expectedMetrics({
        request: requestAttributes('GET'),
        outcome: 'success',
        attempts: 2,
        waitMs: 50,
        retries: [[{ 'jitterbug.retry.reason': 'error', 'error.type': 'UND_ERR_SOCKET' }, 1]],
      }),
    );
  });

  it("inside a caller's span (fetch): attempts are its children; it gets the resend count and the events", async () => {
    instrument();
    server.route('/orders/2', [{ status: 503 }, { status: 503 }, { status: 200, body: 'ok' }]);
    const tracer = telemetry.tracerProvider.getTracer('test');
    const status = await tracer.startActiveSpan('checkout', async (span) => {
      try {
        const response = await fetch(`${server.url}/orders/2`, { dispatcher: dispatcher({ budget: false }) });
        await response.arrayBuffer();
        return response.status;
      } finally {
        span.end();
      }
    });
    expect(status).toBe(200);

    const retry = (attempt: number, delayMs: number) => ({
      name: 'jitterbug.retry',
      attributes: {
        'jitterbug.attempt': attempt,
        'jitterbug.retry.reason': 'status',
        'jitterbug.retry.delay_ms': delayMs,
        'jitterbug.retry.delay_source': 'backoff',
        'http.response.status_code': 503,
        'jitterbug.retry.server_delay_unread': true,
      },
    });
    const attempt = { method: 'GET', path: '/orders/2', userAgent: 'undici', parent: 'checkout' };
    expect(telemetry.spans()).toEqual([
      {
        name: 'checkout',
        parent: undefined,
        attributes: { 'http.request.resend_count': 2 },
        events: [retry(1, 50), retry(2, 100)],
      },
      attemptSpan(server.url, { ...attempt, status: 503, events: [retry(1, 50)] }),
      attemptSpan(server.url, { ...attempt, status: 503, resendCount: 1, events: [retry(2, 100)] }),
      attemptSpan(server.url, { ...attempt, status: 200, resendCount: 2 }),
    ]);
    expect(await telemetry.metrics()).toEqual(
      expectedMetrics({
        request: requestAttributes('GET'),
        outcome: 'success',
        attempts: 3,
        waitMs: 150,
        retries: [[{ 'jitterbug.retry.reason': 'status', 'http.response.status_code': 503 }, 2]],
      }),
    );
  });

  it('a route rule: its name on the events and on every metric point', async () => {
    const policy = createRetryPolicy({
      ...EXACT,
      budget: false,
      routes: [{ match: 'GET /reports/*', name: 'reports', maxAttempts: 2 }],
    });
    instrument();
    server.route('/reports/7', [{ status: 503 }, { status: 504 }]);
    const agent = new Agent();
    agents.push(agent);
    const { statusCode, body } = await request(`${server.url}/reports/7`, {
      dispatcher: agent.compose(retryInterceptor(policy)),
    });
    await body.dump();
    expect(statusCode).toBe(504);

    const route = { 'jitterbug.route': 'reports' };
    expect(telemetry.spans()).toEqual([
      attemptSpan(server.url, {
        method: 'GET',
        path: '/reports/7',
        status: 503,
        events: [
          {
            name: 'jitterbug.retry',
            attributes: {
              'jitterbug.attempt': 1,
              'jitterbug.retry.reason': 'status',
              'jitterbug.retry.delay_ms': 50,
              'jitterbug.retry.delay_source': 'backoff',
              'http.response.status_code': 503,
              'jitterbug.retry.server_delay_unread': true,
              ...route,
            },
          },
        ],
      }),
      attemptSpan(server.url, {
        method: 'GET',
        path: '/reports/7',
        status: 504,
        resendCount: 1,
        events: [
          {
            name: 'jitterbug.give_up',
            attributes: {
              'jitterbug.attempt': 2,
              'jitterbug.give_up.reason': 'max-attempts',
              'http.response.status_code': 504,
              ...route,
            },
          },
        ],
      }),
    ]);
    expect(await telemetry.metrics()).toEqual(
      expectedMetrics({
        request: { ...requestAttributes('GET'), ...route },
        outcome: 'failure',
        attempts: 2,
        waitMs: 50,
        retries: [[{ 'jitterbug.retry.reason': 'status', 'http.response.status_code': 503 }, 1]],
        giveUps: [[{ 'jitterbug.give_up.reason': 'max-attempts', 'http.response.status_code': 504 }, 1]],
      }),
    );
  });
});
