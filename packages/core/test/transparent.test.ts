/**
 * Transparent retries (gRFC A6): a failure that proves the request never reached the server's
 * application is sent again whatever the method, on a limit of its own.
 */
import { createRetryPolicy, type RetryOptions } from '@jitterbug/core';
import { describe, expect, it } from 'vitest';
import { UNPROCESSED_ERROR_CODES } from '../src/errors.ts';
import { decideOn } from './decisions.ts';
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
    expect(decided(decideOn(run, { error: fetchFailed('ECONNREFUSED') }))).toMatchObject({
      retry: true,
      reason: 'unprocessed',
    });
    expect(decided(decideOn(run, { status: 200 }))).toMatchObject({ reason: 'success' });
    expect(run.summary).toMatchObject({ attempts: 2, retries: ['unprocessed'], outcome: 'success' });
  });

  it('the adapter’s own proof (an HTTP/2 REFUSED_STREAM, a GOAWAY below the stream) counts too', () => {
    const run = begin();
    const refused = Object.assign(new Error('stream refused'), { code: 'UND_ERR_SOCKET' });
    expect(decided(decideOn(run, { error: refused, unprocessed: true }))).toMatchObject({
      reason: 'unprocessed',
    });
  });

  it('stops after transparentRetries (default 2); then a POST gets the error', () => {
    const run = begin();
    for (let i = 0; i < 2; i++) {
      expect(decided(decideOn(run, { error: fetchFailed('ECONNREFUSED') }))).toMatchObject({ retry: true });
    }
    expect(decided(decideOn(run, { error: fetchFailed('ECONNREFUSED') }))).toMatchObject({
      retry: false,
      reason: 'method-not-idempotent',
    });
    expect(run.summary).toMatchObject({ attempts: 3, retries: ['unprocessed', 'unprocessed'] });
  });

  it('goes on while the policy’s other requests are answered (a server rotating its connections), up to ten times transparentRetries', () => {
    const policy = createRetryPolicy({ random: fixed(0.5) });
    const refused = () => ({ error: new Error('GOAWAY above the last stream'), unprocessed: true });
    const post = policy.begin({ method: 'POST', url: 'https://api.example.com/charge', body: 'replayable' });
    for (let i = 0; i < 19; i++) {
      // Between two refusals of this POST, another request of the policy gets an answer.
      decided(
        decideOn(policy.begin({ method: 'GET', url: 'https://api.example.com/items' }), { status: 200 }),
      );
      expect(decided(decideOn(post, refused()))).toMatchObject({
        retry: true,
        reason: 'unprocessed',
        delayMs: 50,
      });
    }
    decided(decideOn(policy.begin({ method: 'GET', url: 'https://api.example.com/items' }), { status: 200 }));
    expect(decided(decideOn(post, refused()))).toMatchObject({ retry: true, reason: 'unprocessed' });
    decided(decideOn(policy.begin({ method: 'GET', url: 'https://api.example.com/items' }), { status: 200 }));
    // The twenty-first refusal is the caller's: an error with no code of its own is not retried.
    expect(decided(decideOn(post, refused()))).toMatchObject({ retry: false, reason: 'error-not-retryable' });
    expect(post.summary).toMatchObject({ attempts: 21, outcome: 'failure' });
    // Free of the budget: every one of them was made with the default budget of 10 tokens.
    expect(policy.options.feature.budget?.tokens).toBe(10);
  });

  it('a server that refuses everything (no answer in between) still ends the request after transparentRetries in a row', () => {
    const policy = createRetryPolicy({ random: fixed(0.5) });
    const post = policy.begin({ method: 'POST', url: 'https://api.example.com/charge', body: 'replayable' });
    decided(decideOn(policy.begin({ method: 'GET', url: 'https://api.example.com/items' }), { status: 200 }));
    const refused = { error: fetchFailed('ECONNREFUSED') };
    // The answer before its first refusal counts as progress for that one; then two in a row without.
    for (let i = 0; i < 3; i++) expect(decided(decideOn(post, refused))).toMatchObject({ retry: true });
    expect(decided(decideOn(post, refused))).toMatchObject({ retry: false, reason: 'method-not-idempotent' });
  });

  it('a GET goes on with its ordinary retries once the transparent ones are used up', () => {
    const run = begin({ maxAttempts: 2, transparentRetries: 1 }, 'GET');
    expect(decided(decideOn(run, { error: fetchFailed('ECONNREFUSED') }))).toMatchObject({
      reason: 'unprocessed',
    });
    expect(decided(decideOn(run, { error: fetchFailed('ECONNREFUSED') }))).toMatchObject({ reason: 'error' });
    expect(decided(decideOn(run, { error: fetchFailed('ECONNREFUSED') }))).toMatchObject({
      retry: false,
      reason: 'max-attempts',
    });
  });

  it('never for an ambiguous failure: a reset, a timeout, a status', () => {
    for (const code of ['ECONNRESET', 'ETIMEDOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_SOCKET']) {
      expect(decided(decideOn(begin(), { error: fetchFailed(code) }))).toMatchObject({
        reason: 'method-not-idempotent',
      });
    }
    expect(decided(decideOn(begin(), { status: 503 }))).toMatchObject({ reason: 'method-not-idempotent' });
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
    expect(decided(decideOn(stream, { error: fetchFailed('ECONNREFUSED') }))).toMatchObject({ retry: false });
    expect(
      decided(decideOn(begin({ shouldRetry: () => false }), { error: fetchFailed('ECONNREFUSED') })),
    ).toMatchObject({
      reason: 'should-retry',
    });
    expect(
      decided(decideOn(begin({ budget: { burst: 1, ratio: 0 } }), { error: fetchFailed('ECONNREFUSED') })),
    ).toMatchObject({ retry: true });
    expect(
      decided(decideOn(begin({ transparentRetries: 0 }), { error: fetchFailed('ECONNREFUSED') })),
    ).toMatchObject({
      retry: false,
    });
    expect(() => createRetryPolicy({ transparentRetries: -1 })).toThrow(/"transparentRetries"/);
  });
});
