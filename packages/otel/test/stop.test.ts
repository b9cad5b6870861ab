/**
 * What `instrumentRetries` leaves behind when stopped (nothing: no subscription, no span touched,
 * no metric point), and what it sees of a request already in flight when it starts.
 */
import { channel } from 'node:diagnostics_channel';
import { createRetryPolicy, type RetryPolicyOptions, type RetryPolicyOrOptions } from '@jitterbug/core';
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
    expect(before).toEqual(
      expectedMetrics({
        request: requestAttributes(),
        outcome: 'success',
        attempts: 2,
        waitMs: 50,
        retries: [[{ 'jitterbug.retry.reason': 'status', 'http.response.status_code': 503 }, 1]],
      }),
    );
    stop();
    const spansBefore = telemetry.spans().length;
    expect(await getInCallerSpan('/orders/2')).toBe(200);

    expect(telemetry.spans().slice(spansBefore)).toEqual(plainSpans('/orders/2'));
    expect(await telemetry.metrics()).toEqual(before);
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
    expect(await telemetry.metrics()).toEqual(
      expectedMetrics({
        request: requestAttributes(),
        outcome: 'success',
        attempts: 2,
        waitMs: 50,
        retries: [[{ 'jitterbug.retry.reason': 'status', 'http.response.status_code': 503 }, 1]],
      }),
    );
  });
});
