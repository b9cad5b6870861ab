/**
 * attachRetry against a real loopback server: what the server saw, what the caller got, and the
 * delays the policy asked for (through an injected sleep).
 */
import { Readable } from 'node:stream';
import axios, { AxiosError, isCancel } from 'axios';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedServer, startScriptedServer } from '../../../test/support/scripted-server.ts';
import {
  type AxiosAdapterOptions,
  createBodyBuffering,
  createDiscardedBodyCap,
  getRetryInfo,
} from '../src/index.ts';
import { createTestClient, rejection, type TestClient } from './helpers.ts';

/** `attachRetry`'s opt-in stream mode. */
const CAPPED: AxiosAdapterOptions = { discardedBodyCap: createDiscardedBodyCap() };

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

describe('statuses', () => {
  it('retries 503 then resolves with the 200', async () => {
    server.route('/a', [{ status: 503 }, { status: 200, body: 'ok' }]);
    const { api, delays } = client(server.url);
    const response = await api.get('/a');
    expect(response.status).toBe(200);
    expect(response.data).toBe('ok');
    expect(server.seen('/a')).toHaveLength(2);
    expect(delays).toHaveLength(1);
    expect(getRetryInfo(response)).toMatchObject({
      attempts: 2,
      outcome: 'success',
      totalDelayMs: delays[0],
    });
  });

  it('always 503: maxAttempts requests, then the rejection axios gives', async () => {
    server.route('/b', [{ status: 503, body: 'busy' }]);
    const { api } = client(server.url, { maxAttempts: 4 });
    const error = await rejection(api.get('/b'));
    expect(server.seen('/b')).toHaveLength(4);
    expect(error).toBeInstanceOf(AxiosError);
    const e = error as AxiosError;
    expect(e.message).toBe('Request failed with status code 503');
    expect(e.code).toBe('ERR_BAD_RESPONSE');
    expect(e.response?.status).toBe(503);
    expect(e.response?.data).toBe('busy');
    expect(e.config).toBe(e.response?.config);
    expect(getRetryInfo(e)).toMatchObject({
      attempts: 4,
      outcome: 'failure',
      reason: 'max-attempts',
      status: 503,
    });
  });

  it('400 is not retried', async () => {
    server.route('/c', [{ status: 400, body: 'bad' }]);
    const { api } = client(server.url);
    const error = (await rejection(api.get('/c'))) as AxiosError;
    expect(error.code).toBe('ERR_BAD_REQUEST');
    expect(error.response?.data).toBe('bad');
    expect(server.seen('/c')).toHaveLength(1);
  });

  it('POST 503 is not retried', async () => {
    server.route('/d', [{ status: 503 }, { status: 200 }]);
    const { api } = client(server.url);
    const error = (await rejection(api.post('/d', { a: 1 }))) as AxiosError;
    expect(error.response?.status).toBe(503);
    expect(server.seen('/d')).toHaveLength(1);
    expect(getRetryInfo(error)).toMatchObject({ attempts: 1, reason: 'method-not-idempotent' });
  });

  it('POST with an Idempotency-Key (any case) is retried with the same key and body', async () => {
    server.route('/e', [{ status: 503 }, { status: 502 }, { status: 201, body: 'made' }]);
    const { api } = client(server.url);
    const response = await api.post('/e', { a: 1 }, { headers: { 'idempotency-KEY': 'k-1' } });
    expect(response.status).toBe(201);
    const seen = server.seen('/e');
    expect(seen.map((r) => r.method)).toEqual(['POST', 'POST', 'POST']);
    expect(seen.map((r) => r.headers['idempotency-key'])).toEqual(['k-1', 'k-1', 'k-1']);
    expect(seen.map((r) => r.body.toString())).toEqual(Array(3).fill('{"a":1}'));
  });

  it('honours Retry-After in seconds', async () => {
    server.route('/f', [{ status: 429, headers: { 'retry-after': '1' } }, { status: 200 }]);
    const { api, delays } = client(server.url);
    await api.get('/f');
    // 1000 ms plus random (0.5) × 10 % jitter.
    expect(delays).toEqual([1050]);
  });

  it('honours Retry-After as an HTTP-date', async () => {
    const now = Date.UTC(2026, 10, 22, 9, 0, 0);
    const date = new Date(now + 2000).toUTCString();
    server.route('/g', [{ status: 503, headers: { 'retry-after': date } }, { status: 200 }]);
    const { api, delays } = client(server.url, { now: () => now });
    await api.get('/g');
    expect(delays).toEqual([2100]);
  });

  it('gives up at once when Retry-After is above maxMs', async () => {
    server.route('/h', [{ status: 429, headers: { 'retry-after': '120' } }, { status: 200 }]);
    const { api, delays } = client(server.url, { retryAfter: { maxMs: 5_000 } });
    const error = (await rejection(api.get('/h'))) as AxiosError;
    expect(error.response?.status).toBe(429);
    expect(server.seen('/h')).toHaveLength(1);
    expect(delays).toEqual([]);
    expect(getRetryInfo(error)).toMatchObject({ reason: 'retry-after-too-long' });
  });

  it('retries whatever validateStatus says, and resolves as axios would', async () => {
    server.route('/i', [{ status: 503, body: 'no' }]);
    const { api } = client(server.url, {}, { validateStatus: () => true });
    const response = await api.get('/i');
    expect(response.status).toBe(503);
    expect(response.data).toBe('no');
    expect(server.seen('/i')).toHaveLength(3);
  });
});

