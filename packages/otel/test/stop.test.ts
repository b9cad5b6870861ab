/**
 * What `instrumentRetries` leaves behind when stopped (nothing: no subscription, no span touched,
 * no metric point), what it sees of a request already in flight when it starts, and what a second
 * call while one runs does (it shares it: each retry is counted once).
 */
import { channel } from 'node:diagnostics_channel';
import {
  createRetryBudget,
  createRetryPolicy,
  type RetryPolicyOptions,
  type RetryPolicyOrOptions,
} from '@jitterbug/core';
import { CHANNELS } from '@jitterbug/core/diagnostics';
import { retryInterceptor } from '@jitterbug/undici';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { Agent, request } from 'undici';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ScriptedServer, startScriptedServer } from '../../../test/support/scripted-server.ts';
import { attemptSpanHook, instrumentRetries } from '../src/index.ts';
import { expectedMetrics } from './support/expected-metrics.ts';
import { installContextManager, removeContextManager } from './support/otel-context.ts';
import { createTelemetry, type Telemetry } from './support/telemetry.ts';
import { attemptSpan } from './support/undici-spans.ts';

let server: ScriptedServer;
let telemetry: Telemetry;
let undiciInstrumentation: UndiciInstrumentation;
const stops: (() => void)[] = [];
const agents: Agent[] = [];

const EXACT: RetryPolicyOptions = { random: () => 0.5, sleep: () => Promise.resolve(), budget: false };

const dispatcher = (optionsOrPolicy: RetryPolicyOrOptions = EXACT) => {
  const agent = new Agent();
  agents.push(agent);
  return agent.compose(retryInterceptor(optionsOrPolicy));
};

/** A GET inside the caller's span `checkout`; resolves with the status. */
const getInCallerSpan = (path: string, optionsOrPolicy?: RetryPolicyOrOptions): Promise<number> =>
  telemetry.tracerProvider.getTracer('test').startActiveSpan('checkout', async (span) => {
    try {
      const { statusCode, body } = await request(server.url + path, {
        dispatcher: dispatcher(optionsOrPolicy),
      });
      await body.dump();
      return statusCode;
    } finally {
      span.end();
    }
  });

const requestAttributes = () => ({
  'http.request.method': 'GET',
  'server.address': '127.0.0.1',
  'server.port': Number(new URL(server.url).port),
});

/** The metrics of one GET answered 503, then 200 after one retry. */
const retriedOnce = () =>
  expectedMetrics({
    request: requestAttributes(),
    outcome: 'success',
    attempts: 2,
    waitMs: 50,
    retries: [[{ 'jitterbug.retry.reason': 'status', 'http.response.status_code': 503 }, 1]],
  });

/** The spans of a GET answered 503 then 200 in the caller's span, without anything from jitterbug. */
const plainSpans = (path: string) => [
  { name: 'checkout', parent: undefined, attributes: {}, events: [] },
  attemptSpan(server.url, { method: 'GET', path, status: 503, parent: 'checkout' }),
  attemptSpan(server.url, { method: 'GET', path, status: 200, parent: 'checkout' }),
];

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

describe('stopping', () => {
  it('unsubscribes from every channel; stopping twice does nothing more', () => {
    const stop = instrumentRetries({ meterProvider: telemetry.meterProvider });
    expect(Object.values(CHANNELS).filter((name) => channel(name).hasSubscribers)).toEqual(
      Object.values(CHANNELS),
    );
    stop();
    stop();
    expect(Object.values(CHANNELS).filter((name) => channel(name).hasSubscribers)).toEqual([]);
  });

  it('once stopped: no span is changed and no metric is recorded, the budget gauge included', async () => {
    const policy = createRetryPolicy(EXACT);
    const stop = instrumentRetries({ meterProvider: telemetry.meterProvider, budgets: { api: policy } });
    stop();
    server.route('/orders/1', [{ status: 503 }, { status: 200 }]);
    expect(await getInCallerSpan('/orders/1', policy)).toBe(200);

    expect(telemetry.spans()).toEqual(plainSpans('/orders/1'));
    expect(await telemetry.metrics()).toEqual([]);
  });

  it('stopped after a request: the next one changes neither its spans nor the metrics', async () => {
    const stop = instrumentRetries({ meterProvider: telemetry.meterProvider });
    server.route('/orders/1', [{ status: 503 }, { status: 200 }]);
    server.route('/orders/2', [{ status: 503 }, { status: 200 }]);
    expect(await getInCallerSpan('/orders/1')).toBe(200);
    const before = await telemetry.metrics();
    expect(before).toEqual(retriedOnce());
    stop();
    const spansBefore = telemetry.spans().length;
    expect(await getInCallerSpan('/orders/2')).toBe(200);

    expect(telemetry.spans().slice(spansBefore)).toEqual(plainSpans('/orders/2'));
    expect(await telemetry.metrics()).toEqual(before);
  });
});

