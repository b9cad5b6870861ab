/**
 * `@jitterbug/otel`: OpenTelemetry for jitterbug's retries — `http.request.resend_count` on the span
 * of every resend, span events for retries and give-ups, and retry metrics — from the events the
 * core publishes on `node:diagnostics_channel`. Depends on `@opentelemetry/api` only (a peer).
 *
 * @packageDocumentation
 */
export { attemptSpanHook } from './attempt-span-hook.ts';
export { instrumentRetries } from './instrument-retries.ts';
export { ATTRIBUTES, EVENTS, METRICS, SCOPE_NAME } from './names.ts';
export type { InstrumentRetriesOptions } from './options.ts';