describe("the caller's config", () => {
  it('is left as the caller made it after attempts that read the body in stream mode', async () => {
    server.route('/cfg', [{ status: 503 }, { status: 200, body: 'ok' }]);
    server.route('/cfg-fail', [{ status: 503 }]);
    const validateStatus = (s: number) => s < 400;
    const { api } = client(server.url, {}, { validateStatus, maxContentLength: 1000 }, CAPPED);
    const response = await api.get('/cfg');
    const error = (await rejection(api.get('/cfg-fail'))) as AxiosError;
    for (const config of [response.config, error.config!]) {
      expect(config.validateStatus).toBe(validateStatus);
      expect(config.maxContentLength).toBe(1000);
      expect(Object.hasOwn(config, 'responseType')).toBe(false);
      expect(Object.hasOwn(config, 'signal')).toBe(false);
    }
    expect(error.response?.config).toBe(error.config);
    expect(response.data).toBe('ok');
  });
});

describe('connection errors', () => {
  it('retries a GET whose connection was destroyed before the response', async () => {
    server.route('/j', [{ destroy: 'before-headers' }, { status: 200, body: 'ok' }]);
    const { api } = client(server.url);
    const response = await api.get('/j');
    expect(response.data).toBe('ok');
    expect(server.seen('/j')).toHaveLength(2);
  });

  it('does not retry a POST whose connection was destroyed; the caller gets axios error', async () => {
    server.route('/k', [{ destroy: 'before-headers' }, { status: 200 }]);
    const { api } = client(server.url);
    const error = (await rejection(api.post('/k', 'x'))) as AxiosError;
    expect(error).toBeInstanceOf(AxiosError);
    expect(error.code).toBe('ECONNRESET');
    expect(server.seen('/k')).toHaveLength(1);
    expect(getRetryInfo(error)).toMatchObject({ attempts: 1, reason: 'method-not-idempotent' });
  });

  it('retries a GET reset in the middle of a body smaller than discardBodyMaxBytes', async () => {
    server.route('/l', [
      { destroy: 'mid-body', declaredBytes: 1000, sentBytes: 100 },
      { status: 200, body: 'ok' },
    ]);
    const { api } = client(server.url);
    const response = await api.get('/l');
    expect(response.data).toBe('ok');
    expect(server.seen('/l')).toHaveLength(2);
  });

  it('last attempt reset mid-body: the caller gets axios own "stream has been aborted"', async () => {
    server.route('/m', [{ destroy: 'mid-body', declaredBytes: 1000, sentBytes: 100 }]);
    const { api } = client(server.url, { maxAttempts: 2 });
    const error = (await rejection(api.get('/m'))) as AxiosError;
    expect(error.message).toBe('stream has been aborted');
    expect(error.code).toBe('ERR_BAD_RESPONSE');
    expect(server.seen('/m')).toHaveLength(2);
    const info = getRetryInfo(error);
    expect(info).toMatchObject({ attempts: 2, reason: 'max-attempts' });
  });

  it('by default a body reset at any point is retried: axios read it whole before the decision', async () => {
    server.route('/n0', [
      { destroy: 'mid-body', declaredBytes: 400_000, sentBytes: 200_000 },
      { status: 200, body: 'ok' },
    ]);
    const { api } = client(server.url, { discardBodyMaxBytes: 1024 });
    const response = await api.get('/n0');
    expect(response.data).toBe('ok');
    expect(server.seen('/n0')).toHaveLength(2);
    expect(getRetryInfo(response)).toMatchObject({ attempts: 2, retries: ['error'] });
  });

  it('discardedBodyCap: a body reset after more than discardBodyMaxBytes is not retried (documented limit)', async () => {
    server.route('/n', [
      { destroy: 'mid-body', declaredBytes: 400_000, sentBytes: 200_000 },
      { status: 200, body: 'ok' },
    ]);
    const { api } = client(server.url, { discardBodyMaxBytes: 1024 }, {}, CAPPED);
    const error = (await rejection(api.get('/n'))) as AxiosError;
    expect(error.message).toBe('stream has been aborted');
    expect(server.seen('/n')).toHaveLength(1);
    // The decision was taken on the status, before the break.
    expect(getRetryInfo(error)).toMatchObject({ attempts: 1, reason: 'success', status: 200 });
  });

  it("retries axios' own timeout (ECONNABORTED) for a GET, and hands the last one over", async () => {
    server.route('/o', [
      { status: 200, delayMs: 500 },
      { status: 200, body: 'fast' },
    ]);
    const { api } = client(server.url, {}, { timeout: 100 });
    expect((await api.get('/o')).data).toBe('fast');
    server.route('/o2', [{ status: 200, delayMs: 500 }]);
    const error = (await rejection(api.get('/o2', { timeout: 50 }))) as AxiosError;
    expect(error.code).toBe('ECONNABORTED');
    expect(server.seen('/o2')).toHaveLength(3);
  });

  it('attemptTimeoutMs ends a slow attempt and retries it', async () => {
    server.route('/p', [
      { status: 200, delayMs: 2_000 },
      { status: 200, body: 'fast' },
    ]);
    const { api } = client(server.url, { attemptTimeoutMs: 100 });
    expect((await api.get('/p')).data).toBe('fast');
    expect(server.seen('/p')).toHaveLength(2);
  });

  it('attemptTimeoutMs: when every attempt times out, an AxiosError with the jitterbug code', async () => {
    server.route('/q', [{ status: 200, delayMs: 2_000 }]);
    const { api } = client(server.url, { attemptTimeoutMs: 50, maxAttempts: 2 });
    const error = (await rejection(api.get('/q'))) as AxiosError;
    expect(error).toBeInstanceOf(AxiosError);
    expect(error.code).toBe('ERR_JITTERBUG_ATTEMPT_TIMEOUT');
    expect(isCancel(error)).toBe(false);
    expect(server.seen('/q')).toHaveLength(2);
  });
});

