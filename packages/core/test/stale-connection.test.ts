/**
 * Keep-alive races (issue 36): an adapter that reports an attempt lost on a connection kept from an
 * earlier request, before any byte of its answer (`staleConnection`), has it retried as any reset is
 * (only a request that may be sent twice, within `maxAttempts`: the server may have had it), as
 * `stale-connection`, without a budget token, while the policy's last answer was not a failure.
 */
import { createRetryPolicy, type RetryOptions } from '@jitterbug/core';
import { describe, expect, it } from 'vitest';
import { decideOn } from './decisions.ts';
import { decided, fetchFailed, fixed } from './helpers.ts';

const URL = 'https://api.example.com/items';
const reset = (code = 'ECONNRESET') => ({ error: fetchFailed(code), staleConnection: true });
const answered = (policy: ReturnType<typeof createRetryPolicy>, status = 200) =>
  decided(decideOn(policy.begin({ method: 'GET', url: URL }), { status }));

describe('stale connections', () => {
  it('a GET reset on a kept connection is retried as stale-connection, and takes no budget token', () => {
    const policy = createRetryPolicy({ random: fixed(0.5), budget: { burst: 1, ratio: 0 } });
    const run = policy.begin({ method: 'GET', url: URL });
    expect(decided(decideOn(run, reset()))).toMatchObject({ retry: true, reason: 'stale-connection' });
    expect(decided(decideOn(run, { status: 200 }))).toMatchObject({ retry: false, reason: 'success' });
    expect(run.summary).toMatchObject({ attempts: 2, retries: ['stale-connection'], outcome: 'success' });
    expect(policy.options.feature.budget?.tokens).toBe(1);
  });

  it('the onRetry event and its budget tokens say so', () => {
    const events: unknown[] = [];
    const policy = createRetryPolicy({
      random: fixed(0.5),
      onRetry: (e) => events.push([e.reason, e.budgetTokens]),
    });
    decided(decideOn(policy.begin({ method: 'GET', url: URL }), reset('UND_ERR_SOCKET')));
    expect(events).toEqual([['stale-connection', 10]]);
  });

  it('a keyed POST is retried the same way', () => {
    const run = createRetryPolicy({ random: fixed(0.5) }).begin({
      method: 'POST',
      url: URL,
      headers: (name) => (name === 'idempotency-key' ? 'order-1' : undefined),
      body: 'replayable',
    });
    expect(decided(decideOn(run, reset('EPIPE')))).toMatchObject({ retry: true, reason: 'stale-connection' });
  });

  it('a POST without a key is sent once: the server may have had it', () => {
    const run = createRetryPolicy({ random: fixed(0.5) }).begin({
      method: 'POST',
      url: URL,
      body: 'replayable',
    });
    expect(decided(decideOn(run, reset()))).toMatchObject({ retry: false, reason: 'method-not-idempotent' });
  });

  it('only for a failure that is retried at all: not an error outside errorCodes, not a stream body, not shouldRetry false', () => {
    const begin = (options: RetryOptions = {}, body: 'none' | 'stream' = 'none') =>
      createRetryPolicy({ random: fixed(0.5), ...options }).begin({ method: 'PUT', url: URL, body });
    expect(decided(decideOn(begin(), { error: new Error('bug'), staleConnection: true }))).toMatchObject({
      retry: false,
      reason: 'error-not-retryable',
    });
    expect(decided(decideOn(begin({ errorCodes: ['ETIMEDOUT'] }), reset()))).toMatchObject({
      retry: false,
      reason: 'error-not-retryable',
    });
    expect(decided(decideOn(begin({}, 'stream'), reset()))).toMatchObject({
      retry: false,
      reason: 'body-not-replayable',
    });
    expect(decided(decideOn(begin({ shouldRetry: () => false }), reset()))).toMatchObject({
      retry: false,
      reason: 'should-retry',
    });
    // An aborted attempt is the caller's, whatever its connection.
    expect(decided(decideOn(begin(), { ...reset(), aborted: true }))).toMatchObject({ reason: 'aborted' });
  });

  it('counts in maxAttempts: a server that resets every kept connection gets the request maxAttempts times at most', () => {
    const policy = createRetryPolicy({ random: fixed(0.5) });
    const run = policy.begin({ method: 'GET', url: URL });
    const reasons = [];
    for (let d = decided(decideOn(run, reset())); d.retry; d = decided(decideOn(run, reset())))
      reasons.push(d.reason);
    expect(reasons).toEqual(['stale-connection', 'stale-connection']);
    expect(run.summary).toMatchObject({ attempts: 3, reason: 'max-attempts', outcome: 'failure' });
    expect(policy.options.feature.budget?.tokens).toBe(10);
  });

  it('while the last answer of the policy was a failure (an outage), a reset costs a token as any', () => {
    const policy = createRetryPolicy({ random: fixed(0.5), budget: { burst: 2, ratio: 0 } });
    // The 503's own retry takes one of the two tokens.
    answered(policy, 503);
    expect(decided(decideOn(policy.begin({ method: 'GET', url: URL }), reset()))).toMatchObject({
      retry: true,
      reason: 'error',
    });
    expect(policy.options.feature.budget?.tokens).toBe(0);
    expect(decided(decideOn(policy.begin({ method: 'GET', url: URL }), reset()))).toMatchObject({
      retry: false,
      reason: 'budget-exhausted',
    });
    // The servers answer fine again: a race is free again.
    answered(policy, 200);
    answered(policy, 404);
    expect(decided(decideOn(policy.begin({ method: 'GET', url: URL }), reset()))).toMatchObject({
      retry: true,
      reason: 'stale-connection',
    });
  });

  it('a wave of them does not empty the budget: the next ordinary failure is still retried', () => {
    const policy = createRetryPolicy({ random: fixed(0.5) });
    answered(policy);
    for (let i = 0; i < 40; i++) {
      expect(decided(decideOn(policy.begin({ method: 'GET', url: URL }), reset()))).toMatchObject({
        reason: 'stale-connection',
      });
    }
    expect(decided(decideOn(policy.begin({ method: 'GET', url: URL }), { status: 503 }))).toMatchObject({
      retry: true,
      reason: 'status',
    });
  });
});
