/**
 * The span events for a scheduled retry and for a give-up, and the spans they go on: the span that
 * was active when the request began (the caller's), and the attempt's own span while it is still
 * open. undici's interceptor decides on a response's headers, before its span ends with the body; a
 * span that ended with a network error, or (with the fetch engine of `withRetry` and ky) with a small
 * body fetch read to its end before the engine decided, is closed and gets none.
 */
import type { GiveUpMessage, RetryMessage } from '@jitterbug/core/diagnostics';
import type { Attributes, Span } from '@opentelemetry/api';
import { ATTRIBUTES, EVENTS } from './names.ts';
import { outcomeAttributes } from './request-attributes.ts';
import { decidedCode, type RunState } from './run-state.ts';

/** The spans an event about attempt `attempt` of this run goes on. */
const spansFor = (state: RunState, attempt: number): Span[] => {
  const spans: Span[] = [];
  const own = state.attemptSpan;
  if (own && state.attemptSpanNumber === attempt && own.isRecording()) spans.push(own);
  if (state.callerSpan) spans.push(state.callerSpan);
  return spans;
};

/** Adds a `jitterbug.retry` event: the attempt that failed, why, and the wait that begins. */
export const addRetryEvent = (state: RunState, message: RetryMessage): void => {
  const spans = spansFor(state, message.attempt);
  if (spans.length === 0) return;
  const attributes: Attributes = {
    [ATTRIBUTES.attempt]: message.attempt,
    [ATTRIBUTES.retryReason]: message.reason,
    [ATTRIBUTES.retryDelayMs]: message.delayMs,
    [ATTRIBUTES.retryDelaySource]: message.delaySource,
    ...outcomeAttributes(message.status, message.error, decidedCode(state, message.error)),
  };
  if (message.budgetTokens !== undefined) attributes[ATTRIBUTES.budgetTokens] = message.budgetTokens;
  if (message.route !== undefined) attributes[ATTRIBUTES.route] = message.route;
  if (message.serverDelayUnread) attributes[ATTRIBUTES.retryServerDelayUnread] = true;
  for (const span of spans) span.addEvent(EVENTS.retry, attributes);
};

/** Adds a `jitterbug.give_up` event: the attempt that was not retried, and why. */
export const addGiveUpEvent = (state: RunState, message: GiveUpMessage): void => {
  const spans = spansFor(state, message.attempt);
  if (spans.length === 0) return;
  const attributes: Attributes = {
    [ATTRIBUTES.attempt]: message.attempt,
    [ATTRIBUTES.giveUpReason]: message.reason,
    ...outcomeAttributes(message.status, message.error, decidedCode(state, message.error)),
  };
  if (message.refusedDelayMs !== undefined) attributes[ATTRIBUTES.refusedDelayMs] = message.refusedDelayMs;
  if (message.route !== undefined) attributes[ATTRIBUTES.route] = message.route;
  for (const span of spans) span.addEvent(EVENTS.giveUp, attributes);
};