describe('timers', () => {
  const timeouts = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

  it('leaves no attempt timer behind, whatever the outcome', async () => {
    const before = timeouts();
    server.route('/tm/a', [{ status: 503 }, { status: 200, body: 'ok' }]);
    server.route('/tm/b', [{ status: 503, bodyBytes: 1_000_000 }, { status: 404 }]);
    server.route('/tm/c', [{ destroy: 'before-headers' }]);
    server.route('/tm/d', [{ status: 200, bodyBytes: 300_000 }]);
    const c = client(server.url, { attemptTimeoutMs: 60_000 });
    await c.api.get('/tm/a');
    await rejection(c.api.get('/tm/b'));
    await rejection(c.api.get('/tm/c'));
    await c.api.get('/tm/d');
    const stream = await c.api.get('/tm/a', { responseType: 'stream' });
    stream.data.resume();
    c.close();
    await server.waitForIdle();
    expect(timeouts()).toBeLessThanOrEqual(before);
  });
});

describe('routes', () => {
  it('per-route retry: false and per-route overrides', async () => {
    server.route('/pay/1', [{ status: 503 }]);
    server.route('/reports/1', [{ status: 503 }]);
    const { api } = client(server.url, {
      routes: [
        { match: 'GET /pay/*', retry: false },
        { match: '/reports/*', maxAttempts: 5 },
      ],
    });
    const pay = (await rejection(api.get('/pay/1'))) as AxiosError;
    expect(server.seen('/pay/1')).toHaveLength(1);
    expect(getRetryInfo(pay)).toMatchObject({ reason: 'route-disabled', route: 'GET /pay/*' });
    await rejection(api.get('/reports/1'));
    expect(server.seen('/reports/1')).toHaveLength(5);
  });
});

