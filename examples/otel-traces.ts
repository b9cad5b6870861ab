/**
 * OpenTelemetry for retries: `instrumentRetries()` from `@jitterbug/otel` turns jitterbug's events
 * into span attributes, span events and metrics; `attemptSpanHook` as instrumentation-undici's
 * `requestHook` numbers every resend's span (`http.request.resend_count`). Prints the traces and the
 * metrics the requests below leave, read from the SDK in memory.
 *
 * Run: node --conditions=@jitterbug/source examples/otel-traces.ts
 */
import { createRetryPolicy } from '@jitterbug/core';
import { withRetry } from '@jitterbug/fetch';
import { attemptSpanHook, instrumentRetries } from '@jitterbug/otel';
import { retryInterceptor } from '@jitterbug/undici';
import { type Attributes, context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { DataPointType, MeterProvider, type MetricData, MetricReader } from '@opentelemetry/sdk-metrics';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { Agent, request } from 'undici';
import type { FlakyServer } from './flaky-server.ts';
import { runStandalone } from './standalone.ts';

/** Reads the metrics when asked (a real program exports them periodically instead). */
class OnDemandReader extends MetricReader {
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

const show = (value: unknown): string =>
  typeof value === 'number' && !Number.isInteger(value) ? value.toFixed(2) : String(value);

const attributeList = (attributes: Attributes, keys: (key: string) => boolean): string =>
  Object.entries(attributes)
    .filter(([key]) => keys(key))
    .map(([key, value]) => `${key}=${show(value)}`)
    .join(' ');

/** What jitterbug adds, and what says how an attempt ended. */
const WORTH_SHOWING = new Set(['http.request.resend_count', 'jitterbug.hedge.copy', 'error.type']);

/** Each trace as a tree: span, what jitterbug set on it, its events. */
const printTraces = (spans: readonly ReadableSpan[], log: (line: string) => void): void => {
  const start = (s: ReadableSpan) => s.startTime[0] * 1e9 + s.startTime[1];
  const sorted = [...spans].sort((a, b) => start(a) - start(b));
  const children = (parentId: string | undefined) =>
    sorted.filter((s) => s.parentSpanContext?.spanId === parentId);
  const print = (span: ReadableSpan, depth: number): void => {
    const pad = '  '.repeat(depth + 2);
    const path = span.attributes['url.path'];
    const status = span.attributes['http.response.status_code'];
    const what = path === undefined ? span.name : `${span.name} ${path}${status ? ` -> ${status}` : ''}`;
    log(`${pad}${what}  ${attributeList(span.attributes, (key) => WORTH_SHOWING.has(key))}`.trimEnd());
    for (const event of span.events) {
      if (event.name === 'exception') continue;
      log(`${pad}  · ${event.name}  ${attributeList(event.attributes ?? {}, () => true)}`);
    }
    for (const child of children(span.spanContext().spanId)) print(child, depth + 1);
  };
  for (const root of children(undefined)) {
    log(`    trace ${root.spanContext().traceId.slice(0, 8)}…`);
    print(root, 0);
  }
};

const pointValue = (metric: MetricData, value: unknown): string => {
  if (metric.dataPointType !== DataPointType.HISTOGRAM) return show(value);
  const { count, sum = 0 } = value as { count: number; sum?: number };
  return `count ${count}, sum ${show(sum)}`;
};

const printMetrics = (metrics: readonly MetricData[], log: (line: string) => void): void => {
  for (const metric of metrics) {
    log(`    ${metric.descriptor.name} (${metric.descriptor.unit})`);
    for (const point of metric.dataPoints) {
      const attributes = attributeList(
        point.attributes,
        (key) => key !== 'server.address' && key !== 'server.port',
      );
      log(`      {${attributes}} ${pointValue(metric, point.value)}`);
    }
  }
};

export const main = async (server: FlakyServer, log: (line: string) => void): Promise<void> => {
  // The SDK, as a program sets it up once (here in memory, to print what it got).
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const spans = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({
    spanProcessors: [new SimpleSpanProcessor({ exporter: spans })],
  });
  const reader = new OnDemandReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const undiciInstrumentation = new UndiciInstrumentation({ requestHook: attemptSpanHook });
  undiciInstrumentation.setTracerProvider(tracerProvider);

  const policy = createRetryPolicy({ backoff: { baseMs: 50, capMs: 1_000 } });
  // An outage with a small budget: two retries at once, no refill, to watch it run out.
  const outage = createRetryPolicy({ backoff: { baseMs: 10, capMs: 100 }, budget: { burst: 2, ratio: 0 } });
  const stop = instrumentRetries({ meterProvider, budgets: { main: policy, outage } });
  const dispatcher = new Agent().compose(retryInterceptor(policy));
  const outageDispatcher = new Agent().compose(retryInterceptor(outage));
  const get = async (path: string, via = dispatcher, method = 'GET'): Promise<number> => {
    const { statusCode, body } = await request(server.url + path, { dispatcher: via, method });
    await body.dump();
    return statusCode;
  };
  try {
    log('  GET /orders/1 with withRetry(fetch) inside your own span "load order" (503, 503, then 200)');
    const fetchWithRetry = withRetry(fetch, policy);
    await tracerProvider.getTracer('example').startActiveSpan('load order', async (span) => {
      const res = await fetchWithRetry(`${server.url}/orders/1`);
      log(`    -> ${res.status} ${await res.text()}`);
      span.end();
    });
    log(
      `  GET /flaky-connection with undici request() (reset, then 200) -> ${await get('/flaky-connection')}`,
    );
    log(
      `  POST /payments/p-1, no Idempotency-Key (503, not retried) -> ${await get('/payments/p-1', dispatcher, 'POST')}`,
    );
    log(`  GET /slow-down (503, Retry-After: 120 is too long) -> ${await get('/slow-down')}`);
    log(
      `  GET /down/d-1 and /down/d-2 (an outage) -> ${await get('/down/d-1', outageDispatcher)}, ${await get('/down/d-2', outageDispatcher)}`,
    );

    log('\n  Traces (instrumentation-undici makes a span per attempt; jitterbug numbers the resends):');
    printTraces(spans.getFinishedSpans(), log);
    log('\n  Metrics (@jitterbug/otel):');
    const { resourceMetrics } = await reader.collect();
    const ours = resourceMetrics.scopeMetrics.filter((s) => s.scope.name === '@jitterbug/otel');
    printMetrics(
      ours.flatMap((s) => s.metrics),
      log,
    );
  } finally {
    stop();
    undiciInstrumentation.disable();
    await dispatcher.close();
    await outageDispatcher.close();
    await tracerProvider.shutdown();
    await meterProvider.shutdown();
    context.disable();
  }
};

if (import.meta.main) await runStandalone(main);
