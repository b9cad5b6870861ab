/**
 * What users of axios-retry would miss, over a real loopback server: a request's own settings (the
 * config's `jitterbug` field), retrying a 2xx whose body says "error" (`shouldRetry` sees the axios
 * response, axios-retry's `validateResponse`), and hooks that return promises.
 */
import type { AttemptInfo } from '@jitterbug/core';
import axios, { type AxiosError, type AxiosResponse } from 'axios';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedServer, startScriptedServer } from '../../../test/support/scripted-server.ts';
import {
  type AxiosAdapterOptions,
  attachRetry,
  createDiscardedBodyCap,
  createHedging,
  getRetryInfo,
} from '../src/index.ts';
import { createTestClient, recordingSleep, rejection, type TestClient } from './helpers.ts';

let server: ScriptedServer;
const clients: TestClient[] = [];
const client = (...args: Parameters<typeof createTestClient>): TestClient => {
  const c = createTestClient(...args);
  clients.push(c);
  return c;
};

beforeAll(async () => {
  server = await startScriptedServer();
});
afterEach(() => {
  for (const c of clients.splice(0)) c.close();
  server.reset();
});
afterAll(async () => {
  await server.close();
});

describe("a request's own settings: the config's jitterbug field", () => {
  it('overrides the policy for that request only', async () => {
    server.route('/five', [{ status: 503 }]);
    const { api } = client(server.url, { maxAttempts: 2 });
    const error = (await rejection(api.get('/five', { jitterbug: { maxAttempts: 5 } }))) as AxiosError;
    expect(error.response?.status).toBe(503);
    expect(server.seen('/five')).toHaveLength(5);
    expect(getRetryInfo(error)).toMatchObject({ attempts: 5, reason: 'max-attempts' });
    server.reset();
    server.route('/five', [{ status: 503 }]);
    await rejection(api.get('/five'));
    expect(server.seen('/five')).toHaveLength(2);
  });

  it('false sends the request once', async () => {
    server.route('/once', [{ status: 503 }, { status: 200 }]);
    const { api } = client(server.url);
    const error = (await rejection(api.get('/once', { jitterbug: false }))) as AxiosError;
    expect(error.response?.status).toBe(503);
    expect(server.seen('/once')).toHaveLength(1);
    expect(getRetryInfo(error)).toMatchObject({ attempts: 1, reason: 'retry-disabled' });
  });

  it('an instance default applies to each request, merged with a request of its own', async () => {
    server.route('/merged', [{ status: 503 }]);
    const delays: number[] = [];
    const api = axios.create({ baseURL: server.url, jitterbug: { maxAttempts: 4 } });
    attachRetry(api, { sleep: recordingSleep(delays), random: () => 0.5 });
    await rejection(api.get('/merged'));
    expect(server.seen('/merged')).toHaveLength(4);
    server.reset();
    server.route('/merged', [{ status: 503 }]);
    await rejection(api.get('/merged', { jitterbug: { statusCodes: [500] } }));
    // The request's statusCodes and the instance's maxAttempts: 503 is no longer retried.
    expect(server.seen('/merged')).toHaveLength(1);
  });

  it('an invalid setting rejects with a TypeError naming it, before anything is sent', async () => {
    const { api } = client(server.url);
    const bad = await rejection(api.get('/never', { jitterbug: { maxAttempts: 0 } }));
    expect(bad).toBeInstanceOf(TypeError);
    expect((bad as Error).message).toContain('"jitterbug.maxAttempts"');
    const notAnObject = await rejection(
      // @ts-expect-error: neither an object nor false.
      api.get('/never', { jitterbug: true }),
    );
    expect(notAnObject).toBeInstanceOf(TypeError);
    expect((notAnObject as Error).message).toContain('"jitterbug"');
    const unknown = await rejection(
      // @ts-expect-error: a call cannot hedge (a policy's or a route's setting).
      api.get('/never', { jitterbug: { hedge: createHedging({ delayMs: 10 }) } }),
    );
    expect((unknown as Error).message).toContain('jitterbug.hedge');
    expect(server.seen('/never')).toHaveLength(0);
  });
});

/** A body that says "error" in a 200, as some APIs answer a rate limit. */
const RATE_LIMITED = '{"error":{"code":"RATE_LIMIT"}}';

/** axios-retry's `validateResponse`, as an `isFailure`: the body is text here (before transformResponse). */
const retryErrorBodies = ({ response }: AttemptInfo): boolean | undefined => {
  const data = (response as AxiosResponse | undefined)?.data;
  if (typeof data !== 'string') return undefined;
  try {
    return (JSON.parse(data) as { error?: { code?: string } }).error?.code === 'RATE_LIMIT' || undefined;
  } catch {
    return undefined;
  }
};

