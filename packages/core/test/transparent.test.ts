/**
 * Transparent retries (gRFC A6): a failure that proves the request never reached the server's
 * application is sent again whatever the method, on a limit of its own.
 */
import { createRetryPolicy, type RetryOptions } from '@jitterbug/core';
import { UNPROCESSED_ERROR_CODES } from '@jitterbug/core/adapter';
import { describe, expect, it } from 'vitest';
import { decided, fetchFailed, fixed } from './helpers.ts';

const begin = (options: RetryOptions = {}, method = 'POST') =>
  createRetryPolicy({ random: fixed(0.5), budget: false, ...options }).begin({
    method,
    url: 'https://api.example.com/charge',
    body: 'replayable',
  });

describe('transparent retries', () => {
  it('a POST whose connection was refused is sent again, as unprocessed, outside maxAttempts', () => {
    const run = begin({ maxAttempts: 1 });
    expect(decided(run.next({ error: fetchFailed('ECONNREFUSED') }))).toMatchObject({
      retry: true,
      reason: 'unprocessed',
    });
    expect(decided(run.next({ status: 200 }))).toMatchObject({ reason: 'success' });
    expect(run.summary).toMatchObject({ attempts: 2, retries: ['unprocessed'], outcome: 'success' });
  });

  it('the adapter’s own proof (an HTTP/2 REFUSED_STREAM, a GOAWAY below the stream) counts too', () => {
    const run = begin();
    const refused = Object.assign(new Error('stream refused'), { code: 'UND_ERR_SOCKET' });
    expect(decided(run.next({ error: refused, unprocessed: true }))).toMatchObject({ reason: 'unprocessed' });
  });

  it('stops after transparentRetries (default 2); then a POST gets the error', () => {
    const run = begin();
    for (let i = 0; i < 2; i++) {
      expect(decided(run.next({ error: fetchFailed('ECONNREFUSED') }))).toMatchObject({ retry: true });
    }
    expect(decided(run.next({ error: fetchFailed('ECONNREFUSED') }))).toMatchObject({
      retry: false,
      reason: 'method-not-idempotent',
    });
    expect(run.summary).toMatchObject({ attempts: 3, retries: ['unprocessed', 'unprocessed'] });
  });

  it('a GET goes on with its ordinary retries once the transparent ones are used up', () => {
    const run = begin({ maxAttempts: 2, transparentRetries: 1 }, 'GET');
    expect(decided(run.next({ error: fetchFailed('ECONNREFUSED') }))).toMatchObject({
      reason: 'unprocessed',
    });
    expect(decided(run.next({ error: fetchFailed('ECONNREFUSED') }))).toMatchObject({ reason: 'error' });
    expect(decided(run.next({ error: fetchFailed('ECONNREFUSED') }))).toMatchObject({
      retry: false,
      reason: 'max-attempts',
    });
  });

  it('never for an ambiguous failure: a reset, a timeout, a status', () => {
    for (const code of ['ECONNRESET', 'ETIMEDOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_SOCKET']) {
      expect(decided(begin().next({ error: fetchFailed(code) }))).toMatchObject({
        reason: 'method-not-idempotent',
      });
    }
    expect(decided(begin().next({ status: 503 }))).toMatchObject({ reason: 'method-not-idempotent' });
    expect(UNPROCESSED_ERROR_CODES).toEqual([
      'ECONNREFUSED',
      'ENOTFOUND',
      'EAI_AGAIN',
      'UND_ERR_CONNECT_TIMEOUT',
    ]);
  });

  it('never replays a stream, and respects shouldRetry false, the budget, the route and transparentRetries: 0', () => {
    const policy = createRetryPolicy({ random: fixed(0.5) });
    const stream = policy.begin({ method: 'POST', url: 'https://x/', body: 'stream' });
    expect(decided(stream.next({ error: fetchFailed('ECONNREFUSED') }))).toMatchObject({ retry: false });
    expect(
      decided(begin({ shouldRetry: () => false }).next({ error: fetchFailed('ECONNREFUSED') })),
    ).toMatchObject({
      reason: 'should-retry',
    });
    expect(
      decided(begin({ budget: { burst: 1, ratio: 0 } }).next({ error: fetchFailed('ECONNREFUSED') })),
    ).toMatchObject({ retry: true });
    expect(
      decided(begin({ transparentRetries: 0 }).next({ error: fetchFailed('ECONNREFUSED') })),
    ).toMatchObject({
      retry: false,
    });
    expect(() => createRetryPolicy({ transparentRetries: -1 })).toThrow(/"transparentRetries"/);
  });
});
