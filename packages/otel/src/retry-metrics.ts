/**
 * The synchronous instruments and what each event records on them. Names, units and attributes are
 * in the README's table; the names are in `names.ts`.
 */
import type { GiveUpMessage, RetryMessage, RunEndMessage } from '@jitterbug/core/diagnostics';
import { type Attributes, type Counter, type Histogram, type Meter, ValueType } from '@opentelemetry/api';
import { ATTRIBUTES, METRICS } from './names.ts';
import { outcomeAttributes, requestAttributes } from './request-attributes.ts';
import { decidedCode, type RunState } from './run-state.ts';

/** Bucket bounds for attempts per request: one bucket per count up to 6, then coarser. */
const ATTEMPT_BOUNDS = [1, 2, 3, 4, 5, 6, 8, 10, 15, 20];
/** Bucket bounds for the wait, in seconds: `0` alone counts the requests that never waited. */
const WAIT_BOUNDS = [0, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/** Records jitterbug's events on metric instruments. */
export interface RetryMetrics {
  retry(state: RunState, message: RetryMessage): void;
  giveUp(state: RunState, message: GiveUpMessage): void;
  runEnd(state: RunState, message: RunEndMessage): void;
}

/** The request's attributes: computed once at its start, else from the message's own fields. */
const requestOf = (
  state: RunState,
  message: { readonly method: string; readonly url: string; readonly route: string | undefined },
): Attributes => state.request ?? requestAttributes(message.method, message.url, message.route);

/** Creates the instruments on `meter`. */
export const createRetryMetrics = (meter: Meter): RetryMetrics => {
  const retries: Counter = meter.createCounter(METRICS.retries, {
    description: 'Retries scheduled by jitterbug, by reason and by the status or error retried.',
    unit: '{retry}',
    valueType: ValueType.INT,
  });
  const giveUps: Counter = meter.createCounter(METRICS.giveUps, {
    description: 'Failures jitterbug would normally retry and did not (attempts, budget, deadline, …).',
    unit: '{request}',
    valueType: ValueType.INT,
  });
  const attempts: Histogram = meter.createHistogram(METRICS.attempts, {
    description: 'Attempts per request, counting the first.',
    unit: '{attempt}',
    valueType: ValueType.INT,
    advice: { explicitBucketBoundaries: ATTEMPT_BOUNDS },
  });
  const waitTime: Histogram = meter.createHistogram(METRICS.waitTime, {
    description: 'Time a request spent waiting between attempts (backoff, Retry-After, the pacer).',
    unit: 's',
    valueType: ValueType.DOUBLE,
    advice: { explicitBucketBoundaries: WAIT_BOUNDS },
  });
  return {
    retry(state, message) {
      retries.add(1, {
        ...requestOf(state, message),
        [ATTRIBUTES.retryReason]: message.reason,
        ...outcomeAttributes(message.status, message.error, decidedCode(state, message.error)),
      });
    },
    giveUp(state, message) {
      giveUps.add(1, {
        ...requestOf(state, message),
        [ATTRIBUTES.giveUpReason]: message.reason,
        ...outcomeAttributes(message.status, message.error, decidedCode(state, message.error)),
      });
    },
    runEnd(state, { info }) {
      // A run reopened by a forced retry or a resume ends again: one request, recorded once.
      if (state.ended) return;
      state.ended = true;
      const attributes = { ...requestOf(state, info), [ATTRIBUTES.outcome]: info.outcome };
      attempts.record(info.attempts, attributes);
      waitTime.record(info.totalDelayMs / 1000, attributes);
    },
  };
};
