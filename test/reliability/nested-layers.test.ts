/**
 * Nested retry layers (issue 26): when a jitterbug layer sends through another — a wrapped fetch, a
 * dispatcher composed with `retryInterceptor` under Node's fetch, ky or axios, two composed
 * interceptors — only the outer layer retries: a 503 that never clears reaches the server
 * `maxAttempts` times, not `maxAttempts²`, and the caller's summary is the outer layer's.
 */
import { attachRetry } from '@jitterbug/axios';
import type { RetryOptions } from '@jitterbug/core';
import { getRetryInfo, withRetry } from '@jitterbug/fetch';
import { kyRetry } from '@jitterbug/ky';
import { retryInterceptor } from '@jitterbug/undici';
import axios from 'axios';
import ky from 'ky';
import { Agent, getGlobalDispatcher, request, setGlobalDispatcher, fetch as undiciFetch } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedServer, startScriptedServer } from '../support/scripted-server.ts';

/** No real waits; a budget that would not stop a square (9) either. */
const OUTER: RetryOptions = { maxAttempts: 3, sleep: async () => {}, budget: false };
const INNER: RetryOptions = { maxAttempts: 5, sleep: async () => {}, budget: false };

let server: ScriptedServer;
const agents: Agent[] = [];
const agent = (): Agent => {
  const made = new Agent();
  agents.push(made);
  return made;
};
const retryingAgent = () => agent().compose(retryInterceptor(INNER));

beforeAll(async () => {
  server = await startScriptedServer();
});
afterEach(() => server.reset());
afterAll(async () => {
  for (const a of agents) await a.close();
  await server.close();
});

/** Routes `path` to a 503 that never clears, runs `send`, and returns how often the server saw it. */
const timesSent = async (path: string, send: (url: string) => Promise<unknown>): Promise<number> => {
  server.route(path, [{ status: 503, body: 'down' }]);
  await send(`${server.url}${path}`).catch(() => undefined);
  return server.seen(path).length;
};

describe('nested retry layers: only the outer one retries', () => {
  it('withRetry(withRetry(fetch))', async () => {
    const inner = withRetry((input: string, init?: RequestInit) => fetch(input, init), INNER);
    const outer = withRetry(inner, OUTER);
    let info: unknown;
    expect(
      await timesSent('/fetch-fetch', async (url) => {
        info = getRetryInfo(await outer(url));
      }),
    ).toBe(3);
    expect(info).toMatchObject({ attempts: 3, reason: 'max-attempts' });
  });

  it('withRetry over Node’s fetch through a dispatcher composed with retryInterceptor', async () => {
    const dispatcher = retryingAgent();
    const outer = withRetry(
      (input: string, init?: RequestInit) => fetch(input, { ...init, dispatcher } as RequestInit),
      OUTER,
    );
    expect(await timesSent('/fetch-interceptor', outer)).toBe(3);
  });

  it('withRetry over the global fetch with setGlobalDispatcher(retryInterceptor) (the README quick starts together)', async () => {
    const before = getGlobalDispatcher();
    setGlobalDispatcher(retryingAgent());
    try {
      const outer = withRetry(undiciFetch, OUTER);
      expect(await timesSent('/global', (url) => outer(url))).toBe(3);
    } finally {
      setGlobalDispatcher(before);
    }
  });

  it('ky over a wrapped fetch', async () => {
    const api = ky.create({
      ...kyRetry(OUTER, {
        fetch: withRetry((input: string | Request | URL, init?: RequestInit) => fetch(input, init), INNER),
      }),
      throwHttpErrors: false,
    });
    expect(await timesSent('/ky-fetch', (url) => api.get(url))).toBe(3);
  });

  it('ky over a dispatcher that retries', async () => {
    const dispatcher = retryingAgent();
    const api = ky.create({
      ...kyRetry(OUTER, {
        fetch: (input, init) => fetch(input, { ...init, dispatcher } as RequestInit),
      }),
      throwHttpErrors: false,
    });
    expect(await timesSent('/ky-interceptor', (url) => api.get(url))).toBe(3);
  });

  it('two composed interceptors (undici request())', async () => {
    const dispatcher = agent().compose(retryInterceptor(INNER), retryInterceptor(OUTER));
    const statuses: number[] = [];
    expect(
      await timesSent('/interceptors', async (url) => {
        const { statusCode, body } = await request(url, { dispatcher });
        statuses.push(statusCode);
        await body.dump();
      }),
    ).toBe(3);
    expect(statuses).toEqual([503]);
  });

  it('axios (its fetch adapter) over a dispatcher that retries', async () => {
    const dispatcher = retryingAgent();
    const api = axios.create({
      adapter: 'fetch',
      fetchOptions: { dispatcher } as RequestInit,
      validateStatus: () => true,
    });
    attachRetry(api, OUTER);
    expect(await timesSent('/axios-interceptor', (url) => api.get(url))).toBe(3);
  });

  it('a layer alone still retries as it did: the inner options are used when no outer layer sends', async () => {
    const dispatcher = retryingAgent();
    expect(
      await timesSent('/alone', async (url) => {
        const { body } = await request(url, { dispatcher });
        await body.dump();
      }),
    ).toBe(5);
  });
});
