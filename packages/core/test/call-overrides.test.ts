/** A call's own overrides (`policy.begin(request, overrides)`): what every adapter's per-call field is. */
import { createRetryPolicy } from '@jitterbug/core';
import { describe, expect, it } from 'vitest';
import { createPolicy } from '../src/policy.ts';
import { decideOn } from './decisions.ts';
import { decided, fixed } from './helpers.ts';

const request = { method: 'GET', url: 'https://api.example.com/reports/1' };

describe('per-call overrides', () => {
  it('lay the call’s fields over the options in force (a route’s included)', () => {
    const policy = createRetryPolicy({
      maxAttempts: 2,
      random: fixed(0.5),
      routes: [{ match: '/reports/*', name: 'reports', backoff: { baseMs: 1000 } }],
    });
    const run = policy.begin(request, { maxAttempts: 5 });
    expect(run.options.maxAttempts).toBe(5);
    expect(run.options.backoff.baseMs).toBe(1000);
    expect(run.options.route).toBe('reports');
    expect(policy.begin(request).options.maxAttempts).toBe(2);
  });

  it('false turns retries off for the call, reported as retry-disabled', () => {
    const run = createRetryPolicy().begin(request, false);
    expect(decided(decideOn(run, { status: 503 }))).toMatchObject({ retry: false, reason: 'retry-disabled' });
    expect(run.summary).toMatchObject({ reason: 'retry-disabled', attempts: 1 });
  });

  it('are validated when the call begins, with the option named as the call’s field', () => {
    const policy = createRetryPolicy();
    expect(() => policy.begin(request, { maxAttempts: 0 })).toThrow(
      'jitterbug: option "jitterbug.maxAttempts" must be an integer from 1 to 1000, got 0',
    );
    expect(() => policy.begin(request, { routes: [] } as never)).toThrow('unknown option "jitterbug.routes"');
    expect(() => policy.begin(request, { random: Math.random } as never)).toThrow(
      'unknown option "jitterbug.random"',
    );
    expect(() => policy.begin(request, 'five' as never)).toThrow('option "jitterbug" must be an object');
  });
});

describe('plain options and routes', () => {
  it('a policy made from plain options (as adapters do) refuses routes, naming createRetryPolicy', () => {
    expect(() => createPolicy({ routes: [] } as never)).toThrow(
      /option "routes" must be given to createRetryPolicy\(\)/,
    );
    expect(createRetryPolicy({ routes: [] }).begin(request).options.route).toBeUndefined();
  });
});

describe('custom backoff', () => {
  it('a function returning a number is that delay (and the state advances)', () => {
    const run = createRetryPolicy({ backoff: () => 50, maxAttempts: 2 }).begin(request);
    expect(decided(decideOn(run, { status: 503 }))).toMatchObject({ retry: true, delayMs: 50 });
    expect(decided(decideOn(run, { status: 503 }))).toMatchObject({ retry: false, reason: 'max-attempts' });
  });

  it('a result that is neither a number nor a pair waits capMs and never throws', () => {
    const run = createRetryPolicy({ backoff: { strategy: (() => 'soon') as never, capMs: 300 } }).begin(
      request,
    );
    expect(decided(decideOn(run, { status: 503 }))).toMatchObject({ retry: true, delayMs: 300 });
  });
});

describe('ERR_NETWORK', () => {
  it('an error the adapter reports with code ERR_NETWORK (a fetch failure without a code) is retried for GET, not POST', () => {
    const policy = createRetryPolicy();
    const failure = new TypeError('Failed to fetch');
    expect(decided(decideOn(policy.begin(request), { error: failure, code: 'ERR_NETWORK' }))).toMatchObject({
      retry: true,
      reason: 'error',
    });
    expect(
      decided(
        decideOn(policy.begin({ ...request, method: 'POST' }), { error: failure, code: 'ERR_NETWORK' }),
      ),
    ).toMatchObject({ retry: false, reason: 'method-not-idempotent' });
    expect(decided(decideOn(policy.begin(request), { error: failure }))).toMatchObject({
      reason: 'error-not-retryable',
    });
  });
});
