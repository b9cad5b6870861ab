/** The core helper this adapter added (`mayRetry`), tested where it is used. */
import { createRetryPolicy } from '@jitterbug/core';
import { mayRetry } from '@jitterbug/core/adapter';
import { expect, test } from 'vitest';

const none = () => undefined;
const withKey = (name: string) => (name.toLowerCase() === 'idempotency-key' ? 'k-1' : undefined);

test('a retry is possible for idempotent methods, or with an idempotency key', () => {
  const { options } = createRetryPolicy();
  expect(mayRetry(options, 'GET', none)).toBe(true);
  expect(mayRetry(options, 'put', none)).toBe(true);
  expect(mayRetry(options, 'POST', none)).toBe(false);
  expect(mayRetry(options, 'POST', withKey)).toBe(true);
});

test('never with maxAttempts 1 or a route with retry: false, nor for a POST without a key, a shouldRetry hook or not', () => {
  expect(mayRetry(createRetryPolicy({ maxAttempts: 1 }).options, 'GET', none)).toBe(false);
  const routed = createRetryPolicy({ routes: [{ match: '/off/*', retry: false }] });
  expect(mayRetry(routed.resolve('GET', 'http://h/off/1'), 'GET', none)).toBe(false);
  expect(mayRetry(createRetryPolicy({ shouldRetry: () => true }).options, 'POST', none)).toBe(false);
  expect(mayRetry(createRetryPolicy({ idempotencyKey: false }).options, 'POST', withKey)).toBe(false);
});
