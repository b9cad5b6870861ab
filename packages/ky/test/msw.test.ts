/**
 * msw (Node, msw 3) with ky's default global fetch: msw answers every attempt, so the hooks'
 * decisions can be tested with msw handlers, on ky 2 and ky 1.
 */
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { getRetryInfo, kyRetry } from '../src/index.ts';
import { kys, recordingSleep } from './helpers.ts';

const seen: { key: string | null; body: string }[] = [];
let answers: { status: number; headers?: Record<string, string> }[] = [];
const server = setupServer(
  http.post('http://api.test/orders', async ({ request }) => {
    seen.push({ key: request.headers.get('idempotency-key'), body: await request.text() });
    const answer = answers.shift() ?? { status: 200 };
    return new HttpResponse(answer.status === 200 ? 'created' : 'busy', answer);
  }),
  http.get('http://api.test/limited', () => {
    seen.push({ key: null, body: '' });
    const answer = answers.shift() ?? { status: 200 };
    return new HttpResponse(answer.status === 200 ? 'fine' : 'slow down', answer);
  }),
);
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterAll(() => server.close());
beforeEach(() => {
  seen.length = 0;
  answers = [];
});

describe.each(kys)('%s under msw', (_name, ky) => {
  it('POST with Idempotency-Key: retried on 503 and 429 with the same key and body', async () => {
    answers = [{ status: 503 }, { status: 429 }];
    const { sleep, waits } = recordingSleep();
    const api = ky.create(kyRetry({ sleep, random: () => 0.5 }));
    const response = await api.post('http://api.test/orders', {
      json: { n: 1 },
      headers: { 'Idempotency-Key': 'abc' },
    });
    expect(await response.text()).toBe('created');
    expect(seen).toEqual(Array(3).fill({ key: 'abc', body: '{"n":1}' }));
    expect(waits).toHaveLength(2);
    expect(getRetryInfo(response)).toMatchObject({ attempts: 3, outcome: 'success' });
  });

  it('POST without a key: one request, HTTPError', async () => {
    answers = [{ status: 503 }];
    const api = ky.create(kyRetry({ sleep: async () => {} }));
    await expect(api.post('http://api.test/orders', { body: 'x' })).rejects.toMatchObject({
      name: 'HTTPError',
    });
    expect(seen).toHaveLength(1);
  });

  it('429 with Retry-After: the server delay, then the answer', async () => {
    answers = [{ status: 429, headers: { 'Retry-After': '3' } }];
    const { sleep, waits } = recordingSleep();
    const api = ky.create(kyRetry({ sleep, random: () => 0 }));
    expect(await api.get('http://api.test/limited').text()).toBe('fine');
    expect(waits).toEqual([3000]);
    expect(seen).toHaveLength(2);
  });
});
