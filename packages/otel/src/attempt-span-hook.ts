/**
 * `attemptSpanHook`: how the span another instrumentation makes for one physical request (an
 * attempt) reaches jitterbug. That instrumentation calls the hook synchronously when it creates the
 * span (`@opentelemetry/instrumentation-undici`'s `requestHook` runs inside undici's
 * `undici:request:create` event), and jitterbug announces each attempt synchronously just before it
 * hands the attempt to the client (`jitterbug:attempt:start`): so the span created inside that
 * window is the attempt's. The hook is module-wide because an instrumentation is usually configured
 * apart from, and before, `instrumentRetries`; it tells every running instrumentation.
 */
import type { Span } from '@opentelemetry/api';

/** Receives the span of a physical request created while an attempt's window is open. */
export type AttemptSpanListener = (span: Span) => void;

const listeners = new Set<AttemptSpanListener>();

/**
 * A request hook for an HTTP client instrumentation, e.g.
 * `new UndiciInstrumentation({ requestHook: attemptSpanHook })`: on the span of every resend it sets
 * `http.request.resend_count` (and `jitterbug.hedge.copy` on a hedged copy), and lets
 * `instrumentRetries` add its retry and give-up events to the attempt's span while it is open. Does
 * nothing while no `instrumentRetries` is running, or for a request that is not a jitterbug attempt.
 * To keep a hook of your own, call both from one function.
 *
 * @param span - the span the instrumentation created for the request (its other arguments are not needed).
 */
export const attemptSpanHook = (span: Span): void => {
  for (const listener of listeners) listener(span);
};

/** Adds a listener to {@link attemptSpanHook}; returns the function that removes it. */
export const listenForAttemptSpans = (listener: AttemptSpanListener): (() => void) => {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
};
