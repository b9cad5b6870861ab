/**
 * A network failure reported without a socket code: axios' xhr adapter and its fetch adapter in a
 * browser reject every one with `ERR_NETWORK` and nothing under it. It reaches the core as
 * `ERR_NETWORK` (retried for an idempotent request, as a browser gives nothing better); one with a
 * socket code under it (Node's fetch) reaches it as that code.
 */
import { once } from 'node:events';
import { createServer } from 'node:net';
import type { AttemptInfo } from '@jitterbug/core';
import axios, {
  type AxiosAdapter,
  AxiosError,
  AxiosHeaders,
  type AxiosResponse,
  type InternalAxiosRequestConfig,
  isAxiosError,
} from 'axios';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedServer, startScriptedServer } from '../../../test/support/scripted-server.ts';
import { attachRetry, getRetryInfo } from '../src/index.ts';
import { recordingSleep, rejection } from './helpers.ts';

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(async () => {
  await server.close();
});

/**
 * A stand-in for axios' xhr adapter, which needs a browser's `XMLHttpRequest`: it fails the first
 * `failures` attempts exactly as that adapter's `onerror` does (axios 1.x `lib/adapters/xhr.js`),
 * then answers 200.
 */
const xhrLike = (failures: number): { adapter: AxiosAdapter; calls: () => number } => {
  let calls = 0;
  const adapter = async (config: InternalAxiosRequestConfig): Promise<AxiosResponse> => {
    calls++;
    const request = {};
    if (calls <= failures) {
      const error = new AxiosError('Network Error', AxiosError.ERR_NETWORK, config, request);
      Object.assign(error, { event: { type: 'error' } });
      throw error;
    }
    return { data: 'ok', status: 200, statusText: 'OK', headers: new AxiosHeaders(), config, request };
  };
  return { adapter, calls: () => calls };
};

describe("the xhr adapter's ERR_NETWORK (no code under it)", () => {
  const setup = (failures: number, shouldRetry?: (info: AttemptInfo) => undefined) => {
    const xhr = xhrLike(failures);
    const api = axios.create({ adapter: xhr.adapter });
    attachRetry(api, {
      sleep: recordingSleep([]),
      random: () => 0.5,
      ...(shouldRetry ? { shouldRetry } : {}),
    });
    return { api, calls: xhr.calls };
  };

  it('is retried for a GET, and shouldRetry sees the axios error', async () => {
    const seen: unknown[] = [];
    const { api, calls } = setup(2, ({ error }) => {
      seen.push(error);
      return undefined;
    });
    const response = await api.get('http://api.test/items');
    expect(response.data).toBe('ok');
    expect(calls()).toBe(3);
    expect(getRetryInfo(response)).toMatchObject({ attempts: 3, retries: ['error', 'error'] });
    expect(seen.slice(0, 2)).toEqual([
      expect.objectContaining({ code: 'ERR_NETWORK', isAxiosError: true }),
      expect.objectContaining({ code: 'ERR_NETWORK', isAxiosError: true }),
    ]);
  });

  it('is not retried for a POST without an idempotency key; the caller gets axios error', async () => {
    const { api, calls } = setup(1);
    const error = (await rejection(api.post('http://api.test/items', { a: 1 }))) as AxiosError;
    expect(error.code).toBe('ERR_NETWORK');
    expect(calls()).toBe(1);
    expect(getRetryInfo(error)).toMatchObject({ attempts: 1, reason: 'method-not-idempotent' });
  });

  it('after the last attempt the caller gets the ERR_NETWORK axios gave', async () => {
    const { api, calls } = setup(10);
    const error = (await rejection(api.get('http://api.test/items'))) as AxiosError;
    expect(isAxiosError(error)).toBe(true);
    expect(error.code).toBe('ERR_NETWORK');
    expect(calls()).toBe(3);
    expect(getRetryInfo(error)).toMatchObject({ attempts: 3, reason: 'max-attempts' });
  });
});

describe("axios' fetch adapter", () => {
  it("with a browser's fetch (a TypeError and no code): ERR_NETWORK, retried for a GET", async () => {
    server.route('/browser', [{ status: 200, body: 'ok' }]);
    let calls = 0;
    // What Chromium rejects with ("Failed to fetch"); Firefox and Safari word it otherwise, with no code either.
    const browserFetch = async (input: URL | Request | string, init?: RequestInit): Promise<Response> => {
      calls++;
      if (calls === 1) throw new TypeError('Failed to fetch');
      return fetch(input, init);
    };
    const api = axios.create({ baseURL: server.url, adapter: 'fetch', env: { fetch: browserFetch } });
    const errors: unknown[] = [];
    attachRetry(api, {
      sleep: recordingSleep([]),
      onRetry: ({ error }) => {
        errors.push(error);
      },
    });
    const response = await api.get('/browser');
    expect(response.data).toBe('ok');
    expect(calls).toBe(2);
    expect(errors).toEqual([expect.objectContaining({ code: 'ERR_NETWORK', message: 'Network Error' })]);
    expect(getRetryInfo(response)).toMatchObject({ attempts: 2, retries: ['error'] });
  });

  it('a refused connection (ECONNREFUSED under ERR_NETWORK) is retried transparently, even a POST', async () => {
    // A port nothing listens on any more.
    const probe = createServer().listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const { port } = probe.address() as { port: number };
    probe.close();
    await once(probe, 'close');
    const api = axios.create({ baseURL: `http://127.0.0.1:${port}`, adapter: 'fetch' });
    attachRetry(api, { sleep: recordingSleep([]), transparentRetries: 2 });
    const error = (await rejection(api.post('/orders', { a: 1 }))) as AxiosError;
    expect(error.code).toBe('ERR_NETWORK');
    // Nothing ever reached a server: sent again twice whatever the method, then not retried as a POST.
    expect(getRetryInfo(error)).toMatchObject({
      attempts: 3,
      retries: ['unprocessed', 'unprocessed'],
      reason: 'method-not-idempotent',
    });
  });
});
