/**
 * @jitterbug/otel with `withRetry` (@jitterbug/fetch) and ky (@jitterbug/ky) over Node's global
 * fetch, inside a caller's own span, with `@opentelemetry/instrumentation-undici` also on (Node's
 * fetch publishes undici's diagnostics channels too): the caller's span gets the resend count and
 * the events, each attempt its own numbered span. The real SDK, a real server on 127.0.0.1, delays
 * made exact by an injected `random` and `sleep`.
 */
import { createHedging, createRetryPolicy, type RetryPolicyOptions } from '@jitterbug/core';
import { withRetry } from '@jitterbug/fetch';
import { kyRetry } from '@jitterbug/ky';
import type { Attributes } from '@opentelemetry/api';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import ky from 'ky';
import { Agent } from 'undici7';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ScriptedServer, startScriptedServer } from '../../../test/support/scripted-server.ts';
import { attemptSpanHook, type InstrumentRetriesOptions, instrumentRetries } from '../src/index.ts';
import { expectedMetrics } from './support/expected-metrics.ts';
import { installContextManager, removeContextManager } from './support/otel-context.ts';
import { createTelemetry, type SpanView, type Telemetry } from './support/telemetry.ts';
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

/**
 * Node's global fetch through an agent of the test's own (closed after it, so no socket outlives
 * the test); undici 7's `Agent` speaks the handler API Node's bundled undici hands over.
 */
const nodeFetch: typeof fetch = (input, init) => {
  const agent = new Agent();
  agents.push(agent);
  return fetch(input, { ...init, dispatcher: agent } as RequestInit);
};

/** Runs `call` inside a span named `checkout`, the caller's own, and ends it. */
const inCallerSpan = <T>(call: () => Promise<T>): Promise<T> =>
  telemetry.tracerProvider.getTracer('test').startActiveSpan('checkout', async (span) => {
    try {
      return await call();
    } finally {
      span.end();
    }
  });

/** The caller's span as exported. */
const callerSpan = (attributes: Attributes, events: SpanView['events'] = []): SpanView => ({
  name: 'checkout',
  parent: undefined,
  attributes,
  events,
});

const requestAttributes = (method: string) => ({
  'http.request.method': method,
  'server.address': '127.0.0.1',
  'server.port': Number(new URL(server.url).port),
});

const retryEvent = (attempt: number, delayMs: number, extra: Attributes = {}) => ({
  name: 'jitterbug.retry',
  attributes: {
    'jitterbug.attempt': attempt,
    'jitterbug.retry.reason': 'status',
    'jitterbug.retry.delay_ms': delayMs,
    'jitterbug.retry.delay_source': 'backoff',
    'http.response.status_code': 503,
    'jitterbug.retry.server_delay_unread': true,
    ...extra,
  },
});

/**
 * An attempt's span, as Node's fetch makes it: `user-agent: node`, inside the caller's span. With
 * fetch, an attempt's span has no jitterbug event: fetch reads a 503's (empty) body to its end, and
 * instrumentation-undici ends the span, before the engine gets the response and decides; the
 * caller's span has them all.
 */
const attempt = (path: string, method = 'GET') => ({ method, path, userAgent: 'node', parent: 'checkout' });

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

