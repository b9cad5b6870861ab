/**
 * One list of scenarios, run against every client: whatever the core decides, every client must do
 * the same. Each scenario asserts what the server saw (count, methods, bodies, headers) and what the
 * caller got. Waits are injected (recorded, then resolved at once) unless a scenario needs a real one.
 */
import type { RetryInfo, RetryPolicyOptions } from '@jitterbug/core';
import { sleep as realSleep } from '@jitterbug/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedServer, startScriptedServer } from '../support/scripted-server.ts';
import type { ConformanceClient, ConformanceDriver, ConformanceResult } from './driver.ts';
import { drivers } from './drivers/index.ts';

const recordingSleep = () => {
  const waits: number[] = [];
  const sleep = (ms: number, signal?: AbortSignal): Promise<void> => {
    waits.push(ms);
    return realSleep(0, signal);
  };
  return { waits, sleep };
};

const statusOf = (result: ConformanceResult): number | undefined => {
  const o = result.outcome;
  return o.kind === 'error' ? undefined : o.status;
};

describe.each(drivers.map((d) => [d.name, d] as const))('%s', (_name, driver: ConformanceDriver) => {
  let server: ScriptedServer;
  const clients: ConformanceClient[] = [];
  let waits: number[] = [];

  const client = async (extra: RetryPolicyOptions = {}): Promise<ConformanceClient> => {
    const recorder = recordingSleep();
    waits = recorder.waits;
    const c = await driver.create(server.url, {
      random: () => 0,
      sleep: recorder.sleep,
      backoff: { strategy: 'full', baseMs: 1, capMs: 5 },
      ...extra,
    });
    clients.push(c);
    return c;
  };

  const expectFinalStatus = (result: ConformanceResult, status: number): void => {
    if (status >= 400 && driver.statusesReject) {
      expect(result.outcome.kind).toBe('http-error');
    } else {
      expect(result.outcome.kind).toBe('response');
    }
    expect(statusOf(result)).toBe(status);
  };

  beforeAll(async () => {
    server = await startScriptedServer();
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close();
    // No client may leave a connection behind once it is closed.
    expect(await server.waitForIdle(3_000)).toBe(0);
    server.reset();
  });
  afterAll(() => server.close());

  it('retries 503 then answers 200', async () => {
    server.route('/a', [
      { status: 503, body: 'busy' },
      { status: 200, body: 'hello' },
    ]);
    const result = await (await client()).send({ method: 'GET', path: '/a' });
    expectFinalStatus(result, 200);
    if (result.outcome.kind === 'response') expect(result.outcome.body).toBe('hello');
    expect(server.seen('/a').map((r) => r.method)).toEqual(['GET', 'GET']);
    expect(waits).toHaveLength(1);
    expect(result.info).toMatchObject({ attempts: 2, outcome: 'success' });
  });

  it('stops after maxAttempts on a permanent 503 and hands over the last response', async () => {
    server.route('/down', [{ status: 503, body: 'down' }]);
    const result = await (await client({ maxAttempts: 3 })).send({ method: 'GET', path: '/down' });
    expectFinalStatus(result, 503);
    expect(server.seen('/down')).toHaveLength(3);
    expect(result.info).toMatchObject({ attempts: 3, reason: 'max-attempts' });
  });

  it('never retries a 400', async () => {
    server.route('/bad', [{ status: 400, body: 'no' }]);
    const result = await (await client()).send({ method: 'GET', path: '/bad' });
    expectFinalStatus(result, 400);
    expect(server.seen('/bad')).toHaveLength(1);
  });

  it('never retries a POST on 503', async () => {
    server.route('/pay', [{ status: 503 }, { status: 200 }]);
    const result = await (await client()).send({
      method: 'POST',
      path: '/pay',
      body: { kind: 'text', value: 'x' },
    });
    expectFinalStatus(result, 503);
    expect(server.seen('/pay').map((r) => [r.method, r.body.toString()])).toEqual([['POST', 'x']]);
    expect(result.info).toMatchObject({ attempts: 1, reason: 'method-not-idempotent' });
  });

  it('retries a POST with an Idempotency-Key, same key and same body every time', async () => {
    server.route('/orders', [{ status: 503 }, { status: 503 }, { status: 201, body: 'made' }]);
    const result = await (await client()).send({
      method: 'POST',
      path: '/orders',
      headers: { 'Idempotency-Key': 'k-123', 'content-type': 'application/json' },
      body: { kind: 'json', value: { amount: 42 } },
    });
    expectFinalStatus(result, 201);
    const seen = server.seen('/orders');
    expect(seen).toHaveLength(3);
    expect(new Set(seen.map((r) => r.headers['idempotency-key']))).toEqual(new Set(['k-123']));
    for (const r of seen) expect(JSON.parse(r.body.toString())).toEqual({ amount: 42 });
  });

  it('waits the Retry-After seconds of a 429', async () => {
    server.route('/limited', [{ status: 429, headers: { 'retry-after': '2' } }, { status: 200 }]);
    const result = await (await client()).send({ method: 'GET', path: '/limited' });
    expectFinalStatus(result, 200);
    expect(waits).toEqual([2000]);
    expect(server.seen('/limited')).toHaveLength(2);
    expect(result.info).toMatchObject({ attempts: 2, totalDelayMs: 2000 });
  });

  it('waits until a Retry-After HTTP-date', async () => {
    const now = Date.UTC(2026, 10, 22, 12, 0, 0);
    const date = new Date(now + 3000).toUTCString();
    server.route('/limited-date', [{ status: 429, headers: { 'retry-after': date } }, { status: 200 }]);
    const result = await (await client({ now: () => now })).send({ method: 'GET', path: '/limited-date' });
    expectFinalStatus(result, 200);
    expect(waits).toEqual([3000]);
    expect(server.seen('/limited-date')).toHaveLength(2);
  });

  it('gives up at once when Retry-After is longer than retryAfter.maxMs', async () => {
    server.route('/maintenance', [{ status: 503, headers: { 'retry-after': '3600' } }, { status: 200 }]);
    const result = await (await client({ retryAfter: { maxMs: 10_000 } })).send({
      method: 'GET',
      path: '/maintenance',
    });
    expectFinalStatus(result, 503);
    expect(server.seen('/maintenance')).toHaveLength(1);
    expect(waits).toEqual([]);
    expect(result.info?.reason).toBe('retry-after-too-long');
  });

  it('retries a GET whose connection was destroyed before the response', async () => {
    server.route('/reset', [{ destroy: 'before-headers' }, { status: 200, body: 'back' }]);
    const result = await (await client()).send({ method: 'GET', path: '/reset' });
    expectFinalStatus(result, 200);
    if (result.outcome.kind === 'response') expect(result.outcome.body).toBe('back');
    expect(server.seen('/reset')).toHaveLength(2);
    expect(result.info).toMatchObject({ attempts: 2, outcome: 'success' });
  });

  it('after the last attempt on a lost connection, hands over the error the client gives, unchanged in type', async () => {
    server.route('/gone', [{ destroy: 'before-headers' }]);
    const result = await (await client({ maxAttempts: 3 })).send({ method: 'GET', path: '/gone' });
    expect(result.outcome.kind).toBe('error');
    if (result.outcome.kind === 'error') expect(driver.isNetworkError(result.outcome.error)).toBe(true);
    expect(server.seen('/gone')).toHaveLength(3);
    expect(result.info).toMatchObject({ attempts: 3, reason: 'max-attempts', outcome: 'failure' });
  });

  it('never retries a POST whose connection was destroyed before the response', async () => {
    server.route('/reset-post', [{ destroy: 'before-headers' }, { status: 200 }]);
    const result = await (await client()).send({
      method: 'POST',
      path: '/reset-post',
      body: { kind: 'text', value: 'charge $10' },
    });
    expect(result.outcome.kind).toBe('error');
    if (result.outcome.kind === 'error') expect(driver.isNetworkError(result.outcome.error)).toBe(true);
    expect(server.seen('/reset-post')).toHaveLength(1);
    expect(result.info).toMatchObject({ attempts: 1, reason: 'method-not-idempotent' });
  });

  it('never hands over a body truncated by a reset in the middle', async () => {
    server.route('/mid', [
      { destroy: 'mid-body', sentBytes: 100, declaredBytes: 1000 },
      { status: 200, body: 'whole' },
    ]);
    const result = await (await client()).send({ method: 'GET', path: '/mid' });
    if (driver.buffersResponses) {
      expectFinalStatus(result, 200);
      expect(server.seen('/mid')).toHaveLength(2);
    } else {
      // The response was already handed to the caller when the body broke: the caller must see the
      // error, never a short body passed off as complete.
      expect(result.outcome.kind).toBe('error');
      expect(server.seen('/mid')).toHaveLength(1);
    }
  });

  it('honours a route rule with retry: false', async () => {
    server.route('/once/1', [{ status: 503 }, { status: 200 }]);
    const result = await (await client({ routes: [{ match: '/once/*', retry: false }] })).send({
      method: 'GET',
      path: '/once/1',
    });
    expectFinalStatus(result, 503);
    expect(server.seen('/once/1')).toHaveLength(1);
    expect(result.info).toMatchObject({ reason: 'route-disabled', route: '/once/*' });
  });

  it('honours per-route overrides, first match wins', async () => {
    server.route('/reports/7', [{ status: 503 }]);
    server.route('/other', [{ status: 503 }]);
    const c = await client({
      maxAttempts: 2,
      routes: [
        { match: 'GET /reports/:id', maxAttempts: 5, name: 'reports' },
        { match: '/reports/*', maxAttempts: 1 },
      ],
    });
    const reports = await c.send({ method: 'GET', path: '/reports/7' });
    const other = await c.send({ method: 'GET', path: '/other' });
    expectFinalStatus(reports, 503);
    expectFinalStatus(other, 503);
    expect(server.seen('/reports/7')).toHaveLength(5);
    expect(server.seen('/other')).toHaveLength(2);
  });

  it('stops retrying when deadlineMs would be passed by the next wait', async () => {
    server.route('/deadline', [{ status: 503, headers: { 'retry-after': '5' } }, { status: 200 }]);
    const result = await (await client({ deadlineMs: 1_000 })).send({ method: 'GET', path: '/deadline' });
    expectFinalStatus(result, 503);
    expect(server.seen('/deadline')).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  /** Aborts `pending`'s request: it must end with the client's abort error for `reason`, at once. */
  const abortPromptly = async (
    pending: Promise<ConformanceResult>,
    controller: AbortController,
    reason: unknown,
  ): Promise<ConformanceResult> => {
    const abortedAt = Date.now();
    controller.abort(reason);
    const result = await pending;
    expect(result.outcome.kind).toBe('error');
    if (result.outcome.kind === 'error') expect(driver.isAbort(result.outcome.error, reason)).toBe(true);
    // Generous against the waits an abort cancels (30 s, 2 s): the caller is released at once.
    expect(Date.now() - abortedAt).toBeLessThan(5_000);
    return result;
  };

  it('cancels the backoff wait at once when the caller aborts', async () => {
    server.route('/abort', [{ status: 503 }, { status: 200 }]);
    const c = await driver.create(server.url, {
      random: () => 0,
      retryAfter: false,
      backoff: { strategy: 'constant', baseMs: 30_000 },
    });
    clients.push(c);
    const controller = new AbortController();
    const reason = new Error('caller gave up');
    const pending = c.send({ method: 'GET', path: '/abort', signal: controller.signal });
    // Abort once the first answer has arrived, i.e. during the 30 s wait.
    while (server.responses.length === 0) await realSleep(5);
    await realSleep(20);
    await abortPromptly(pending, controller, reason);
    await realSleep(50);
    expect(server.seen('/abort')).toHaveLength(1);
  });

  it('an abort during an attempt: the reason, nothing sent again, the run ends aborted after 1 attempt', async () => {
    server.route('/abort-attempt', [{ status: 200, body: 'late', delayMs: 2_000 }]);
    const finished: RetryInfo[] = [];
    const c = await driver.create(server.url, { onFinish: (s) => finished.push(s) });
    clients.push(c);
    const controller = new AbortController();
    const reason = new Error('caller left during the attempt');
    const pending = c.send({ method: 'GET', path: '/abort-attempt', signal: controller.signal });
    while (server.seen('/abort-attempt').length === 0) await realSleep(5);
    const result = await abortPromptly(pending, controller, reason);
    expect(finished).toMatchObject([{ reason: 'aborted', attempts: 1, outcome: 'failure' }]);
    expect(result.info).toBe(finished[0]);
    await realSleep(50);
    expect(server.seen('/abort-attempt')).toHaveLength(1);
  });

  it('sends a stream body once and never replays it', async () => {
    server.route('/upload', [{ status: 503 }, { status: 200 }]);
    const result = await (await client()).send({
      method: 'PUT',
      path: '/upload',
      body: { kind: 'stream', chunks: ['part-1;', 'part-2;', 'part-3'] },
    });
    expectFinalStatus(result, 503);
    const seen = server.seen('/upload');
    expect(seen).toHaveLength(1);
    expect(seen[0]!.body.toString()).toBe('part-1;part-2;part-3');
    expect(result.info?.reason).toBe('body-not-replayable');
  });

  it('replays a stream body buffered within bufferStreamBytes, byte for byte', async () => {
    server.route('/upload-small', [{ status: 503 }, { status: 200 }]);
    const result = await (await client({ bufferStreamBytes: 1024 })).send({
      method: 'PUT',
      path: '/upload-small',
      body: { kind: 'stream', chunks: ['part-1;', 'part-2;', 'part-3'] },
    });
    expectFinalStatus(result, 200);
    const seen = server.seen('/upload-small');
    expect(seen.map((r) => r.body.toString())).toEqual(['part-1;part-2;part-3', 'part-1;part-2;part-3']);
  });

  it('sends a stream body larger than bufferStreamBytes once, whole and in order', async () => {
    server.route('/upload-big', [{ status: 503 }, { status: 200 }]);
    const chunks = Array.from({ length: 20 }, (_, i) => `chunk-${String(i).padStart(2, '0')};`);
    const result = await (await client({ bufferStreamBytes: 32 })).send({
      method: 'PUT',
      path: '/upload-big',
      body: { kind: 'stream', chunks },
    });
    expectFinalStatus(result, 503);
    const seen = server.seen('/upload-big');
    expect(seen).toHaveLength(1);
    expect(seen[0]!.body.toString()).toBe(chunks.join(''));
  });

  it('re-sends replayable bodies unchanged', async () => {
    const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
    server.route('/bytes', [{ status: 503 }, { status: 200 }]);
    server.route('/form', [{ status: 503 }, { status: 200 }]);
    const c = await client();
    expectFinalStatus(
      await c.send({ method: 'PUT', path: '/bytes', body: { kind: 'bytes', value: bytes } }),
      200,
    );
    const form = new URLSearchParams({ a: '1', b: 'two words' });
    expectFinalStatus(
      await c.send({ method: 'PUT', path: '/form', body: { kind: 'form', value: form } }),
      200,
    );
    server.route('/text', [{ status: 503 }, { status: 200 }]);
    expectFinalStatus(
      await c.send({ method: 'PUT', path: '/text', body: { kind: 'text', value: 'héllo, wörld' } }),
      200,
    );
    server.route('/patch', [{ status: 502 }, { status: 200 }]);
    expectFinalStatus(
      await c.send({
        method: 'PATCH',
        path: '/patch',
        headers: { 'Idempotency-Key': 'p-1', 'content-type': 'application/json' },
        body: { kind: 'json', value: { name: 'new' } },
      }),
      200,
    );
    expect(server.seen('/bytes').map((r) => [...r.body])).toEqual([[...bytes], [...bytes]]);
    expect(server.seen('/form').map((r) => r.body.toString())).toEqual([form.toString(), form.toString()]);
    expect(server.seen('/text').map((r) => r.body.toString())).toEqual(['héllo, wörld', 'héllo, wörld']);
    expect(
      server.seen('/patch').map((r) => [r.method, r.headers['idempotency-key'], r.body.toString()]),
    ).toEqual([
      ['PATCH', 'p-1', '{"name":"new"}'],
      ['PATCH', 'p-1', '{"name":"new"}'],
    ]);
  });

  it('discards a large error body without reading it all, and leaks no socket', async () => {
    const size = 8 * 1024 * 1024;
    server.route('/huge', [
      { status: 503, bodyBytes: size },
      { status: 200, body: 'small' },
    ]);
    const result = await (await client()).send({ method: 'GET', path: '/huge' });
    expectFinalStatus(result, 200);
    const first = server.responses.find((r) => r.path === '/huge')!;
    expect(first.finished).toBe(false);
    expect(first.bytesWritten).toBeLessThan(size);
    // The discarded answer's connection is closed by now, before the client is: at most the
    // connection of the final answer stays open, for reuse.
    expect(await server.waitForIdle(3_000, 1)).toBeLessThanOrEqual(1);
  });
});
