/**
 * The retry settings every variant gets, made equivalent: 3 attempts in all (2 retries), zero
 * delay (so the retry path measures CPU, not sleeping), the same retried statuses. jitterbug keeps
 * a retry budget on (ratio 1: it never runs dry here) so that its budget code stays on the path.
 */
import type { RetryOptions } from '@jitterbug/core';

export const MAX_ATTEMPTS = 3;

export const JITTERBUG_OPTIONS: RetryOptions = {
  maxAttempts: MAX_ATTEMPTS,
  backoff: { strategy: 'full', baseMs: 0, capMs: 0 },
  budget: { ratio: 1, burst: 1000 },
};

/** Retried statuses, as jitterbug's defaults, for the peers that take a list. */
export const RETRY_STATUS_CODES = [408, 429, 500, 502, 503, 504];
