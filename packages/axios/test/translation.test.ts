/**
 * The translation layer on its own: axios results to the core's terms and back, with no network
 * (a custom adapter stands in for the real one; axios calls it like its own).
 */
import axios, {
  AxiosError,
  AxiosHeaders,
  type AxiosResponse,
  CanceledError,
  type InternalAxiosRequestConfig,
} from 'axios';
import { describe, expect, it } from 'vitest';
import { callerCancellation } from '../src/abort.ts';
import { AxiosTransportError, attachRetry, getRetryInfo } from '../src/index.ts';
import { convertBody } from '../src/node/http-body.ts';
import { errorResult, headersOf, isStatusRejection, statusResult } from '../src/outcome.ts';
import { settle } from '../src/response-body.ts';
import { recordingSleep, rejection } from './helpers.ts';

const config = (extra: Partial<InternalAxiosRequestConfig> = {}): InternalAxiosRequestConfig => ({
  headers: new AxiosHeaders(),
  validateStatus: (s: number) => s >= 200 && s < 300,
  ...extra,
});

const response = (status: number, c = config(), data: unknown = ''): AxiosResponse => ({
  status,
  statusText: '',
  headers: new AxiosHeaders({ 'Retry-After': '3' }),
  config: c,
  data,
  request: {},
});

describe('outcome', () => {
  it('tells a validateStatus rejection from a body failure that also carries the response', () => {
    const r = response(503);
    const rejected = (() => {
      try {
        settle(r);
      } catch (e) {
        return e;
      }
    })();
    expect(isStatusRejection(rejected)).toBe(true);
    const aborted = new AxiosError('stream has been aborted', 'ERR_BAD_RESPONSE', r.config, {}, r);
    expect(isStatusRejection(aborted)).toBe(false);
    expect(isStatusRejection(new AxiosError('socket hang up', 'ECONNRESET'))).toBe(false);
    expect(isStatusRejection(new Error('Request failed with status code 503'))).toBe(false);
  });

  it('maps only the honest cases to error codes the core knows', () => {
    const aborted = new AxiosError('stream has been aborted', 'ERR_BAD_RESPONSE');
    const mapped = errorResult(aborted, true);
    expect(mapped).toEqual({ error: expect.any(AxiosTransportError) });
    expect(mapped).toMatchObject({ error: { code: 'ECONNRESET', cause: aborted } });
    // axios' timeout: http's and xhr's ECONNABORTED (the message is axios' or timeoutErrorMessage).
    const timeout = new AxiosError('timeout of 5ms exceeded', 'ECONNABORTED');
    expect(errorResult(timeout, true)).toMatchObject({ error: { code: 'ETIMEDOUT', cause: timeout } });
    // The xhr adapter's ECONNABORTED for a request the browser aborted is not a timeout: left alone.
    const browserAbort = new AxiosError('Request aborted', 'ECONNABORTED');
    expect(errorResult(browserAbort, true)).toEqual({ error: browserAbort, aborted: false });
    const reset = new AxiosError('socket hang up', 'ECONNRESET');
    expect(errorResult(reset, true)).toEqual({ error: reset, aborted: false });
    const plain = new TypeError('x');
    expect(errorResult(plain, true)).toEqual({ error: plain });
  });

  it("reads the socket's code under ERR_NETWORK, and reports one without a code as ERR_NETWORK", () => {
    const socket = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
    const network = new AxiosError('Network Error', 'ERR_NETWORK', undefined, undefined, undefined);
    network.cause = socket;
    expect(errorResult(network, true)).toMatchObject({ error: { code: 'UND_ERR_SOCKET', cause: network } });
    const refused = new AxiosError('Network Error', 'ERR_NETWORK');
    refused.cause = new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } });
    expect(errorResult(refused, true)).toMatchObject({ error: { code: 'ECONNREFUSED', cause: refused } });
    // The xhr adapter's (no cause) and a browser fetch's (the code-less TypeError as its cause).
    const xhr = new AxiosError('Network Error', 'ERR_NETWORK');
    expect(errorResult(xhr, true)).toEqual({ error: xhr, code: 'ERR_NETWORK' });
    const browserFetch = new AxiosError('Network Error', 'ERR_NETWORK');
    browserFetch.cause = new TypeError('Failed to fetch');
    expect(errorResult(browserFetch, true)).toEqual({ error: browserFetch, code: 'ERR_NETWORK' });
  });

  it('reports a cancel as aborted only when the caller cancelled', () => {
    const cancel = new CanceledError();
    expect(errorResult(cancel, true)).toMatchObject({ aborted: true });
    expect(errorResult(cancel, false)).toMatchObject({ aborted: false });
    expect(errorResult(new AxiosError('x', 'ECONNRESET'), true)).toMatchObject({ aborted: false });
  });

  it('shows shouldRetry the response with its data', () => {
    const r = response(200, config(), '{"error":{"code":"RATE_LIMIT"}}');
    expect(statusResult(r, 65_536)).toMatchObject({ status: 200, response: r });
  });

  it('reads response headers in any case', () => {
    const get = headersOf(response(429));
    expect(get('retry-after')).toBe('3');
    expect(get('RETRY-AFTER')).toBe('3');
    expect(get('x-none')).toBeUndefined();
  });
});