describe('aborts', () => {
  const hangingSleep = (requested: number[]) => (ms: number, signal?: AbortSignal) =>
    new Promise<void>((_, reject) => {
      requested.push(ms);
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
    });

  it('an AbortSignal ends the wait at once with the CanceledError axios uses; nothing more is sent', async () => {
    server.route('/r', [{ status: 503 }, { status: 200 }]);
    const requested: number[] = [];
    const { api } = client(server.url, { sleep: hangingSleep(requested) });
    const controller = new AbortController();
    const pending = rejection(api.get('/r', { signal: controller.signal }));
    while (requested.length === 0) await new Promise((r) => setTimeout(r, 5));
    const start = Date.now();
    controller.abort(new Error('user went away'));
    const error = await pending;
    expect(Date.now() - start).toBeLessThan(1_000);
    expect(isCancel(error)).toBe(true);
    expect((error as AxiosError).code).toBe('ERR_CANCELED');
    await new Promise((r) => setTimeout(r, 50));
    expect(server.seen('/r')).toHaveLength(1);
    expect(getRetryInfo(error)).toMatchObject({ attempts: 1, reason: 'aborted' });
  });

  it("a CancelToken ends the wait with the token's own Cancel", async () => {
    server.route('/s', [{ status: 503 }, { status: 200 }]);
    const requested: number[] = [];
    const { api } = client(server.url, { sleep: hangingSleep(requested) });
    const source = axios.CancelToken.source();
    const pending = rejection(api.get('/s', { cancelToken: source.token }));
    while (requested.length === 0) await new Promise((r) => setTimeout(r, 5));
    source.cancel('stop it');
    const error = await pending;
    expect(isCancel(error)).toBe(true);
    expect((error as Error).message).toBe('stop it');
    expect(error).toBe(source.token.reason);
    expect(server.seen('/s')).toHaveLength(1);
  });

  it.each([
    ['without', undefined],
    ['with', 5_000],
  ])(
    'an abort during an attempt (%s an attempt timer) is never retried; the reason is the cause',
    async (_, attemptTimeoutMs) => {
      server.route('/t', [{ status: 200, delayMs: 1_000 }]);
      const { api } = client(server.url, attemptTimeoutMs === undefined ? {} : { attemptTimeoutMs });
      const controller = new AbortController();
      const reason = new Error('caller left');
      setTimeout(() => controller.abort(reason), 50);
      const error = await rejection(api.get('/t', { signal: controller.signal }));
      expect(isCancel(error)).toBe(true);
      expect((error as Error).cause).toBe(reason);
      expect(server.seen('/t')).toHaveLength(1);
    },
  );
});

