/**
 * Keep-alive races (issue 36): an adapter that reports an attempt lost on a connection kept from an
 * earlier request, before any byte of its answer (`staleConnection`), has it retried without a
 * budget token and outside `maxAttempts`, on the transparent retries' limit, but only for a request
 * that may be sent twice: the server may have had it.
 */
import { createRetryPolicy, type RetryOptions } from '@jitterbug/core';
import { describe, expect, it } from 'vitest';
import { decided, fetchFailed, fixed } from './helpers.ts';

const URL = 'https://api.example.com/items';
const reset = (code = 'ECONNRESET') => ({ error: fetchFailed(code), staleConnection: true });
const answered = (policy: ReturnType<typeof createRetryPolicy>) =>
  decided(policy.begin({ method: 'GET', url: URL }).next({ status: 200 }));

describe('stale connections', () => {
  it('a GET reset on a kept connection is retried as stale-connection, free of the budget and of maxAttempts', () => {
    const policy = createRetryPolicy({ random: fixed(0.5), maxAttempts: 1, budget: { burst: 1, ratio: 0 } });
    const run = policy.begin({ method: 'GET', url: URL });
    const retry = decided(run.next(reset()));
    expect(retry).toMatchObject({
      retry: true,
      reason: 'stale-connection',
      nextBackoffState: { attempt: 0 },
    });
    expect(decided(run.next({ status: 200 }))).toMatchObject({ retry: false, reason: 'success' });
    expect(run.summary).toMatchObject({ attempts: 2, retries: ['stale-connection'], outcome: 'success' });
    expect(policy.options.budget?.tokens).toBe(1);
  });

  it('the onRetry event and its budget tokens say so', () => {
    const events: unknown[] = [];
    const policy = createRetryPolicy({
      random: fixed(0.5),
      onRetry: (e) => events.push([e.reason, e.budgetTokens]),
    });
    decided(policy.begin({ method: 'GET', url: URL }).next(reset('UND_ERR_SOCKET')));
    expect(events).toEqual([['stale-connection', 10]]);
  });

  it('a keyed POST is retried the same way', () => {
    const run = createRetryPolicy({ random: fixed(0.5) }).begin({
      method: 'POST',
      url: URL,
      headers: (name) => (name === 'idempotency-key' ? 'order-1' : undefined),
      body: 'replayable',
    });
    expect(decided(run.next(reset('EPIPE')))).toMatchObject({ retry: true, reason: 'stale-connection' });
  });

  it('a POST without a key is sent once: the server may have had it', () => {
    const run = createRetryPolicy({ random: fixed(0.5) }).begin({
      method: 'POST',
      url: URL,
      body: 'replayable',
    });
    expect(decided(run.next(reset()))).toMatchObject({ retry: false, reason: 'method-not-idempotent' });
  });

  it('only for a failure that is retried at all: not an error outside errorCodes, not a status, not a stream body, not shouldRetry false', () => {
    const begin = (options: RetryOptions = {}, body: 'none' | 'stream' = 'none') =>
      createRetryPolicy({ random: fixed(0.5), ...options }).begin({ method: 'PUT', url: URL, body });
    expect(decided(begin().next({ error: new Error('bug'), staleConnection: true }))).toMatchObject({
      retry: false,
      reason: 'error-not-retryable',
    });
    expect(decided(begin({ errorCodes: ['ETIMEDOUT'] }).next(reset()))).toMatchObject({
      retry: false,
      reason: 'error-not-retryable',
    });
    expect(decided(begin({}, 'stream').next(reset()))).toMatchObject({
      retry: false,
      reason: 'body-not-replayable',
    });
    expect(decided(begin({ shouldRetry: () => false }).next(reset()))).toMatchObject({
      retry: false,
      reason: 'should-retry',
    });
    // An aborted attempt is the caller's, whatever its connection.
    expect(decided(begin().next({ ...reset(), aborted: true }))).toMatchObject({ reason: 'aborted' });
  });

  it('a server that resets every kept connection and answers nothing still ends the request: transparentRetries in a row, then the ordinary retries', () => {
    const policy = createRetryPolicy({ random: fixed(0.5), maxAttempts: 2 });
    const run = policy.begin({ method: 'GET', url: URL });
    const reasons = [];
    for (let d = decided(run.next(reset())); d.retry; d = decided(run.next(reset()))) reasons.push(d.reason);
    expect(reasons).toEqual(['stale-connection', 'stale-connection', 'error']);
    expect(run.summary).toMatchObject({ attempts: 4, reason: 'max-attempts', outcome: 'failure' });
    // The ordinary retry took its token; the two stale ones none.
    expect(policy.options.budget?.tokens).toBe(9);
  });

  it('while the policy’s other requests are answered (a pool closed by an idle timeout), up to ten times transparentRetries, sharing the limit with unprocessed retries', () => {
    const policy = createRetryPolicy({ random: fixed(0.5), transparentRetries: 1 });
    const run = policy.begin({ method: 'GET', url: URL });
    answered(policy);
    expect(decided(run.next({ error: fetchFailed('ECONNREFUSED') }))).toMatchObject({
      reason: 'unprocessed',
    });
    for (let i = 0; i < 9; i++) {
      answered(policy);
      expect(decided(run.next(reset()))).toMatchObject({ retry: true, reason: 'stale-connection' });
    }
    answered(policy);
    // The limit spent (1 unprocessed and 9 stale), the next is an ordinary retry.
    expect(decided(run.next(reset()))).toMatchObject({ retry: true, reason: 'error' });
    expect(policy.options.budget?.tokens).toBe(9);
  });

  it('transparentRetries: 0 turns it off: an ordinary retry, which takes a token', () => {
    const policy = createRetryPolicy({
      random: fixed(0.5),
      transparentRetries: 0,
      budget: { burst: 1, ratio: 0 },
    });
    expect(decided(policy.begin({ method: 'GET', url: URL }).next(reset()))).toMatchObject({
      reason: 'error',
    });
    expect(decided(policy.begin({ method: 'GET', url: URL }).next(reset()))).toMatchObject({
      retry: false,
      reason: 'budget-exhausted',
    });
  });

  it('a wave of them does not empty the budget: the next ordinary failure is still retried', () => {
    const policy = createRetryPolicy({ random: fixed(0.5) });
    for (let i = 0; i < 40; i++) {
      expect(decided(policy.begin({ method: 'GET', url: URL }).next(reset()))).toMatchObject({
        reason: 'stale-connection',
      });
    }
    expect(decided(policy.begin({ method: 'GET', url: URL }).next({ status: 503 }))).toMatchObject({
      retry: true,
      reason: 'status',
    });
  });
});
