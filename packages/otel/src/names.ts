/**
 * Every name this package writes: metric names, span attribute keys and span event names. The
 * OpenTelemetry semantic conventions' names where one exists (`http.request.resend_count`,
 * `http.request.method`, `server.address`, `error.type`, …); `jitterbug.*` where none does. Exported
 * so that dashboards, alerts and tests can refer to them without copying strings.
 */

/** The instrumentation scope (meter) name. */
export const SCOPE_NAME = '@jitterbug/otel';

/** Metric names (see the README for instruments, units and attributes). */
export const METRICS = Object.freeze({
  /** Counter, `{retry}`: retries scheduled, by reason and status or error. */
  retries: 'jitterbug.retries',
  /** Counter, `{request}`: failures that would have been retried and were not, by reason. */
  giveUps: 'jitterbug.give_ups',
  /** Histogram, `{attempt}`: attempts per request, counting the first. */
  attempts: 'jitterbug.request.attempts',
  /** Histogram, `s`: time a request spent waiting between attempts (backoff, Retry-After, the pacer). */
  waitTime: 'jitterbug.request.wait_time',
  /** Asynchronous gauge, `{token}`: tokens left in a retry budget you named in `budgets`. */
  budgetTokens: 'jitterbug.budget.tokens',
} as const);

/** Span event names. */
export const EVENTS = Object.freeze({
  /** A retry was scheduled: the wait begins. */
  retry: 'jitterbug.retry',
  /** A failure that is normally retried was not. */
  giveUp: 'jitterbug.give_up',
} as const);

/** Attribute keys, on spans, span events and metric points. */
export const ATTRIBUTES = Object.freeze({
  // Semantic conventions (stable).
  resendCount: 'http.request.resend_count',
  method: 'http.request.method',
  statusCode: 'http.response.status_code',
  errorType: 'error.type',
  serverAddress: 'server.address',
  serverPort: 'server.port',
  // jitterbug's own.
  /** The 1-based number of the attempt an event is about (the one that failed). */
  attempt: 'jitterbug.attempt',
  retryReason: 'jitterbug.retry.reason',
  retryDelayMs: 'jitterbug.retry.delay_ms',
  retryDelaySource: 'jitterbug.retry.delay_source',
  /** On a retry of a 429 or 503 whose delay could not be read (a cross-origin header not exposed). */
  retryServerDelayUnread: 'jitterbug.retry.server_delay_unread',
  giveUpReason: 'jitterbug.give_up.reason',
  /** The server-given delay that was not waited (`retry-after-too-long`, `deadline`). */
  refusedDelayMs: 'jitterbug.give_up.refused_delay_ms',
  /** Tokens left in the retry budget after a retry. */
  budgetTokens: 'jitterbug.budget.tokens',
  budgetName: 'jitterbug.budget.name',
  route: 'jitterbug.route',
  outcome: 'jitterbug.outcome',
  /** On the span of a hedged copy of an attempt: the copy's number (2 or more). */
  hedgeCopy: 'jitterbug.hedge.copy',
} as const);
