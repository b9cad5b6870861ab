import { createBodyBuffering, createRetryPolicy } from '@jitterbug/core';
import { mayRetry } from '@jitterbug/core/adapter';
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

  it('is false for a POST without a key, a shouldRetry hook or not (its true stays within the method rule)', () => {
    expect(mayRetry(createRetryPolicy({ shouldRetry: () => true }).options, 'POST', headers())).toBe(false);
    expect(mayRetry(createRetryPolicy({ shouldRetry: () => true }).options, 'GET', headers())).toBe(true);
  });
});

describe('policy.buffersStreams', () => {
  it('is true when the base options or any route buffer stream bodies', () => {
    expect(createRetryPolicy().buffersStreams).toBe(false);
    expect(createRetryPolicy({ bodyBuffering: createBodyBuffering({ maxBytes: 1024 }) }).buffersStreams).toBe(
      true,
    );
    expect(
      createRetryPolicy({
        routes: [{ match: 'PUT /uploads/*', bodyBuffering: createBodyBuffering({ maxBytes: 65_536 }) }],
      }).buffersStreams,
    ).toBe(true);
    expect(createRetryPolicy({ routes: [{ match: '/a', maxAttempts: 5 }] }).buffersStreams).toBe(false);
  });
});
