/**
 * Testing code that uses the interceptor without a server: undici's `MockAgent` composed with it.
 * (msw does not fit here: it replaces `fetch` itself, so no dispatcher, and no interceptor, runs.)
 */
import { MockAgent, request } from 'undici';
import { expect, test } from 'vitest';
import { retryInterceptor } from '../src/index.ts';
import { recordingSleep } from './helpers.ts';

test('a MockAgent composed with retryInterceptor: 503 then 200', async () => {
  const mock = new MockAgent();
  mock.disableNetConnect();
  const pool = mock.get('http://api.test');
  pool.intercept({ path: '/items/1', method: 'GET' }).reply(503, 'busy');
  pool.intercept({ path: '/items/1', method: 'GET' }).reply(200, 'ok');
  const { sleep, delays } = recordingSleep();
  const dispatcher = mock.compose(retryInterceptor({ sleep, random: () => 0.5 }));
  const res = await request('http://api.test/items/1', { dispatcher });
  expect(res.statusCode).toBe(200);
  expect(await res.body.text()).toBe('ok');
  expect(delays).toHaveLength(1);
  mock.assertNoPendingInterceptors();
  await mock.close();
});
