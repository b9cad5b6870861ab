/**
 * The real OpenTelemetry SDK for tests: a tracer provider exporting to memory, a meter provider
 * read on demand, and both read back in a compact shape that tests compare whole (`toEqual`), so an
 * attribute, an event or a metric point too many fails as surely as one missing.
 */
import type { Attributes, HrTime } from '@opentelemetry/api';
import {
  type DataPoint,
  DataPointType,
  type Histogram,
  MeterProvider,
  type MetricData,
  MetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';

/** A metric reader that collects only when asked (no timer). */
class OnDemandReader extends MetricReader {
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

/** A span as tests compare it. */
export interface SpanView {
  readonly name: string;
  /** The parent's name, when the parent is one of the exported spans; `undefined` for a root. */
  readonly parent: string | undefined;
  readonly attributes: Attributes;
  /** Events by name and attributes; an `exception` event by its `exception.type` only (no stack). */
  readonly events: readonly { readonly name: string; readonly attributes: Attributes }[];
}

/** A metric as tests compare it. */
export interface MetricView {
  readonly name: string;
  readonly unit: string;
  readonly kind: 'sum' | 'gauge' | 'histogram';
  readonly points: readonly { readonly attributes: Attributes; readonly value: unknown }[];
}

/** A histogram point as tests compare it. */
export interface HistogramView {
  readonly count: number;
  readonly sum: number;
  /** `[upper bound, count]` of every bucket that counted something (`Infinity` for the last). */
  readonly buckets: readonly (readonly [number, number])[];
}

const histogramView = (value: Histogram): HistogramView => {
  const { boundaries, counts } = value.buckets;
  const buckets = counts
    .map((count, i) => [boundaries[i] ?? Number.POSITIVE_INFINITY, count] as const)
    .filter(([, count]) => count > 0);
  return { count: value.count, sum: value.sum ?? Number.NaN, buckets };
};

const metricView = (metric: MetricData): MetricView => {
  const { name, unit } = metric.descriptor;
  if (metric.dataPointType === DataPointType.HISTOGRAM) {
    const points = metric.dataPoints.map((p: DataPoint<Histogram>) => ({
      attributes: p.attributes,
      value: histogramView(p.value),
    }));
    return { name, unit, kind: 'histogram', points };
  }
  if (metric.dataPointType === DataPointType.SUM || metric.dataPointType === DataPointType.GAUGE) {
    const kind = metric.dataPointType === DataPointType.SUM ? 'sum' : 'gauge';
    return {
      name,
      unit,
      kind,
      points: metric.dataPoints.map((p) => ({ attributes: p.attributes, value: p.value })),
    };
  }
  throw new Error(`unexpected metric data of ${name}`);
};

const eventsOf = (span: ReadableSpan): SpanView['events'] =>
  span.events.map(({ name, attributes = {} }) =>
    name === 'exception'
      ? { name, attributes: { 'exception.type': attributes['exception.type'] } }
      : { name, attributes },
  );

const startOf = (span: ReadableSpan): number => hrNanos(span.startTime);
const hrNanos = ([seconds, nanos]: HrTime): number => seconds * 1e9 + nanos;

/** A tracer provider and a meter provider of the real SDK, read back for assertions. */
export interface Telemetry {
  readonly tracerProvider: TracerProvider;
  readonly meterProvider: MeterProvider;
  /** Finished spans, in the order they started (a parent first). */
  spans(): SpanView[];
  /** The metrics of one instrumentation scope (default `@jitterbug/otel`), by name. */
  metrics(scope?: string): Promise<MetricView[]>;
  shutdown(): Promise<void>;
}

export const createTelemetry = (): Telemetry => {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const reader = new OnDemandReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  return {
    tracerProvider,
    meterProvider,
    spans() {
      const exported = exporter.getFinishedSpans();
      const byId = new Map(exported.map((s) => [s.spanContext().spanId, s]));
      const depth = (span: ReadableSpan): number => {
        const parent = span.parentSpanContext && byId.get(span.parentSpanContext.spanId);
        return parent ? depth(parent) + 1 : 0;
      };
      // By start time; a parent before a child that started in the same clock tick; else (a stable
      // sort) in the order they ended, which for attempts made one after another is their order.
      const finished = [...exported].sort((a, b) => startOf(a) - startOf(b) || depth(a) - depth(b));
      const names = new Map(finished.map((s) => [s.spanContext().spanId, s.name]));
      return finished.map((span) => ({
        name: span.name,
        parent: span.parentSpanContext
          ? (names.get(span.parentSpanContext.spanId) ?? '(unknown)')
          : undefined,
        attributes: span.attributes,
        events: eventsOf(span),
      }));
    },
    async metrics(scope = '@jitterbug/otel') {
      const { resourceMetrics, errors } = await reader.collect();
      if (errors.length > 0) throw new AggregateError(errors, 'metric collection failed');
      return resourceMetrics.scopeMetrics
        .filter((s) => s.scope.name === scope)
        .flatMap((s) => s.metrics.map(metricView))
        .sort((a, b) => a.name.localeCompare(b.name));
    },
    async shutdown() {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
};