describe('response body conversion (as the buffering http adapter)', () => {
  const body = Buffer.from('\ufeffhé', 'utf8');
  it('arraybuffer keeps the Buffer', () => {
    expect(convertBody(body, response(200), config({ responseType: 'arraybuffer' }))).toBe(body);
  });
  it('text strips a UTF-8 BOM', () => {
    expect(convertBody(body, response(200), config({ responseType: 'text' }))).toBe('hé');
  });
  it('another encoding keeps every character', () => {
    expect(convertBody(body, response(200), config({ responseEncoding: 'latin1' }))).toBe(
      body.toString('latin1'),
    );
  });
  it('settle resolves what validateStatus accepts, or has none', () => {
    expect(settle(response(200))).toBeDefined();
    expect(settle(response(500, config({ validateStatus: null })))).toBeDefined();
    expect(() => settle(response(404))).toThrow(
      expect.objectContaining({ code: 'ERR_BAD_REQUEST', status: 404 }),
    );
  });
});

describe('caller cancellation', () => {
  it('none without signal or token', () => {
    expect(callerCancellation(config())).toBeUndefined();
  });
  it('a signal becomes a CanceledError, as axios makes it', () => {
    const controller = new AbortController();
    const c = config({ signal: controller.signal });
    const linked = callerCancellation(c)!;
    controller.abort(new Error('mine'));
    expect(linked.signal.aborted).toBe(true);
    expect(linked.signal.reason).toBeInstanceOf(CanceledError);
    expect((linked.signal.reason as CanceledError<unknown>).config).toBe(c);
    linked.dispose();
  });
  it("a CancelToken gives the token's reason; dispose unsubscribes", async () => {
    const source = axios.CancelToken.source();
    const linked = callerCancellation(config({ cancelToken: source.token }))!;
    linked.dispose();
    source.cancel('later');
    await source.token.promise;
    await new Promise((r) => setTimeout(r, 0));
    expect(linked.signal.aborted).toBe(false);
    const source2 = axios.CancelToken.source();
    const linked2 = callerCancellation(config({ cancelToken: source2.token }))!;
    source2.cancel('now');
    // A token notifies its subscribers from a promise callback.
    await new Promise((r) => setTimeout(r, 0));
    expect(linked2.signal.reason).toBe(source2.token.reason);
  });
});

