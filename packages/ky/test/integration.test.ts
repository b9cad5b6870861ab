/**
 * kyRetry against the scripted loopback server, on ky 2 and ky 1: what the server saw and what the
 * caller got. Waits are recorded and resolved at once; every client gets its own undici 7 Agent
 * (ky passes `dispatcher` through to Node's fetch) so that no test leaves a socket open.
 */
import {
  createBodyBuffering,
  createRetryPolicy,
  type RetryInfo,
  type RetryPolicyOptions,
} from '@jitterbug/core';
import type { Options } from 'ky';
import { describe, expect, it } from 'vitest';
import { sleep as realSleep } from '../../core/src/sleep.ts';
import { getRetryInfo, kyRetry } from '../src/index.ts';
import { errorOf, kys, loopback, recordingSleep } from './helpers.ts';

describe.each(kys)('%s', (_name, ky) => {
  const { server, newAgent } = loopback();
  let waits: number[] = [];

  const client = (extra: RetryPolicyOptions = {}, kyOptions: Options = {}) => {
    const recorder = recordingSleep();
    waits = recorder.waits;
    const agent = newAgent();
    return ky.create({
      ...kyRetry(
        createRetryPolicy({
          random: () => 0.5,
          sleep: recorder.sleep,
          backoff: { baseMs: 10, capMs: 100 },
          ...extra,
        }),
      ),
      dispatcher: agent,
      ...kyOptions,
    } as Options);
  };
  const url = (path: string) => server.url + path;

  it('attemptTimeoutMs: slow headers end the attempt and the next one answers', async () => {
    server.route('/slow-headers', [
      { status: 200, body: 'late', delayMs: 1_000 },
      { status: 200, body: 'on time' },
    ]);
    const summaries: RetryInfo[] = [];
    const response = await client({ attemptTimeoutMs: 100, onFinish: (s) => summaries.push(s) }).get(
      url('/slow-headers'),
    );
    expect(await response.text()).toBe('on time');
    expect(summaries).toMatchObject([{ attempts: 2, outcome: 'success' }]);
    expect(server.seen('/slow-headers')).toHaveLength(2);
  });

  it("attemptTimeoutMs on every attempt: after maxAttempts the caller gets ky's TimeoutError, as without jitterbug", async () => {
    server.route('/always-slow', [{ status: 200, body: 'late', delayMs: 1_000 }]);
    const error = await errorOf(client({ attemptTimeoutMs: 50, maxAttempts: 2 }).get(url('/always-slow')));
    expect(error).toMatchObject({ name: 'TimeoutError' });
    expect((error as Error).cause).toMatchObject({
      name: 'AttemptTimeoutError',
      code: 'ERR_JITTERBUG_ATTEMPT_TIMEOUT',
    });
    expect(getRetryInfo(error)).toMatchObject({ attempts: 2, outcome: 'failure', reason: 'max-attempts' });
    expect(server.seen('/always-slow')).toHaveLength(2);
  });

  it('503 then 200: retried once, the summary on the response', async () => {
    server.route('/a', [
      { status: 503, body: 'busy' },
      { status: 200, body: 'hello' },
    ]);
    const response = await client().get(url('/a'));
    expect(await response.text()).toBe('hello');
    expect(server.seen('/a')).toHaveLength(2);
    expect(waits).toHaveLength(1);
    expect(getRetryInfo(response)).toMatchObject({
      attempts: 2,
      outcome: 'success',
      reason: 'success',
      totalDelayMs: waits[0],
    });
  });

  it("always 503: maxAttempts requests, then ky's HTTPError with the last response", async () => {
    server.route('/down', [{ status: 503, body: 'down' }]);
    const error = (await errorOf(client({ maxAttempts: 4 }).get(url('/down')))) as Error & {
      response: Response;
    };
    expect(error.name).toBe('HTTPError');
    expect(error.response.status).toBe(503);
    expect(server.seen('/down')).toHaveLength(4);
    expect(waits).toHaveLength(3);
    expect(getRetryInfo(error)).toMatchObject({ attempts: 4, reason: 'max-attempts', outcome: 'failure' });
    expect(getRetryInfo(error.response)).toBe(getRetryInfo(error));
  });

  it('throwHttpErrors: false hands over the final response as ky would', async () => {
    server.route('/down-quiet', [{ status: 503, body: 'down' }]);
    const response = await client({ maxAttempts: 2 }, { throwHttpErrors: false }).get(url('/down-quiet'));
    expect(response.status).toBe(503);
    expect(await response.text()).toBe('down');
    expect(server.seen('/down-quiet')).toHaveLength(2);
    expect(getRetryInfo(response)).toMatchObject({ attempts: 2, reason: 'max-attempts' });
  });

  it('400: one request', async () => {
    server.route('/bad', [{ status: 400, body: 'no' }]);
    const error = (await errorOf(client().get(url('/bad')))) as Error & { response: Response };
    expect(error.response.status).toBe(400);
    expect(server.seen('/bad')).toHaveLength(1);
    expect(getRetryInfo(error)).toMatchObject({ attempts: 1, reason: 'status-not-retryable' });
  });

  it("413 with Retry-After: one request (ky's own retry would wait and retry it)", async () => {
    server.route('/big', [{ status: 413, headers: { 'retry-after': '1' } }, { status: 200 }]);
    const error = (await errorOf(client().put(url('/big'), { body: 'x' }))) as Error & { response: Response };
    expect(error.response.status).toBe(413);
    expect(server.seen('/big')).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('POST 503: exactly one request', async () => {
    server.route('/pay', [{ status: 503 }, { status: 200 }]);
    const error = (await errorOf(client().post(url('/pay'), { body: 'charge' }))) as Error & {
      response: Response;
    };
    expect(error.response.status).toBe(503);
    expect(server.seen('/pay')).toHaveLength(1);
    expect(getRetryInfo(error)).toMatchObject({ reason: 'method-not-idempotent' });
  });

  it('POST with an Idempotency-Key: retried with the same key and body', async () => {
    server.route('/orders', [{ status: 503 }, { status: 502 }, { status: 201, body: 'made' }]);
    const response = await client().post(url('/orders'), {
      json: { amount: 42 },
      headers: { 'Idempotency-Key': 'k-1' },
    });
    expect(response.status).toBe(201);
    const seen = server.seen('/orders');
    expect(seen.map((r) => r.headers['idempotency-key'])).toEqual(['k-1', 'k-1', 'k-1']);
    expect(seen.map((r) => JSON.parse(r.body.toString()))).toEqual(Array(3).fill({ amount: 42 }));
  });

  it("methods outside ky's own list reach the core: a PROPFIND policy, a keyed LOCK after a reset", async () => {
    server.route('/dav', [{ status: 503 }, { status: 207, body: 'multi' }]);
    server.route('/lock', [{ destroy: 'before-headers' }, { status: 200, body: 'locked' }]);
    const api = client({ methods: ['GET', 'PROPFIND'] });
    const dav = await api(url('/dav'), { method: 'PROPFIND' });
    expect(dav.status).toBe(207);
    expect(await dav.text()).toBe('multi');
    const lock = await api(url('/lock'), { method: 'LOCK', headers: { 'Idempotency-Key': 'l-1' } });
    expect(await lock.text()).toBe('locked');
    expect(server.seen('/dav').map((r) => r.method)).toEqual(['PROPFIND', 'PROPFIND']);
    expect(server.seen('/lock').map((r) => r.headers['idempotency-key'])).toEqual(['l-1', 'l-1']);
  });

  it('429 + Retry-After seconds: waits that long (no jitter from ky)', async () => {
    server.route('/limited', [{ status: 429, headers: { 'retry-after': '2' } }, { status: 200 }]);
    const response = await client({ random: () => 0 }).get(url('/limited'));
    expect(response.status).toBe(200);
    expect(waits).toEqual([2000]);
    expect(getRetryInfo(response)?.totalDelayMs).toBe(2000);
  });

  it('429 + Retry-After HTTP-date: waits until then', async () => {
    const now = Date.UTC(2026, 10, 22, 12, 0, 0);
    const date = new Date(now + 3000).toUTCString();
    server.route('/limited-date', [{ status: 429, headers: { 'retry-after': date } }, { status: 200 }]);
    await client({ random: () => 0, now: () => now }).get(url('/limited-date'));
    expect(waits).toEqual([3000]);
  });

  it('Retry-After above retryAfter.maxMs: gives up at once', async () => {
    server.route('/maint', [{ status: 503, headers: { 'retry-after': '3600' } }, { status: 200 }]);
    const error = await errorOf(client({ retryAfter: { maxMs: 10_000 } }).get(url('/maint')));
    expect(server.seen('/maint')).toHaveLength(1);
    expect(waits).toEqual([]);
    expect(getRetryInfo(error)).toMatchObject({ reason: 'retry-after-too-long', attempts: 1 });
  });

  it('connection destroyed before the response: GET retried', async () => {
    server.route('/reset', [{ destroy: 'before-headers' }, { status: 200, body: 'back' }]);
    const response = await client().get(url('/reset'));
    expect(await response.text()).toBe('back');
    expect(server.seen('/reset')).toHaveLength(2);
    expect(getRetryInfo(response)).toMatchObject({ attempts: 2 });
  });

  it('connection destroyed before the response: POST not retried, the network error unchanged', async () => {
    server.route('/reset-post', [{ destroy: 'before-headers' }, { status: 200 }]);
    const error = (await errorOf(client().post(url('/reset-post'), { body: 'charge $10' }))) as Error;
    expect(server.seen('/reset-post')).toHaveLength(1);
    // What ky throws for a network error without jitterbug: ky 2 a NetworkError, ky 1 fetch's TypeError.
    expect(['NetworkError', 'TypeError']).toContain(error.name);
    expect(getRetryInfo(error)).toMatchObject({ attempts: 1, reason: 'method-not-idempotent' });
  });

  it('reset in the middle of the body: the caller reading the body gets the error', async () => {
    server.route('/mid', [{ destroy: 'mid-body', sentBytes: 100, declaredBytes: 1000 }, { status: 200 }]);
    const response = await client().get(url('/mid'));
    await expect(response.text()).rejects.toBeDefined();
    expect(server.seen('/mid')).toHaveLength(1);
  });

  it('per-route retry: false and per-route overrides', async () => {
    server.route('/once/1', [{ status: 503 }, { status: 200 }]);
    server.route('/reports/7', [{ status: 503 }]);
    server.route('/other', [{ status: 503 }]);
    const api = client({
      maxAttempts: 2,
      routes: [
        { match: '/once/*', retry: false },
        { match: 'GET /reports/:id', maxAttempts: 5, name: 'reports' },
      ],
    });
    const once = await errorOf(api.get(url('/once/1')));
    const reports = await errorOf(api.get(url('/reports/7')));
    await errorOf(api.get(url('/other')));
    expect(server.seen('/once/1')).toHaveLength(1);
    expect(server.seen('/reports/7')).toHaveLength(5);
    expect(server.seen('/other')).toHaveLength(2);
    expect(getRetryInfo(once)).toMatchObject({ reason: 'route-disabled', route: '/once/*' });
    expect(getRetryInfo(reports)).toMatchObject({ reason: 'max-attempts', route: 'reports' });
  });

  it('abort during the wait: at once, with the signal reason, and no further request', async () => {
    server.route('/abort', [{ status: 503 }, { status: 200 }]);
    const agent = newAgent();
    const summaries: RetryInfo[] = [];
    const api = ky.create({
      ...kyRetry({
        retryAfter: false,
        backoff: { strategy: 'constant', baseMs: 30_000 },
        onFinish: (s) => summaries.push(s),
      }),
      dispatcher: agent,
      timeout: false, // the 30 s wait would otherwise be past ky's 10 s limit on the call
    } as Options);
    const controller = new AbortController();
    const reason = new Error('caller gave up');
    const started = Date.now();
    const pending = errorOf(api.get(url('/abort'), { signal: controller.signal }));
    while (server.responses.length === 0) await realSleep(5);
    await realSleep(20);
    controller.abort(reason);
    expect(await pending).toBe(reason);
    expect(Date.now() - started).toBeLessThan(10_000);
    await realSleep(50);
    expect(server.seen('/abort')).toHaveLength(1);
    expect(summaries).toMatchObject([{ attempts: 1, reason: 'aborted', error: reason }]);
    expect(getRetryInfo(reason)).toBe(summaries[0]);
  });

  it.each([
    ['an Error', new Error('caller left mid-attempt')],
    ['a string', 'caller left (a string)'],
  ])(
    'abort during an attempt (reason %s): the reason, not retried, the run ends as aborted',
    async (_, reason) => {
      server.route('/mid-attempt', [{ status: 200, body: 'late', delayMs: 2_000 }]);
      const summaries: RetryInfo[] = [];
      const controller = new AbortController();
      const pending = errorOf(
        client({ onFinish: (s) => summaries.push(s) }).get(url('/mid-attempt'), {
          signal: controller.signal,
        }),
      );
      while (server.seen('/mid-attempt').length === 0) await realSleep(5);
      controller.abort(reason);
      expect(await pending).toBe(reason);
      expect(summaries).toMatchObject([{ attempts: 1, reason: 'aborted' }]);
      if (typeof reason === 'object') expect(getRetryInfo(reason)).toBe(summaries[0]);
      await realSleep(50);
      expect(server.seen('/mid-attempt')).toHaveLength(1);
    },
  );

  it("ky's own timeout option, when set, bounds the whole call: ky's TimeoutError, the run ends aborted", async () => {
    server.route('/slow', [{ status: 503 }, { status: 200, body: 'too late', delayMs: 2_000 }]);
    const summaries: RetryInfo[] = [];
    const error = await errorOf(
      client({ onFinish: (s) => summaries.push(s) }, { timeout: 300 }).get(url('/slow')),
    );
    expect(error).toMatchObject({ name: 'TimeoutError' });
    expect(summaries).toMatchObject([{ attempts: 2, reason: 'aborted' }]);
  });

  it("a Retry-After longer than what is left of ky's timeout: not waited for, the 503 at once as ky's HTTPError (reason deadline)", async () => {
    server.route('/retry-after-30', [{ status: 429, headers: { 'retry-after': '30' } }, { status: 200 }]);
    const summaries: RetryInfo[] = [];
    const error = await errorOf(
      client({ onFinish: (s) => summaries.push(s) }, { timeout: 300 }).get(url('/retry-after-30')),
    );
    expect(error).toMatchObject({ name: 'HTTPError', response: { status: 429 } });
    expect(getRetryInfo(error)).toMatchObject({ attempts: 1, reason: 'deadline', outcome: 'failure' });
    expect(summaries).toHaveLength(1);
    expect(waits).toEqual([]);
    expect(server.seen('/retry-after-30')).toHaveLength(1);
  });

  it("the policy's deadlineMs below ky's timeout: a wait past it is not started, the last answer at once (HTTPError)", async () => {
    server.route('/retry-after-long', [{ status: 503, headers: { 'retry-after': '2' } }, { status: 200 }]);
    const summaries: RetryInfo[] = [];
    const error = await errorOf(
      client({ deadlineMs: 1_000, onFinish: (s) => summaries.push(s) }).get(url('/retry-after-long')),
    );
    expect(error).toMatchObject({ name: 'HTTPError', response: { status: 503 } });
    expect(summaries).toMatchObject([{ attempts: 1, outcome: 'failure', reason: 'deadline', status: 503 }]);
    expect(waits).toEqual([]);
    expect(server.seen('/retry-after-long')).toHaveLength(1);
  });

  it('abort during the attempt after one attempt timed out: the run ends aborted after 2 attempts', async () => {
    server.route('/slow-twice', [
      { status: 200, body: 'too late', delayMs: 1_000 },
      { status: 200, body: 'too late again', delayMs: 2_000 },
    ]);
    const summaries: RetryInfo[] = [];
    const controller = new AbortController();
    const reason = new Error('caller left on the second attempt');
    const api = client({ attemptTimeoutMs: 300, onFinish: (s) => summaries.push(s) });
    const pending = errorOf(api.get(url('/slow-twice'), { signal: controller.signal }));
    while (server.seen('/slow-twice').length < 2) await realSleep(5);
    controller.abort(reason);
    expect(await pending).toBe(reason);
    expect(summaries).toMatchObject([{ attempts: 2, reason: 'aborted' }]);
  });

  it('abort before the first attempt: no request, the reason', async () => {
    const controller = new AbortController();
    const reason = new Error('never mind');
    controller.abort(reason);
    const summaries: RetryInfo[] = [];
    const api = client({ onFinish: (s) => summaries.push(s) });
    expect(await errorOf(api.get(url('/never'), { signal: controller.signal }))).toBe(reason);
    expect(server.seen('/never')).toHaveLength(0);
    expect(summaries).toMatchObject([{ attempts: 0, reason: 'aborted' }]);
  });

  const streamOf = (...parts: string[]) => {
    const encoder = new TextEncoder();
    return new ReadableStream<Uint8Array>({
      start(controller) {
        for (const part of parts) controller.enqueue(encoder.encode(part));
        controller.close();
      },
    });
  };

  it('abort while a stream body is buffered: at once, with the reason, nothing sent', async () => {
    const summaries: RetryInfo[] = [];
    let pulls = 0;
    const slow = new ReadableStream<Uint8Array>({
      async pull(controller) {
        pulls++;
        if (pulls === 1) controller.enqueue(new TextEncoder().encode('first;'));
        else await new Promise((resolve) => setTimeout(resolve, 30_000).unref());
      },
    });
    const controller = new AbortController();
    const reason = new Error('stop uploading');
    const pending = errorOf(
      client({
        bodyBuffering: createBodyBuffering({ maxBytes: 1_048_576 }),
        onFinish: (s) => summaries.push(s),
      }).put(url('/slow-upload'), {
        body: slow,
        signal: controller.signal,
      }),
    );
    while (pulls < 2) await realSleep(5);
    const abortedAt = Date.now();
    controller.abort(reason);
    expect(await pending).toBe(reason);
    // Generous: the source would have held the caller for 30 s.
    expect(Date.now() - abortedAt).toBeLessThan(5_000);
    expect(server.seen('/slow-upload')).toHaveLength(0);
    expect(summaries).toMatchObject([{ reason: 'aborted', attempts: 0 }]);
  });

  it('stream body: sent once, never replayed', async () => {
    server.route('/upload', [{ status: 503 }, { status: 200 }]);
    const error = await errorOf(client().put(url('/upload'), { body: streamOf('part-1;', 'part-2') }));
    expect(server.seen('/upload').map((r) => r.body.toString())).toEqual(['part-1;part-2']);
    expect(getRetryInfo(error)).toMatchObject({ reason: 'body-not-replayable' });
  });

  it('stream body within the bodyBuffering limit: retried with identical bytes', async () => {
    server.route('/upload-small', [{ status: 503 }, { status: 200 }]);
    const response = await client({ bodyBuffering: createBodyBuffering({ maxBytes: 1024 }) }).put(
      url('/upload-small'),
      {
        body: streamOf('part-1;', 'part-2'),
      },
    );
    expect(response.status).toBe(200);
    expect(server.seen('/upload-small').map((r) => r.body.toString())).toEqual([
      'part-1;part-2',
      'part-1;part-2',
    ]);
  });

  it('stream body larger than the bodyBuffering limit: sent once, whole and in order', async () => {
    server.route('/upload-big', [{ status: 503 }, { status: 200 }]);
    const parts = Array.from({ length: 20 }, (_, i) => `chunk-${i};`);
    await errorOf(
      client({ bodyBuffering: createBodyBuffering({ maxBytes: 16 }) }).put(url('/upload-big'), {
        body: streamOf(...parts),
      }),
    );
    expect(server.seen('/upload-big').map((r) => r.body.toString())).toEqual([parts.join('')]);
  });

  it('replayable bodies re-sent unchanged: bytes, URLSearchParams, Blob, FormData', async () => {
    const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
    for (const path of ['/bytes', '/form', '/blob', '/multipart'])
      server.route(path, [{ status: 503 }, { status: 200 }]);
    const api = client();
    await api.put(url('/bytes'), { body: bytes });
    const form = new URLSearchParams({ a: '1', b: 'two words' });
    await api.put(url('/form'), { body: form });
    await api.put(url('/blob'), { body: new Blob(['blob-data']) });
    const multipart = new FormData();
    multipart.set('field', 'value');
    await api.put(url('/multipart'), { body: multipart });
    expect(server.seen('/bytes').map((r) => [...r.body])).toEqual([[...bytes], [...bytes]]);
    expect(server.seen('/form').map((r) => r.body.toString())).toEqual([form.toString(), form.toString()]);
    expect(server.seen('/blob').map((r) => r.body.toString())).toEqual(['blob-data', 'blob-data']);
    const [first, second] = server.seen('/multipart').map((r) => r.body.toString());
    expect(first).toContain('value');
    expect(second).toBe(first);
  });

  it('large error body discarded: far less than its size sent, no socket left', async () => {
    const size = 32 * 1024 * 1024;
    server.route('/huge', [
      { status: 503, bodyBytes: size },
      { status: 200, body: 'small' },
    ]);
    const response = await client({ discardBodyMaxBytes: 1024 }).get(url('/huge'));
    expect(await response.text()).toBe('small');
    const first = server.responses.find((r) => r.path === '/huge')!;
    expect(first.finished).toBe(false);
    expect(first.bytesWritten).toBeLessThan(size / 4);
    // afterEach closes the agent and checks that no socket is left open.
  });

  it('small error body drained to its end (so its connection can be reused)', async () => {
    server.route('/small', [
      { status: 503, body: 'x'.repeat(100) },
      { status: 200, body: 'ok' },
    ]);
    const response = await client().get(url('/small'));
    expect(await response.text()).toBe('ok');
    expect(server.responses.filter((r) => r.path === '/small').map((r) => r.finished)).toEqual([true, true]);
    expect(server.openSockets()).toBe(1);
  });

  it('one shared policy: onFinish sees every call', async () => {
    server.route('/s', [{ status: 503 }, { status: 200 }]);
    const summaries: RetryInfo[] = [];
    const policy = createRetryPolicy({ sleep: async () => {}, onFinish: (s) => summaries.push(s) });
    const agent = newAgent();
    const api = ky.create({ ...kyRetry(policy), dispatcher: agent } as Options);
    await api.get(url('/s'));
    await api.get(url('/t'));
    expect(summaries).toMatchObject([
      { attempts: 2, url: url('/s') },
      { attempts: 1, url: url('/t') },
    ]);
  });
});
