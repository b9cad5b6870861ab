/**
 * msw with Node's global `fetch` and a jitterbug dispatcher: msw answers every attempt, so the
 * interceptor's retries can be tested with msw handlers. (msw does not see undici's own `request()`
 * and `fetch()`: those are tested against the scripted server, or with undici's `MockAgent`.)
 */
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { Agent } from 'undici';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type RetryInfo, retryInterceptor } from '../src/index.ts';
import { recordingSleep } from './helpers.ts';

const seen: { key: string | null; body: string }[] = [];
let answers: number[] = [];
const server = setupServer(
  http.post('http://api.test/orders', async ({ request }) => {
    seen.push({ key: request.headers.get('idempotency-key'), body: await request.text() });
    const status = answers.shift() ?? 200;
    return new HttpResponse(status === 200 ? 'created' : 'busy', { status });
  }),
);
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterAll(() => server.close());

test('global fetch + jitterbug dispatcher under msw: POST with Idempotency-Key retried with the same key and body', async () => {
  answers = [503, 429];
  const summaries: RetryInfo[] = [];
  const { sleep } = recordingSleep();
  const agent = new Agent();
  const dispatcher = agent.compose(
    retryInterceptor({ sleep, random: () => 0.5, onFinish: (s) => summaries.push(s) }),
  );
  try {
    const res = await fetch('http://api.test/orders', {
      method: 'POST',
      headers: { 'Idempotency-Key': 'abc', 'content-type': 'application/json' },
      body: JSON.stringify({ n: 1 }),
      dispatcher,
    } as RequestInit);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('created');
  } finally {
    await agent.close();
  }
  expect(seen).toEqual(Array(3).fill({ key: 'abc', body: '{"n":1}' }));
  expect(summaries).toMatchObject([{ attempts: 3, outcome: 'success' }]);
});
