/** Turns what the client gave into JSON for the Node side. */
import type { RetryEvent, RetryInfo } from '@jitterbug/core';
import type { CallRecord, InfoRecord, RetryRecord } from '../protocol.ts';
import type { CallResult } from './client.ts';
import { errorShape } from './error-shape.ts';

const infoRecord = (info: RetryInfo | undefined): InfoRecord | null =>
  info === undefined
    ? null
    : {
        attempts: info.attempts,
        retries: [...info.retries],
        totalDelayMs: info.totalDelayMs,
        outcome: info.outcome,
        reason: info.reason,
        status: info.status ?? null,
        route: info.route ?? null,
      };

export const callRecord = (call: CallResult): CallRecord => {
  switch (call.kind) {
    case 'response':
      return { kind: 'response', status: call.status, body: call.body, info: infoRecord(call.info) };
    case 'http-error':
      return {
        kind: 'http-error',
        status: call.status,
        ...(call.body === undefined ? {} : { body: call.body }),
        error: errorShape(call.error),
        info: infoRecord(call.info),
      };
    case 'error':
      return { kind: 'error', error: errorShape(call.error), info: infoRecord(call.info) };
  }
};

export const retryRecord = (event: RetryEvent): RetryRecord => ({
  attempt: event.attempt,
  reason: event.reason,
  delayMs: event.delayMs,
  delaySource: event.delaySource,
  status: event.status ?? null,
  error: event.error === undefined ? null : errorShape(event.error),
});