describe('called twice (a library and the program, two modules)', () => {
  const subscribed = () => Object.values(CHANNELS).filter((name) => channel(name).hasSubscribers);

  it('counts each retry once, and gives the caller’s span one event per retry', async () => {
    stops.push(instrumentRetries({ meterProvider: telemetry.meterProvider }));
    stops.push(instrumentRetries({ meterProvider: telemetry.meterProvider }));
    server.route('/orders/1', [{ status: 503 }, { status: 200 }]);
    expect(await getInCallerSpan('/orders/1')).toBe(200);

    expect(await telemetry.metrics()).toEqual(retriedOnce());
    const checkout = telemetry.spans().find((span) => span.name === 'checkout');
    expect(checkout?.events.map((event) => event.name)).toEqual(['jitterbug.retry']);
  });

  it('runs until every call’s function is called, each once', () => {
    const first = instrumentRetries({ meterProvider: telemetry.meterProvider });
    const second = instrumentRetries({ meterProvider: telemetry.meterProvider });
    first();
    first();
    expect(subscribed()).toEqual(Object.values(CHANNELS));
    second();
    expect(subscribed()).toEqual([]);
  });

  it('reports the budgets each call names, each once', async () => {
    const search = createRetryBudget({ burst: 4 });
    const checkout = createRetryBudget({ burst: 6 });
    stops.push(instrumentRetries({ meterProvider: telemetry.meterProvider, budgets: { search } }));
    stops.push(instrumentRetries({ meterProvider: telemetry.meterProvider, budgets: { search, checkout } }));
    const [gauge] = await telemetry.metrics();
    expect(gauge).toMatchObject({
      name: 'jitterbug.budget.tokens',
      points: [
        { attributes: { 'jitterbug.budget.name': 'search' }, value: 4 },
        { attributes: { 'jitterbug.budget.name': 'checkout' }, value: 6 },
      ],
    });
  });

  it('with another meterProvider or activeSpan, throws a TypeError naming it, and the first runs on', async () => {
    stops.push(instrumentRetries({ meterProvider: telemetry.meterProvider }));
    const other = createTelemetry();
    expect(() => instrumentRetries({ meterProvider: other.meterProvider })).toThrow(
      /^jitterbug: option "meterProvider" must be the one of the instrumentRetries already running .*: instrumentRetries is already running .* count each retry twice: call it once/,
    );
    expect(() => instrumentRetries({ meterProvider: telemetry.meterProvider, activeSpan: false })).toThrow(
      /^jitterbug: option "activeSpan" must be the one of the instrumentRetries already running/,
    );
    await other.shutdown();
    server.route('/orders/2', [{ status: 503 }, { status: 200 }]);
    expect(await getInCallerSpan('/orders/2')).toBe(200);
    expect(await telemetry.metrics()).toEqual(retriedOnce());
  });
});

describe('a request in flight when the instrumentation starts', () => {
  it('is measured from the next event on: its resend is numbered, its end recorded', async () => {
    // The first attempt is held at the server until the instrumentation has started.
    let arrived!: () => void;
    const firstArrived = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    server.route('/late', async ({ nth }) => {
      if (nth > 0) return { status: 200 };
      arrived();
      await released;
      return { status: 503 };
    });
    const pending = request(`${server.url}/late`, { dispatcher: dispatcher() });
    await firstArrived;
    stops.push(instrumentRetries({ meterProvider: telemetry.meterProvider }));
    release();
    const { statusCode, body } = await pending;
    await body.dump();
    expect(statusCode).toBe(200);

    // The first attempt's span was made before the instrumentation started, so no window was open
    // for it: it stays unmarked and gets no event (nor is there a caller's span to get one).
    expect(telemetry.spans()).toEqual([
      attemptSpan(server.url, { method: 'GET', path: '/late', status: 503 }),
      attemptSpan(server.url, { method: 'GET', path: '/late', status: 200, resendCount: 1 }),
    ]);
    expect(await telemetry.metrics()).toEqual(retriedOnce());
  });
});