describe('withRetry(fetch) inside a caller span', () => {
  it('a retried GET: the caller span counts the resends and gets the retry events', async () => {
    instrument();
    server.route('/orders/1', [{ status: 503 }, { status: 503 }, { status: 200, body: 'ok' }]);
    const fetchWithRetry = withRetry(nodeFetch, { ...EXACT, budget: false });
    const status = await inCallerSpan(async () => {
      const response = await fetchWithRetry(`${server.url}/orders/1`);
      await response.arrayBuffer();
      return response.status;
    });
    expect(status).toBe(200);

    expect(telemetry.spans()).toEqual([
      callerSpan({ 'http.request.resend_count': 2 }, [retryEvent(1, 50), retryEvent(2, 100)]),
      attemptSpan(server.url, { ...attempt('/orders/1'), status: 503 }),
      attemptSpan(server.url, { ...attempt('/orders/1'), status: 503, resendCount: 1 }),
      attemptSpan(server.url, { ...attempt('/orders/1'), status: 200, resendCount: 2 }),
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

  it('a POST without an Idempotency-Key: sent once; the caller span gets the give-up, no resend count', async () => {
    instrument();
    server.route('/payments/p-1', [{ status: 503 }]);
    const fetchWithRetry = withRetry(nodeFetch, EXACT);
    const status = await inCallerSpan(async () => {
      const response = await fetchWithRetry(`${server.url}/payments/p-1`, { method: 'POST', body: '{}' });
      await response.arrayBuffer();
      return response.status;
    });
    expect(status).toBe(503);
    expect(server.seen('/payments/p-1')).toHaveLength(1);

    const giveUp = { 'jitterbug.give_up.reason': 'method-not-idempotent', 'http.response.status_code': 503 };
    const event = { name: 'jitterbug.give_up', attributes: { 'jitterbug.attempt': 1, ...giveUp } };
    expect(telemetry.spans()).toEqual([
      callerSpan({}, [event]),
      attemptSpan(server.url, { ...attempt('/payments/p-1', 'POST'), status: 503 }),
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

  it('a Retry-After longer than retryAfter.maxMs: handed over at once, with a give-up event', async () => {
    instrument();
    server.route('/slow-down', [{ status: 503, headers: { 'retry-after': '120' } }]);
    const fetchWithRetry = withRetry(nodeFetch, EXACT);
    const status = await inCallerSpan(async () => {
      const response = await fetchWithRetry(`${server.url}/slow-down`);
      await response.arrayBuffer();
      return response.status;
    });
    expect(status).toBe(503);

    const giveUp = { 'jitterbug.give_up.reason': 'retry-after-too-long', 'http.response.status_code': 503 };
    const event = {
      name: 'jitterbug.give_up',
      attributes: { 'jitterbug.attempt': 1, ...giveUp, 'jitterbug.give_up.refused_delay_ms': 120_000 },
    };
    expect(telemetry.spans()).toEqual([
      callerSpan({}, [event]),
      attemptSpan(server.url, { ...attempt('/slow-down'), status: 503 }),
    ]);
    expect(await telemetry.metrics()).toEqual(
      expectedMetrics({
        request: requestAttributes('GET'),
        outcome: 'failure',
        attempts: 1,
        waitMs: 0,
        giveUps: [[giveUp, 1]],
      }),
    );
  });

  it('a budget used up: one retry, then a give-up; the gauge reads the shared budget', async () => {
    const policy = createRetryPolicy({ ...EXACT, maxAttempts: 5, budget: { ratio: 0, burst: 1 } });
    instrument({ budgets: { payments: policy } });
    server.route('/down/1', [{ status: 503 }]);
    const fetchWithRetry = withRetry(nodeFetch, policy);
    const status = await inCallerSpan(async () => {
      const response = await fetchWithRetry(`${server.url}/down/1`);
      await response.arrayBuffer();
      return response.status;
    });
    expect(status).toBe(503);

    const retry = retryEvent(1, 50, { 'jitterbug.budget.tokens': 0 });
    const giveUp = { 'jitterbug.give_up.reason': 'budget-exhausted', 'http.response.status_code': 503 };
    const giveUpEvent = { name: 'jitterbug.give_up', attributes: { 'jitterbug.attempt': 2, ...giveUp } };
    expect(telemetry.spans()).toEqual([
      callerSpan({ 'http.request.resend_count': 1 }, [retry, giveUpEvent]),
      attemptSpan(server.url, { ...attempt('/down/1'), status: 503 }),
      attemptSpan(server.url, { ...attempt('/down/1'), status: 503, resendCount: 1 }),
    ]);
    expect(await telemetry.metrics()).toEqual(
      expectedMetrics({
        request: requestAttributes('GET'),
        outcome: 'failure',
        attempts: 2,
        waitMs: 50,
        retries: [[{ 'jitterbug.retry.reason': 'status', 'http.response.status_code': 503 }, 1]],
        giveUps: [[giveUp, 1]],
        budgets: [[{ 'jitterbug.budget.name': 'payments' }, 0]],
      }),
    );
  });

  it('a hedged copy is a resend: numbered, and marked with its copy number', async () => {
    instrument();
    // The first copy is answered only after 3 s: the copy sent after 20 ms answers first, and wins.
    server.route('/tail', [
      { status: 200, body: 'slow', delayMs: 3_000 },
      { status: 200, body: 'fast' },
    ]);
    const fetchWithRetry = withRetry(nodeFetch, { ...EXACT, hedge: createHedging({ delayMs: 20 }) });
    const body = await inCallerSpan(async () => (await fetchWithRetry(`${server.url}/tail`)).text());
    expect(body).toBe('fast');

    expect(telemetry.spans()).toEqual([
      callerSpan({ 'http.request.resend_count': 1 }),
      // The first copy, cancelled with jitterbug's plain Error, which instrumentation-undici records.
      attemptSpan(server.url, { ...attempt('/tail'), error: 'Error' }),
      attemptSpan(server.url, { ...attempt('/tail'), status: 200, resendCount: 1, hedgeCopy: 2 }),
    ]);
  });
});

describe('activeSpan: false', () => {
  it('leaves the caller span alone; the attempts are still numbered, the metrics recorded', async () => {
    instrument({ activeSpan: false });
    server.route('/orders/4', [{ status: 503 }, { status: 200 }]);
    const fetchWithRetry = withRetry(nodeFetch, { ...EXACT, budget: false });
    const status = await inCallerSpan(async () => {
      const response = await fetchWithRetry(`${server.url}/orders/4`);
      await response.arrayBuffer();
      return response.status;
    });
    expect(status).toBe(200);

    expect(telemetry.spans()).toEqual([
      callerSpan({}),
      attemptSpan(server.url, { ...attempt('/orders/4'), status: 503 }),
      attemptSpan(server.url, { ...attempt('/orders/4'), status: 200, resendCount: 1 }),
    ]);
    expect(await telemetry.metrics()).toEqual(
      expectedMetrics({
        request: requestAttributes('GET'),
        outcome: 'success',
        attempts: 2,
        waitMs: 50,
        retries: [[{ 'jitterbug.retry.reason': 'status', 'http.response.status_code': 503 }, 1]],
      }),
    );
  });
});

describe('ky inside a caller span', () => {
  it('a retried GET: the caller span counts the resends and gets the retry events', async () => {
    instrument();
    server.route('/orders/2', [{ status: 503 }, { status: 200, body: '{"id":2}' }]);
    const api = ky.create({ ...kyRetry({ ...EXACT, budget: false }, { fetch: nodeFetch }) });
    const order = await inCallerSpan(() => api.get(`${server.url}/orders/2`).json());
    expect(order).toEqual({ id: 2 });

    expect(telemetry.spans()).toEqual([
      callerSpan({ 'http.request.resend_count': 1 }, [retryEvent(1, 50)]),
      attemptSpan(server.url, { ...attempt('/orders/2'), status: 503 }),
      attemptSpan(server.url, { ...attempt('/orders/2'), status: 200, resendCount: 1 }),
    ]);
    expect(await telemetry.metrics()).toEqual(
      expectedMetrics({
        request: requestAttributes('GET'),
        outcome: 'success',
        attempts: 2,
        waitMs: 50,
        retries: [[{ 'jitterbug.retry.reason': 'status', 'http.response.status_code': 503 }, 1]],
      }),
    );
  });
});