describe('through a custom adapter', () => {
  type Script = (config: InternalAxiosRequestConfig) => Promise<AxiosResponse>;
  const setup = (script: Script[], options: Parameters<typeof attachRetry>[1] = {}) => {
    const seen: InternalAxiosRequestConfig[] = [];
    const adapter = (c: InternalAxiosRequestConfig) => {
      seen.push(c);
      return script[Math.min(seen.length - 1, script.length - 1)]!(c);
    };
    const delays: number[] = [];
    const api = axios.create({ adapter });
    attachRetry(api, { sleep: recordingSleep(delays), random: () => 0.5, ...options });
    return { api, seen, adapter, delays };
  };
  const status =
    (code: number, data = ''): Script =>
    async (c) =>
      settle({ ...response(code, c, data), headers: new AxiosHeaders() });
  const fail =
    (code: string): Script =>
    async (c) => {
      throw new AxiosError(code, code, c, {});
    };

  it('retries on the statuses axios rejects, and the caller sees its own config', async () => {
    const { api, seen, adapter } = setup([status(503), status(502), status(200, 'done')]);
    const r = await api.put('http://x.test/a', { a: 1 });
    expect(r.data).toBe('done');
    expect(seen).toHaveLength(3);
    expect(seen.map((c) => c.data)).toEqual(Array(3).fill('{"a":1}'));
    expect(r.config.adapter).toBe(adapter);
    // Attempts run on the caller's own config (a copy costs more than the rest of the retry layer)
    // and leave it as the caller made it.
    expect(seen[0]).toBe(r.config);
    expect(Object.hasOwn(r.config, 'responseType')).toBe(false);
    expect(getRetryInfo(r)).toMatchObject({ attempts: 3 });
    expect(getRetryInfo(r.config)).toBe(getRetryInfo(r));
  });

  it('retries transient error codes, not others', async () => {
    const a = setup([fail('ECONNRESET'), status(200)]);
    await a.api.get('http://x.test/a');
    expect(a.seen).toHaveLength(2);
    const b = setup([fail('EPROTO'), status(200)]);
    const error = (await rejection(b.api.get('http://x.test/a'))) as AxiosError;
    expect(error.code).toBe('EPROTO');
    expect(b.seen).toHaveLength(1);
    expect(getRetryInfo(error)).toMatchObject({ reason: 'error-not-retryable', error });
  });

  it('a failure that proves nothing was sent (ENOTFOUND) is retried transparently, even a POST', async () => {
    const { api, seen } = setup([fail('ENOTFOUND'), status(201, 'made')]);
    const r = await api.post('http://x.test/a', { a: 1 });
    expect(r.data).toBe('made');
    expect(seen).toHaveLength(2);
    expect(getRetryInfo(r)).toMatchObject({ attempts: 2, retries: ['unprocessed'] });
  });

  it('the per-attempt timeout reaches the adapter as a signal; the caller signal still aborts it', async () => {
    const hang: Script = (c) =>
      new Promise((_, reject) =>
        c.signal?.addEventListener?.('abort', () => reject(new CanceledError(undefined, c))),
      );
    const { api, seen } = setup([hang, status(200, 'ok')], { attemptTimeoutMs: 20 });
    expect((await api.get('http://x.test/a')).data).toBe('ok');
    expect(seen).toHaveLength(2);
  });

  it('registers one synchronous request interceptor and removes it', () => {
    const api = axios.create();
    const detach = attachRetry(api);
    const handlers = (
      api.interceptors.request as unknown as { handlers: ({ synchronous: boolean } | null)[] }
    ).handlers;
    expect(handlers.filter(Boolean)).toHaveLength(1);
    expect(handlers.find(Boolean)?.synchronous).toBe(true);
    detach();
    expect(handlers.filter(Boolean)).toHaveLength(0);
  });

  it('attached again, the new settings replace the first: one interceptor, never nested retries', async () => {
    const { api, seen } = setup([status(503)], { maxAttempts: 2 });
    const interceptors = () =>
      (api.interceptors.request as unknown as { handlers: unknown[] }).handlers.filter(Boolean);
    const detachFirst = attachRetry(api, { maxAttempts: 5, sleep: async () => {} });
    const detach = attachRetry(api, { maxAttempts: 3, sleep: async () => {} });
    expect(interceptors()).toHaveLength(1);
    await rejection(api.get('http://x.test/a'));
    expect(seen).toHaveLength(3);
    // A replaced attachment's detach does nothing; the last one's takes jitterbug out.
    detachFirst();
    expect(interceptors()).toHaveLength(1);
    detach();
    expect(interceptors()).toHaveLength(0);
  });

  it('rejects invalid options when attaching', () => {
    expect(() => attachRetry(axios.create(), { maxAttempts: 0 })).toThrow(TypeError);
  });
});
