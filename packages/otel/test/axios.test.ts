/**
 * @jitterbug/otel with axios (@jitterbug/axios, axios' own http adapter) inside a caller's span:
 * no HTTP client instrumentation makes attempt spans here, so everything jitterbug reports is on the
 * caller's span and in the metrics. The real SDK, a real server on 127.0.0.1, exact delays.
 */
import { Agent } from 'node:http';
import { attachRetry } from '@jitterbug/axios';
import axios from 'axios';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ScriptedServer, startScriptedServer } from '../../../test/support/scripted-server.ts';
import { instrumentRetries } from '../src/index.ts';
import { expectedMetrics } from './support/expected-metrics.ts';
import { installContextManager, removeContextManager } from './support/otel-context.ts';
import { createTelemetry, type Telemetry } from './support/telemetry.ts';

let server: ScriptedServer;
let telemetry: Telemetry;
let stop: () => void;
const agent = new Agent({ keepAlive: false });

beforeAll(async () => {
  server = await startScriptedServer();
  installContextManager();
});
beforeEach(() => {
  telemetry = createTelemetry();
  stop = instrumentRetries({ meterProvider: telemetry.meterProvider });
});
afterEach(async () => {
  stop();
  expect(await server.waitForIdle(3_000)).toBe(0);
  server.reset();
  await telemetry.shutdown();
});
afterAll(async () => {
  agent.destroy();
  removeContextManager();
  await server.close();
});

describe('axios inside a caller span', () => {
  it('a retried GET: the caller span counts the resends and gets the retry events', async () => {
    server.route('/orders/3', [{ status: 503 }, { status: 502 }, { status: 200, body: 'ok' }]);
    const api = axios.create({ baseURL: server.url, httpAgent: agent });
    attachRetry(api, { random: () => 0.5, sleep: () => Promise.resolve(), budget: false });
    const status = await telemetry.tracerProvider
      .getTracer('test')
      .startActiveSpan('checkout', async (span) => {
        try {
          return (await api.get('/orders/3')).status;
        } finally {
          span.end();
        }
      });
    expect(status).toBe(200);

    const retry = (attempt: number, delayMs: number, status: number) => ({
      name: 'jitterbug.retry',
      attributes: {
        'jitterbug.attempt': attempt,
        'jitterbug.retry.reason': 'status',
        'jitterbug.retry.delay_ms': delayMs,
        'jitterbug.retry.delay_source': 'backoff',
        'http.response.status_code': status,
        ...(status === 429 || status === 503 ? { 'jitterbug.retry.server_delay_unread': true } : {}),
      },
    });
    expect(telemetry.spans()).toEqual([
      {
        name: 'checkout',
        parent: undefined,
        attributes: { 'http.request.resend_count': 2 },
        events: [retry(1, 50, 503), retry(2, 100, 502)],
      },
    ]);
    const request = {
      'http.request.method': 'GET',
      'server.address': '127.0.0.1',
      'server.port': Number(new URL(server.url).port),
    };
    expect(await telemetry.metrics()).toEqual(
      expectedMetrics({
        request,
        outcome: 'success',
        attempts: 3,
        waitMs: 150,
        retries: [
          [{ 'jitterbug.retry.reason': 'status', 'http.response.status_code': 503 }, 1],
          [{ 'jitterbug.retry.reason': 'status', 'http.response.status_code': 502 }, 1],
        ],
      }),
    );
  });
});
