/**
 * The OpenTelemetry SDK as `examples/otel-traces.ts` imports it. The SDK packages are dev
 * dependencies of @jitterbug/otel, installed here and not in `examples/`, so the example cannot name
 * them itself yet (once `examples/package.json` lists them, it imports them directly, as a program
 * does). Re-exported from here, inside this package, so that they resolve as packages: a relative
 * import of their files from `examples/` would make TypeScript look for their own dependencies from
 * the wrong directory.
 */
export { type Attributes, context } from '@opentelemetry/api';
export { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
export { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
export { DataPointType, MeterProvider, type MetricData, MetricReader } from '@opentelemetry/sdk-metrics';
export {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
