import { createRetryPolicy, mayRetry } from '@jitterbug/core';
import { describe, expect, it } from 'vitest';
import { headers } from './helpers.ts';

describe('mayRetry', () => {
  const base = createRetryPolicy().options;

  it('is true for retried methods and for requests with an idempotency key', () => {
    expect(mayRetry(base, 'get', headers())).toBe(true);
    expect(mayRetry(base, 'POST', headers())).toBe(false);
    expect(mayRetry(base, 'POST', headers({ 'Idempotency-Key': 'k' }))).toBe(true);
  });

  it('is false with maxAttempts 1 or a disabled route', () => {
    expect(mayRetry(createRetryPolicy({ maxAttempts: 1 }).options, 'GET', headers())).toBe(false);
    const policy = createRetryPolicy({ routes: [{ match: '/off', retry: false }] });
    expect(mayRetry(policy.resolve('GET', 'https://x.test/off'), 'GET', headers())).toBe(false);
  });

  it('is true for any method when a shouldRetry hook could ask for a retry', () => {
    expect(mayRetry(createRetryPolicy({ shouldRetry: () => undefined }).options, 'POST', headers())).toBe(
      true,
    );
  });
});