describe('request bodies', () => {
  const streamOf = (chunks: string[]): Readable => Readable.from(chunks.map((c) => Buffer.from(c)));

  it('a stream body is sent once and not retried', async () => {
    server.route('/u', [{ status: 503 }, { status: 200 }]);
    const { api } = client(server.url);
    const error = (await rejection(api.put('/u', streamOf(['a', 'b', 'c'])))) as AxiosError;
    expect(error.response?.status).toBe(503);
    expect(server.seen('/u')).toHaveLength(1);
    expect(server.seen('/u')[0]!.body.toString()).toBe('abc');
    expect(getRetryInfo(error)).toMatchObject({ reason: 'body-not-replayable' });
  });

  it('with bodyBuffering, a stream that fits is retried with identical bytes', async () => {
    server.route('/v', [{ status: 503 }, { status: 200 }]);
    const { api } = client(server.url, { bodyBuffering: createBodyBuffering({ maxBytes: 1024 }) });
    await api.put('/v', streamOf(['hello ', 'stream ', 'body']));
    const seen = server.seen('/v');
    expect(seen).toHaveLength(2);
    expect(seen.map((r) => r.body.toString())).toEqual(['hello stream body', 'hello stream body']);
    expect(seen.every((r) => r.bodyComplete)).toBe(true);
  });

  it('a stream longer than the bodyBuffering limit is sent once, whole and in order', async () => {
    server.route('/w', [{ status: 503 }, { status: 200 }]);
    const { api } = client(server.url, { bodyBuffering: createBodyBuffering({ maxBytes: 4 }) });
    await rejection(api.put('/w', streamOf(['12', '34', '56', '78'])));
    expect(server.seen('/w')).toHaveLength(1);
    expect(server.seen('/w')[0]!.body.toString()).toBe('12345678');
  });

  it('cancelled while a stream body is buffered: rejects at once as axios does, nothing sent', async () => {
    const { api } = client(server.url, { bodyBuffering: createBodyBuffering({ maxBytes: 1_048_576 }) });
    let reads = 0;
    const slow = new Readable({
      read() {
        // One chunk, then a source that stalls (a slow disk, a slow upstream).
        if (reads++ === 0) this.push('first;');
      },
    });
    const controller = new AbortController();
    const pending = rejection(api.put('/slow-upload', slow, { signal: controller.signal }));
    while (reads < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    const abortedAt = Date.now();
    controller.abort();
    const error = await pending;
    expect(isCancel(error)).toBe(true);
    // Generous: the source would have held the caller for ever.
    expect(Date.now() - abortedAt).toBeLessThan(5_000);
    expect(slow.destroyed).toBe(true);
    expect(server.seen('/slow-upload')).toHaveLength(0);
    expect(getRetryInfo(error)).toMatchObject({ reason: 'aborted', attempts: 0 });
  });

  it('a CancelToken cancelled while a stream body is buffered: the token reason, nothing sent', async () => {
    const { api } = client(server.url, { bodyBuffering: createBodyBuffering({ maxBytes: 1_048_576 }) });
    const slow = new Readable({ read() {} });
    const source = axios.CancelToken.source();
    const pending = rejection(api.put('/slow-token', slow, { cancelToken: source.token }));
    await new Promise((resolve) => setTimeout(resolve, 20));
    source.cancel('no longer needed');
    const error = await pending;
    expect(isCancel(error)).toBe(true);
    expect((error as Error).message).toBe('no longer needed');
    expect(server.seen('/slow-token')).toHaveLength(0);
  });

  it('a stream that fails while being buffered rejects as axios would, and sends nothing', async () => {
    const { api } = client(server.url, { bodyBuffering: createBodyBuffering({ maxBytes: 1024 }) });
    const broken = new Readable({
      read() {
        this.destroy(Object.assign(new Error('disk gone'), { code: 'EIO' }));
      },
    });
    const error = (await rejection(api.put('/broken', broken))) as AxiosError;
    expect(error).toBeInstanceOf(AxiosError);
    expect(error.code).toBe('EIO');
    expect(server.seen('/broken')).toHaveLength(0);
    expect(getRetryInfo(error)).toMatchObject({ attempts: 1, reason: 'error-not-retryable' });
  });

  it('replayable bodies (JSON, string, Buffer, URLSearchParams, FormData) are sent again unchanged', async () => {
    const form = new FormData();
    form.append('f', 'v');
    const bodies: [string, unknown][] = [
      ['json', { a: [1, 2] }],
      ['text', 'plain text'],
      ['bytes', Buffer.from([1, 2, 3])],
      ['params', new URLSearchParams({ q: 'x y' })],
      ['form', form],
    ];
    const { api } = client(server.url);
    for (const [name, body] of bodies) {
      server.route(`/x/${name}`, [{ status: 503 }, { status: 200 }]);
      await api.put(`/x/${name}`, body);
      const seen = server.seen(`/x/${name}`);
      expect(seen).toHaveLength(2);
      expect(seen[0]!.body.length).toBeGreaterThan(0);
      // axios encodes FormData afresh per attempt: the same parts under a new random boundary.
      const normal = (r: (typeof seen)[number]): string[] => {
        const type = String(r.headers['content-type']);
        const boundary = /boundary=(.+)$/.exec(type)?.[1];
        const norm = (t: string) => (boundary ? t.replaceAll(boundary, 'B') : t);
        return [norm(type), norm(r.body.toString('latin1'))];
      };
      expect(normal(seen[1]!)).toEqual(normal(seen[0]!));
    }
  });
});

describe('discarded responses, by default: axios reads every body itself', () => {
  it('a discarded error body is read whole, as plain axios reads it, and its connection reused', async () => {
    const size = 2 * 1024 * 1024;
    server.route('/read', [
      { status: 503, bodyBytes: size },
      { status: 200, body: 'ok' },
    ]);
    const c = client(server.url);
    const response = await c.api.get('/read');
    expect(response.data).toBe('ok');
    const first = server.responses.find((r) => r.path === '/read')!;
    expect(first.finished).toBe(true);
    expect(first.bytesWritten).toBe(size);
    c.close();
    expect(await server.waitForIdle()).toBe(0);
  });

  it("axios' own maxContentLength bounds it: axios' error, not retried (the status was never seen)", async () => {
    const size = 64 * 1024 * 1024;
    server.route('/bounded', [
      { status: 503, bodyBytes: size },
      { status: 200, body: 'ok' },
    ]);
    const c = client(server.url, {}, { maxContentLength: 1024 * 1024 });
    const error = (await rejection(c.api.get('/bounded'))) as AxiosError;
    expect(error.message).toBe('maxContentLength size of 1048576 exceeded');
    expect(error.code).toBe('ERR_BAD_RESPONSE');
    expect(server.seen('/bounded')).toHaveLength(1);
    expect(getRetryInfo(error)).toMatchObject({ attempts: 1, reason: 'error-not-retryable' });
    expect(server.responses.find((r) => r.path === '/bounded')!.bytesWritten).toBeLessThan(size / 8);
    c.close();
    expect(await server.waitForIdle()).toBe(0);
  });
});

describe('discarded responses with discardedBodyCap (stream mode)', () => {
  it('a large error body is not read: the connection is closed, and no socket is left', async () => {
    const size = 64 * 1024 * 1024;
    server.route('/big', [
      { status: 503, bodyBytes: size },
      { status: 200, body: 'ok' },
    ]);
    const c = client(server.url, {}, {}, CAPPED);
    const response = await c.api.get('/big');
    expect(response.data).toBe('ok');
    expect(server.seen('/big')).toHaveLength(2);
    const first = server.responses.find((r) => r.path === '/big')!;
    expect(first.finished).toBe(false);
    expect(first.bytesWritten).toBeLessThan(size / 8);
    console.info(`64 MiB 503 discarded after the server wrote ${first.bytesWritten} bytes`);
    c.close();
    expect(await server.waitForIdle()).toBe(0);
  });

  it('a final body past the cap is read to its end, as axios reads it', async () => {
    server.route('/large-ok-capped', [{ status: 200, bodyBytes: 1_000_000 }]);
    const { api } = client(server.url, { discardBodyMaxBytes: 1024 }, {}, CAPPED);
    const response = await api.get('/large-ok-capped', { responseType: 'arraybuffer' });
    expect(Buffer.isBuffer(response.data)).toBe(true);
    expect((response.data as Buffer).length).toBe(1_000_000);
  });
});

describe.each([
  ['by default', undefined],
  ['with discardedBodyCap', CAPPED],
] as const)('discarded and final responses, %s', (_mode, attach) => {
  it('a small error body is drained and its connection reused', async () => {
    server.route('/small', [
      { status: 503, body: 'x'.repeat(1000) },
      { status: 200, body: 'ok' },
    ]);
    const c = client(server.url, {}, {}, attach);
    await c.api.get('/small');
    const seen = server.seen('/small');
    expect(server.responses.find((r) => r.path === '/small')!.finished).toBe(true);
    expect(seen).toHaveLength(2);
    c.close();
    expect(await server.waitForIdle()).toBe(0);
  });

  it('responseType stream: a discarded 503 is closed, the final stream handed over untouched', async () => {
    server.route('/s503', [
      { status: 503, bodyBytes: 8 * 1024 * 1024 },
      { status: 200, body: 'streamed' },
    ]);
    const c = client(server.url, {}, {}, attach);
    const response = await c.api.get('/s503', { responseType: 'stream' });
    const chunks: Buffer[] = [];
    for await (const chunk of response.data as Readable) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('streamed');
    expect(server.responses.find((r) => r.path === '/s503')!.finished).toBe(false);
    c.close();
    expect(await server.waitForIdle()).toBe(0);
  });

  it('an abort while the final large body is read rejects with CanceledError, as axios', async () => {
    server.route('/slow-big', async () => ({ status: 200, bodyBytes: 50 * 1024 * 1024 }));
    const c = client(server.url, { discardBodyMaxBytes: 1024 }, {}, attach);
    const controller = new AbortController();
    const pending = rejection(
      c.api.get('/slow-big', {
        signal: controller.signal,
        onDownloadProgress: (e) => {
          if (e.loaded > 1_000_000) controller.abort();
        },
      }),
    );
    const error = await pending;
    expect(isCancel(error)).toBe(true);
    expect(server.seen('/slow-big')).toHaveLength(1);
    c.close();
    expect(await server.waitForIdle()).toBe(0);
  });

  it('a large final body is read whole, as axios reads it', async () => {
    server.route('/large-ok', [{ status: 200, bodyBytes: 1_000_000 }]);
    const { api } = client(server.url, {}, {}, attach);
    const response = await api.get('/large-ok', { responseType: 'arraybuffer' });
    expect(Buffer.isBuffer(response.data)).toBe(true);
    expect((response.data as Buffer).length).toBe(1_000_000);
  });
});

describe('interceptors and transforms run once', () => {
  it('counts every hook once per request over three attempts', async () => {
    server.route('/once', [{ status: 503 }, { status: 503 }, { status: 200, body: '{"v":1}' }]);
    const counts = { req: 0, res: 0, tReq: 0, tRes: 0 };
    const { api } = client(
      server.url,
      {},
      {
        transformRequest: [
          (data: unknown) => {
            counts.tReq++;
            return JSON.stringify(data);
          },
        ],
        transformResponse: [
          (data: unknown) => {
            counts.tRes++;
            return JSON.parse(data as string);
          },
        ],
      },
    );
    api.interceptors.request.use((config) => {
      counts.req++;
      return config;
    });
    api.interceptors.response.use((response) => {
      counts.res++;
      return response;
    });
    const response = await api.put('/once', { a: 1 });
    expect(response.data).toEqual({ v: 1 });
    expect(counts).toEqual({ req: 1, res: 1, tReq: 1, tRes: 1 });
    expect(server.seen('/once')).toHaveLength(3);
  });
});

describe('other adapters and URLs', () => {
  it("retries with axios' fetch adapter too (it reads discarded bodies itself)", async () => {
    server.route('/fetch', [
      { status: 503, body: 'busy' },
      { status: 200, body: 'ok' },
    ]);
    const { api } = client(server.url, {}, { adapter: 'fetch' });
    const response = await api.get('/fetch');
    expect(response.data).toBe('ok');
    expect(server.seen('/fetch')).toHaveLength(2);
  });

  it('fetch adapter, by default: a discarded body is read whole, as plain axios reads it', async () => {
    const size = 2 * 1024 * 1024;
    server.route('/fetch-read', [
      { status: 503, bodyBytes: size },
      { status: 200, body: 'small' },
    ]);
    const { api } = client(server.url, {}, { adapter: 'fetch' });
    const response = await api.get('/fetch-read');
    expect(response.data).toBe('small');
    const first = server.responses.find((r) => r.path === '/fetch-read')!;
    expect(first.finished).toBe(true);
    expect(first.bytesWritten).toBe(size);
  });

  it('fetch adapter with discardedBodyCap: a large error body is cancelled past the cap, not downloaded', async () => {
    const size = 8 * 1024 * 1024;
    server.route('/fetch-huge', [
      { status: 503, bodyBytes: size },
      { status: 200, body: 'small' },
    ]);
    const { api } = client(server.url, {}, { adapter: 'fetch' }, CAPPED);
    const response = await api.get('/fetch-huge');
    expect(response.data).toBe('small');
    const first = server.responses.find((r) => r.path === '/fetch-huge')!;
    expect(first.finished).toBe(false);
    expect(first.bytesWritten).toBeLessThan(size);
  });

  it('fetch adapter: a reset in the middle of a small body is retried', async () => {
    server.route('/fetch-mid', [
      { destroy: 'mid-body', sentBytes: 100, declaredBytes: 1000 },
      { status: 200, body: 'whole' },
    ]);
    const { api } = client(server.url, {}, { adapter: 'fetch' });
    const response = await api.get('/fetch-mid');
    expect(response.data).toBe('whole');
    expect(server.seen('/fetch-mid')).toHaveLength(2);
    expect(getRetryInfo(response)).toMatchObject({ attempts: 2 });
  });

  it('routes and summaries see the full URL, params included', async () => {
    server.route('/api/v1/items', [{ status: 503 }, { status: 200 }]);
    const urls: string[] = [];
    const { api } = client(`${server.url}/api/v1/`, {
      onFinish: (summary) => urls.push(summary.url),
      routes: [{ match: '/api/v1/items', maxAttempts: 2 }],
    });
    await api.get('items', { params: { q: 'a b' } });
    await api.get('/items');
    expect(urls).toEqual([`${server.url}/api/v1/items?q=a+b`, `${server.url}/api/v1/items`]);
  });
});

describe('attach, detach, re-send', () => {
  it('detach removes the retries', async () => {
    server.route('/y', [{ status: 503 }, { status: 200 }]);
    const { api, detach } = client(server.url);
    detach();
    detach();
    await rejection(api.get('/y'));
    expect(server.seen('/y')).toHaveLength(1);
  });

  it('re-sending error.config does not nest retry loops', async () => {
    server.route('/z', [{ status: 503 }]);
    const { api } = client(server.url);
    const error = (await rejection(api.get('/z'))) as AxiosError;
    expect(server.seen('/z')).toHaveLength(3);
    await rejection(api.request(error.config!));
    expect(server.seen('/z')).toHaveLength(6);
  });

  it('a shared policy is one budget for several instances', async () => {
    const { createRetryPolicy } = await import('../src/index.ts');
    const policy = createRetryPolicy({ maxAttempts: 2, sleep: async () => {}, budget: false });
    const a = axios.create({ baseURL: server.url });
    const b = axios.create({ baseURL: server.url });
    const { attachRetry } = await import('../src/index.ts');
    attachRetry(a, policy);
    attachRetry(b, policy);
    server.route('/shared', [{ status: 503 }]);
    await rejection(a.get('/shared'));
    await rejection(b.get('/shared'));
    expect(server.seen('/shared')).toHaveLength(4);
  });
});
