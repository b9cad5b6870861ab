/**
 * What `@opentelemetry/instrumentation-undici` 0.34 records on the span of one request, built from
 * its parts, so tests state whole spans: its own attributes, and what jitterbug adds.
 */
import type { Attributes } from '@opentelemetry/api';
import type { SpanView } from './telemetry.ts';

export interface AttemptSpanSpec {
  readonly method: string;
  readonly path: string;
  /** The response status; omit for a request that failed with `error`. */
  readonly status?: number;
  /** The error code of a request that failed without a response. */
  readonly error?: string;
  /** `http.request.resend_count`, when the span is a resend. */
  readonly resendCount?: number;
  /** `jitterbug.hedge.copy`, for a hedged copy. */
  readonly hedgeCopy?: number;
  /** The `user-agent` the client sends (undici's `request()` sends none). */
  readonly userAgent?: string;
  /** The parent span's name. */
  readonly parent?: string;
  /** Events besides the `exception` event a failed request gets. */
  readonly events?: SpanView['events'];
  /** The request was cancelled (a hedged copy that lost): no status, no error. */
  readonly cancelled?: boolean;
}

/** The span instrumentation-undici makes for one attempt to `origin` (`http://127.0.0.1:port`). */
export const attemptSpan = (origin: string, spec: AttemptSpanSpec): SpanView => {
  const { port } = new URL(origin);
  const attributes: Attributes = {
    'http.request.method': spec.method,
    'http.request.method_original': spec.method,
    'url.full': origin + spec.path,
    'url.path': spec.path,
    'url.query': '',
    'url.scheme': 'http',
    'server.address': '127.0.0.1',
    'server.port': Number(port),
    'network.peer.address': '127.0.0.1',
    'network.peer.port': Number(port),
    'network.protocol.version': '1.1',
  };
  if (spec.userAgent !== undefined) attributes['user_agent.original'] = spec.userAgent;
  if (spec.resendCount !== undefined) attributes['http.request.resend_count'] = spec.resendCount;
  if (spec.hedgeCopy !== undefined) attributes['jitterbug.hedge.copy'] = spec.hedgeCopy;
  if (spec.status !== undefined) {
    attributes['http.response.status_code'] = spec.status;
    if (spec.status >= 400) attributes['error.type'] = String(spec.status);
  }
  if (spec.error !== undefined) attributes['error.type'] = spec.error;
  const events = [...(spec.events ?? [])];
  if (spec.error !== undefined)
    events.push({ name: 'exception', attributes: { 'exception.type': spec.error } });
  return { name: spec.method, parent: spec.parent, attributes, events };
};
