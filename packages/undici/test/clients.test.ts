/**
 * The interceptor behind every client it serves (undici 8 and 7 `request()` and `fetch()`, Node's
 * global `fetch` with an undici 8 or 7 agent), against a real scripted server on 127.0.0.1.
 */
import { createBodyBuffering, type RetryPolicyOptions } from '@jitterbug/core';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { ConformanceClient, ConformanceOutcome } from '../../../test/conformance/driver.ts';
import { undiciDrivers } from '../../../test/conformance/drivers/undici.ts';
import { type ScriptedServer, startScriptedServer } from '../../../test/support/scripted-server.ts';
import { endlessSleep, recordingSleep } from './helpers.ts';

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());

const response = (outcome: ConformanceOutcome) => {
  if (outcome.kind !== 'response') throw new Error(`expected a response, got ${String(outcome.kind)}`);
  return outcome;
};
const failure = (outcome: ConformanceOutcome): unknown => {
  if (outcome.kind !== 'error') throw new Error(`expected an error, got ${outcome.kind}`);
  return outcome.error;
};

describe.each(undiciDrivers)('$name', (driver) => {
  let client: ConformanceClient | undefined;
  const open = async (options: RetryPolicyOptions) => {
    client = await driver.create(server.url, { random: () => 0.5, ...options });
    return client;
  };
  afterEach(async () => {
    await client?.close();
    client = undefined;
    // Whatever the scenario (discarded bodies, aborts, timeouts), closing the client leaves no socket.
    expect(await server.waitForIdle()).toBe(0);
    server.reset();
  });

  test('503 then 200: retried once, the caller gets the 200; attempts and total delay reported', async () => {
    const { sleep, delays } = recordingSleep();
    server.route('/flaky', [
      { status: 503, body: 'busy' },
      { status: 200, body: 'ok' },
    ]);
    const c = await open({ sleep });
    const { outcome, info } = await c.send({ method: 'GET', path: '/flaky' });
    expect(response(outcome)).toMatchObject({ status: 200, body: 'ok' });
    expect(server.seen('/flaky').map((r) => r.method)).toEqual(['GET', 'GET']);
    expect(delays).toHaveLength(1);
    expect(info).toMatchObject({ attempts: 2, totalDelayMs: delays[0], outcome: 'success', status: 200 });
  });

  test('always 503: maxAttempts requests, then the last 503 as the client gives it', async () => {
    const { sleep } = recordingSleep();
    server.route('/down', [{ status: 503, body: 'still down', headers: { 'x-try': 'last' } }]);
    const c = await open({ sleep, maxAttempts: 4 });
    const { outcome, info } = await c.send({ method: 'GET', path: '/down' });
    const res = response(outcome);
    expect(res).toMatchObject({ status: 503, body: 'still down' });
    expect(res.headers.get('x-try')).toBe('last');
    expect(server.seen('/down')).toHaveLength(4);
    expect(info).toMatchObject({ attempts: 4, reason: 'max-attempts', outcome: 'failure' });
  });

  test('400 is not retried', async () => {
    server.route('/bad', [{ status: 400, body: 'no' }]);
    const c = await open({ sleep: recordingSleep().sleep });
    const { outcome } = await c.send({ method: 'GET', path: '/bad' });
    expect(response(outcome)).toMatchObject({ status: 400, body: 'no' });
    expect(server.seen('/bad')).toHaveLength(1);
  });

  test('POST 503 without an idempotency key is sent once', async () => {
    server.route('/pay', [{ status: 503 }, { status: 200 }]);
    const c = await open({ sleep: recordingSleep().sleep });
    const { outcome, info } = await c.send({
      method: 'POST',
      path: '/pay',
      body: { kind: 'text', value: 'x' },
    });
    expect(response(outcome).status).toBe(503);
    expect(server.seen('/pay')).toHaveLength(1);
    expect(info).toMatchObject({ attempts: 1, reason: 'method-not-idempotent' });
  });

  test('POST with Idempotency-Key is retried with the same key and the same body', async () => {
    server.route('/orders', [{ status: 503 }, { status: 502 }, { status: 201, body: 'made' }]);
    const c = await open({ sleep: recordingSleep().sleep });
    const { outcome } = await c.send({
      method: 'POST',
      path: '/orders',
      headers: { 'Idempotency-Key': 'order-42' },
      body: { kind: 'json', value: { id: 42 } },
    });
    expect(response(outcome)).toMatchObject({ status: 201, body: 'made' });
    const seen = server.seen('/orders');
    expect(seen.map((r) => r.headers['idempotency-key'])).toEqual(['order-42', 'order-42', 'order-42']);
    expect(seen.map((r) => r.body.toString())).toEqual(Array(3).fill('{"id":42}'));
    expect(seen.every((r) => r.bodyComplete)).toBe(true);
  });

  test('PUT with bytes and form bodies is replayed unchanged', async () => {
    server.route('/bytes', [{ status: 500 }, { status: 204 }]);
    server.route('/form', [{ status: 500 }, { status: 204 }]);
    const c = await open({ sleep: recordingSleep().sleep });
    await c.send({
      method: 'PUT',
      path: '/bytes',
      body: { kind: 'bytes', value: new Uint8Array([1, 2, 3, 255]) },
    });
    await c.send({
      method: 'PUT',
      path: '/form',
      body: { kind: 'form', value: new URLSearchParams({ a: '1', b: 'x y' }) },
    });
    expect(server.seen('/bytes').map((r) => [...r.body])).toEqual([
      [1, 2, 3, 255],
      [1, 2, 3, 255],
    ]);
    expect(server.seen('/form').map((r) => r.body.toString())).toEqual(['a=1&b=x+y', 'a=1&b=x+y']);
  });

  test('429 + Retry-After in seconds: waits what the server asked (plus the jitter ratio)', async () => {
    const { sleep, delays } = recordingSleep();
    server.route('/limited', [
      { status: 429, headers: { 'retry-after': '2' } },
      { status: 200, body: 'ok' },
    ]);
    const c = await open({ sleep });
    const { outcome } = await c.send({ method: 'GET', path: '/limited' });
    expect(response(outcome).status).toBe(200);
    // 2000 ms + random (0.5) * 2000 * jitterRatio (0.1)
    expect(delays).toEqual([2100]);
  });

  test('429 + Retry-After as an HTTP-date', async () => {
    const { sleep, delays } = recordingSleep();
    const now = Date.UTC(2026, 10, 22, 9, 0, 0);
    const date = new Date(now + 3000).toUTCString();
    server.route('/dated', [
      { status: 429, headers: { 'retry-after': date } },
      { status: 200, body: 'ok' },
    ]);
    const c = await open({ sleep, now: () => now });
    const { outcome } = await c.send({ method: 'GET', path: '/dated' });
    expect(response(outcome).status).toBe(200);
    expect(delays).toEqual([3150]);
  });

  test('Retry-After above retryAfter.maxMs: gives up at once with the 429', async () => {
    const { sleep, delays } = recordingSleep();
    server.route('/later', [{ status: 429, headers: { 'retry-after': '120' }, body: 'later' }]);
    const c = await open({ sleep, retryAfter: { maxMs: 5000 } });
    const { outcome, info } = await c.send({ method: 'GET', path: '/later' });
    expect(response(outcome)).toMatchObject({ status: 429, body: 'later' });
    expect(delays).toEqual([]);
    expect(server.seen('/later')).toHaveLength(1);
    expect(info).toMatchObject({ reason: 'retry-after-too-long', attempts: 1 });
  });

  test('connection destroyed before the response: GET is retried', async () => {
    server.route('/reset', [{ destroy: 'before-headers' }, { status: 200, body: 'back' }]);
    const c = await open({ sleep: recordingSleep().sleep });
    const { outcome, info } = await c.send({ method: 'GET', path: '/reset' });
    expect(response(outcome)).toMatchObject({ status: 200, body: 'back' });
    expect(server.seen('/reset')).toHaveLength(2);
    expect(info?.attempts).toBe(2);
  });

  test('connection destroyed before the response: POST is not retried; the error is the client’s own', async () => {
    server.route('/reset-post', [{ destroy: 'before-headers' }, { status: 200 }]);
    const c = await open({ sleep: recordingSleep().sleep });
    const { outcome, info } = await c.send({
      method: 'POST',
      path: '/reset-post',
      body: { kind: 'text', value: 'once' },
    });
    const error = failure(outcome) as Error & { cause?: { code?: string } };
    if (driver.name.includes('request')) expect((error as { code?: string }).code).toBe('UND_ERR_SOCKET');
    else {
      expect(error).toBeInstanceOf(TypeError);
      expect(error.cause?.code).toBe('UND_ERR_SOCKET');
    }
    expect(server.seen('/reset-post')).toHaveLength(1);
    expect(info).toMatchObject({ attempts: 1, reason: 'method-not-idempotent' });
  });

  test('reset in the middle of the body: the response was delivered, so the caller gets the error', async () => {
    server.route('/half', [
      { destroy: 'mid-body', status: 200, sentBytes: 100, declaredBytes: 1000 },
      { status: 200 },
    ]);
    const c = await open({ sleep: recordingSleep().sleep });
    const { outcome } = await c.send({ method: 'GET', path: '/half' });
    expect(outcome.kind).toBe('error');
    expect(server.seen('/half')).toHaveLength(1);
  });

  test('per-route retry: false and per-route overrides', async () => {
    server.route('/payments/1', [{ status: 503 }, { status: 200 }]);
    server.route('/reports/1', [{ status: 503 }]);
    const c = await open({
      sleep: recordingSleep().sleep,
      routes: [
        { match: 'GET /payments/*', retry: false },
        { match: '/reports/*', maxAttempts: 5 },
      ],
    });
    const pay = await c.send({ method: 'GET', path: '/payments/1' });
    expect(response(pay.outcome).status).toBe(503);
    expect(server.seen('/payments/1')).toHaveLength(1);
    expect(pay.info).toMatchObject({ reason: 'route-disabled', route: 'GET /payments/*' });
    const report = await c.send({ method: 'GET', path: '/reports/1' });
    expect(response(report.outcome).status).toBe(503);
    expect(server.seen('/reports/1')).toHaveLength(5);
  });

  test('abort during the wait: rejects at once with the signal’s reason, no further request', async () => {
    const { sleep } = endlessSleep();
    server.route('/slow-retry', [{ status: 503 }, { status: 200 }]);
    const controller = new AbortController();
    const reason = new Error('user gave up');
    const c = await open({ sleep, onRetry: () => setTimeout(() => controller.abort(reason), 5) });
    const started = Date.now();
    const { outcome, info } = await c.send({ method: 'GET', path: '/slow-retry', signal: controller.signal });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(failure(outcome)).toBe(reason);
    expect(info).toMatchObject({ reason: 'aborted', attempts: 1 });
    await new Promise((r) => setTimeout(r, 50));
    expect(server.seen('/slow-retry')).toHaveLength(1);
  });

  test('a stream body is sent once and not retried', async () => {
    server.route('/upload', [{ status: 503 }, { status: 200 }]);
    const c = await open({ sleep: recordingSleep().sleep });
    const { outcome, info } = await c.send({
      method: 'PUT',
      path: '/upload',
      body: { kind: 'stream', chunks: ['ab', 'cd'] },
    });
    expect(response(outcome).status).toBe(503);
    expect(server.seen('/upload').map((r) => r.body.toString())).toEqual(['abcd']);
    expect(info).toMatchObject({ reason: 'body-not-replayable' });
  });

  test('a stream body within the bodyBuffering limit is buffered and replayed with identical bytes', async () => {
    server.route('/upload2', [{ status: 503 }, { status: 200, body: 'stored' }]);
    const c = await open({
      sleep: recordingSleep().sleep,
      bodyBuffering: createBodyBuffering({ maxBytes: 1024 }),
    });
    const { outcome } = await c.send({
      method: 'PUT',
      path: '/upload2',
      body: { kind: 'stream', chunks: ['ab', 'cd', 'é'] },
    });
    expect(response(outcome)).toMatchObject({ status: 200, body: 'stored' });
    expect(server.seen('/upload2').map((r) => r.body.toString())).toEqual(['abcdé', 'abcdé']);
  });

  test('a stream body over the bodyBuffering limit is sent once, whole and in order', async () => {
    server.route('/upload3', [{ status: 503 }, { status: 200 }]);
    const c = await open({
      sleep: recordingSleep().sleep,
      bodyBuffering: createBodyBuffering({ maxBytes: 3 }),
    });
    const { outcome } = await c.send({
      method: 'PUT',
      path: '/upload3',
      body: { kind: 'stream', chunks: ['ab', 'cd', 'ef'] },
    });
    expect(response(outcome).status).toBe(503);
    expect(server.seen('/upload3').map((r) => [r.body.toString(), r.bodyComplete])).toEqual([
      ['abcdef', true],
    ]);
  });

  test('a large error body is discarded, not read: the connection is closed, no socket left', async () => {
    const size = 50 * 1024 * 1024;
    server.route('/huge', [
      { status: 503, bodyBytes: size },
      { status: 200, body: 'ok' },
    ]);
    const c = await open({ sleep: recordingSleep().sleep, discardBodyMaxBytes: 1024 });
    const { outcome } = await c.send({ method: 'GET', path: '/huge' });
    expect(response(outcome)).toMatchObject({ status: 200, body: 'ok' });
    const first = server.responses.find((r) => r.path === '/huge')!;
    expect(first.finished).toBe(false);
    expect(first.bytesWritten).toBeLessThan(size / 4);
    await client?.close();
    client = undefined;
    expect(await server.waitForIdle()).toBe(0);
  });

  test('a small error body is drained in full (the connection stays usable)', async () => {
    server.route('/small', [
      { status: 503, bodyBytes: 2000 },
      { status: 200, body: 'ok' },
    ]);
    const c = await open({ sleep: recordingSleep().sleep });
    await c.send({ method: 'GET', path: '/small' });
    const first = server.responses.find((r) => r.path === '/small')!;
    expect(first.bytesWritten).toBe(2000);
    expect(first.finished).toBe(true);
  });

  test('attemptTimeoutMs: a slow attempt is abandoned and retried', async () => {
    server.route('/sleepy', [
      { status: 200, delayMs: 2000, body: 'late' },
      { status: 200, body: 'fast' },
    ]);
    const c = await open({ sleep: recordingSleep().sleep, attemptTimeoutMs: 100 });
    const { outcome, info } = await c.send({ method: 'GET', path: '/sleepy' });
    expect(response(outcome)).toMatchObject({ status: 200, body: 'fast' });
    expect(info?.attempts).toBe(2);
  });

  test('attemptTimeoutMs on every attempt: the caller gets AttemptTimeoutError', async () => {
    server.route('/never', [{ status: 200, delayMs: 2000 }]);
    const c = await open({ sleep: recordingSleep().sleep, attemptTimeoutMs: 50, maxAttempts: 2 });
    const { outcome } = await c.send({ method: 'GET', path: '/never' });
    const error = failure(outcome) as Error & { cause?: unknown };
    const timeout = driver.name.includes('request') ? error : error.cause;
    expect(timeout).toMatchObject({ name: 'AttemptTimeoutError', code: 'ERR_JITTERBUG_ATTEMPT_TIMEOUT' });
    expect(server.seen('/never')).toHaveLength(2);
  });
});