describe.each([
  ['http', 'by default', undefined],
  ['http', 'with discardedBodyCap', { discardedBodyCap: createDiscardedBodyCap() }],
  ['fetch', 'by default', undefined],
  ['fetch', 'with discardedBodyCap', { discardedBodyCap: createDiscardedBodyCap() }],
] as const)('a 2xx whose body says "error" (validateResponse), %s adapter %s', (adapter, _mode, attach) => {
  const setup = (attachOptions: AxiosAdapterOptions | undefined, maxAttempts = 3) =>
    client(server.url, { maxAttempts, isFailure: retryErrorBodies }, { adapter }, attachOptions);

  it('is retried when isFailure says so; the caller gets the next answer, parsed as usual', async () => {
    server.route('/quota', [
      { status: 200, body: RATE_LIMITED, headers: { 'content-type': 'application/json' } },
      { status: 200, body: '{"ok":true}', headers: { 'content-type': 'application/json' } },
    ]);
    const { api, delays } = setup(attach);
    const response = await api.get('/quota');
    expect(response.data).toEqual({ ok: true });
    expect(server.seen('/quota')).toHaveLength(2);
    expect(delays).toHaveLength(1);
    expect(getRetryInfo(response)).toMatchObject({ attempts: 2, retries: ['forced'], outcome: 'success' });
  });

  it('after the last attempt the caller gets that 200 (parsed), the summary says failure', async () => {
    server.route('/always', [
      { status: 200, body: RATE_LIMITED, headers: { 'content-type': 'application/json' } },
    ]);
    const { api } = setup(attach, 2);
    const response = await api.get('/always');
    expect(response.status).toBe(200);
    expect(response.data).toEqual({ error: { code: 'RATE_LIMIT' } });
    expect(server.seen('/always')).toHaveLength(2);
    expect(getRetryInfo(response)).toMatchObject({ attempts: 2, outcome: 'failure', reason: 'max-attempts' });
  });
});

describe('hooks that return promises', () => {
  const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 5));

  it('an async shouldRetry that resolves false stops; one that resolves true retries', async () => {
    server.route('/no', [{ status: 503 }, { status: 200 }]);
    const stops = client(server.url, {
      shouldRetry: async () => {
        await tick();
        return false;
      },
    });
    const error = (await rejection(stops.api.get('/no'))) as AxiosError;
    expect(error.response?.status).toBe(503);
    expect(server.seen('/no')).toHaveLength(1);
    expect(getRetryInfo(error)).toMatchObject({ reason: 'should-retry' });
    server.route('/yes', [{ status: 404 }, { status: 200, body: 'found' }]);
    const retries = client(server.url, {
      shouldRetry: async ({ status }) => {
        await tick();
        return status === 404;
      },
    });
    expect((await retries.api.get('/yes')).data).toBe('found');
  });

  it.each([
    ['shouldRetry', { shouldRetry: () => Promise.reject(new Error('hook failed')) }],
    ['onRetry', { onRetry: () => Promise.reject(new Error('hook failed')) }],
    ['onGiveUp', { maxAttempts: 1, onGiveUp: () => Promise.reject(new Error('hook failed')) }],
    ['onFinish', { maxAttempts: 1, onFinish: () => Promise.reject(new Error('hook failed')) }],
  ] as const)(
    'a rejecting %s fails the request with its error, and nothing more is sent',
    async (_, hook) => {
      server.route('/hook', [{ status: 503 }, { status: 200 }]);
      const { api } = client(server.url, hook);
      const error = await rejection(api.get('/hook'));
      expect(error).toMatchObject({ message: 'hook failed' });
      expect(server.seen('/hook')).toHaveLength(1);
    },
  );

  it('a rejecting onFinish on a success fails the request too', async () => {
    server.route('/fine', [{ status: 200, body: 'ok' }]);
    const { api } = client(server.url, { onFinish: () => Promise.reject(new Error('finish failed')) });
    expect(await rejection(api.get('/fine'))).toMatchObject({ message: 'finish failed' });
  });

  it('an async onRetry is awaited before the wait starts', async () => {
    server.route('/slow-hook', [{ status: 503 }, { status: 200, body: 'ok' }]);
    const order: string[] = [];
    const api = axios.create({ baseURL: server.url });
    attachRetry(api, {
      random: () => 0.5,
      onRetry: async () => {
        order.push('onRetry started');
        await tick();
        order.push('onRetry done');
      },
      sleep: async () => {
        order.push('wait');
      },
    });
    expect((await api.get('/slow-hook')).data).toBe('ok');
    expect(order).toEqual(['onRetry started', 'onRetry done', 'wait']);
  });
});
