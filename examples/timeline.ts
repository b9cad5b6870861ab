/**
 * Prints a readable timeline of each request from the policy's events: every attempt, its status
 * or error, the chosen delay and why (backoff, Retry-After, route rule, budget), and the outcome.
 * Copy it as a starting point for your own logging or metrics.
 */
import type { RetryOptions } from '@jitterbug/core';
import { describeError } from '@jitterbug/core/adapter';

type Hooks = Pick<RetryOptions, 'onRetry' | 'onGiveUp' | 'onFinish'>;

const WHY: Record<string, string> = {
  success: 'done',
  'status-not-retryable': 'status is not retried',
  'error-not-retryable': 'error is not retried',
  aborted: 'aborted by the caller',
  'method-not-idempotent': 'not retried: method is not idempotent and no Idempotency-Key',
  'body-not-replayable': 'not retried: the body was a stream',
  'route-disabled': 'not retried: route rule says retry: false',
  'should-retry': 'not retried: shouldRetry said no',
  'max-attempts': 'gave up: maxAttempts reached',
  deadline: 'gave up: the next wait would pass deadlineMs',
  'retry-after-too-long': 'gave up: Retry-After longer than retryAfter.maxMs',
  'budget-exhausted': 'gave up: retry budget exhausted',
};

const outcomeOf = (e: { status: number | undefined; error: unknown }): string =>
  e.status !== undefined ? String(e.status) : describeError(e.error);

/** Hooks that print a timeline line per attempt to `log`. */
export const timelineHooks = (log: (line: string) => void = console.log): Hooks => ({
  onRetry(e) {
    const why = e.delaySource === 'backoff' ? 'backoff' : e.delaySource;
    const route = e.route ? `, route "${e.route}"` : '';
    const budget = e.budgetTokens !== undefined ? `, budget ${e.budgetTokens.toFixed(1)} left` : '';
    log(
      `    attempt ${e.attempt}: ${outcomeOf(e).padEnd(12)} -> retry in ${Math.round(e.delayMs)} ms (${why}${route}${budget})`,
    );
  },
  onFinish(s) {
    const route = s.route ? ` [route "${s.route}"]` : '';
    const mark = s.outcome === 'success' ? 'ok' : 'FAILED';
    log(
      `    attempt ${s.attempts}: ${outcomeOf(s).padEnd(12)} -> ${mark}: ${WHY[s.reason] ?? s.reason}` +
        ` (${s.attempts} attempt${s.attempts === 1 ? '' : 's'}, waited ${Math.round(s.totalDelayMs)} ms)${route}`,
    );
  },
});
