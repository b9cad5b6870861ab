/**
 * Hedged requests through the interceptor, over a real server whose first answer is slow: the copy
 * that answers first wins and is the one response the caller sees; the others are aborted (or
 * drained when already answering); only requests that may be sent twice are hedged; the caller's
 * abort mid-hedge ends every copy; no socket or timer is left.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createHedging, createRetryPolicy, type RetryInfo, type RetryPolicyOptions } from '@jitterbug/core';
import { sleep as realSleep } from '@jitterbug/core/adapter';
import * as undici8 from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { activeResources, settleResources } from '../../../test/reliability/support.ts';
import { type ScriptedServer, startScriptedServer } from '../../../test/support/scripted-server.ts';
import { retryInterceptor } from '../src/index.ts';

let server: ScriptedServer;
const agents: undici8.Agent[] = [];
let finished: RetryInfo[] = [];
const dispatcherFor = (options: RetryPolicyOptions) => {
  finished = [];
  const agent = new undici8.Agent();
  agents.push(agent);
  return agent.compose(
    retryInterceptor(
      createRetryPolicy({
        random: () => 0.5,
        sleep: async () => {},
        onFinish: (info) => {
          finished.push(info);
        },
        ...options,
      }),
    ),
  );
};
const url = (path: string) => server.url + path;
const slowThenFast = (path: string, slowMs = 3_000) =>
  server.route(path, [
    { status: 200, body: 'slow', delayMs: slowMs },
    { status: 200, body: 'fast' },
  ]);

/** undici 8 `request()`: status and body text. */
const get = async (dispatcher: undici8.Dispatcher, path: string, options: object = {}) => {
  const res = await undici8.request(url(path), { dispatcher, ...options });
  return { status: res.statusCode, body: await res.body.text() };
};

beforeAll(async () => {
  server = await startScriptedServer();
});
afterEach(async () => {
  for (const agent of agents.splice(0)) await agent.close();
  expect(await server.waitForIdle(3_000)).toBe(0);
  server.reset();
});
afterAll(() => server.close());

describe('hedged requests through undici', () => {
  it("the latency window learns the request's time to its answer, not the winning copy's own", async () => {
    const agent = new undici8.Agent();
    agents.push(agent);
    const policy = createRetryPolicy({ random: () => 0.5, hedge: createHedging({ delayMs: 50 }) });
    slowThenFast('/saved', 300);
    expect(await get(agent.compose(retryInterceptor(policy)), '/saved')).toEqual({
      status: 200,
      body: 'fast',
    });
    const window = policy.options.hedge ? policy.options.hedge.latencies : undefined;
    expect(window?.count).toBe(1);
    // The fast copy went out after the 50 ms delay: the request took at least that long.
    expect(window?.percentile(50)).toBeGreaterThanOrEqual(50);
  });

  it('a slow first copy: the second, sent after delayMs, answers; the first is aborted; one response', async () => {
    slowThenFast('/tail');
    const dispatcher = dispatcherFor({ hedge: createHedging({ delayMs: 50 }) });
    // A raw handler sees exactly what a caller sees.
    const seen: string[] = [];
    const chunks: Buffer[] = [];
    const done = new Promise<void>((resolve, reject) => {
      dispatcher.dispatch(
        { origin: server.url, path: '/tail', method: 'GET' },
        {
          onRequestStart: () => seen.push('start'),
          onResponseStart: (_c, status) => seen.push(`response ${status}`),
          onResponseData: (_c, chunk) => chunks.push(chunk),
          onResponseEnd: () => {
            seen.push('end');
            resolve();
          },
          onResponseError: (_c, error) => reject(error),
        },
      );
    });
    const started = Date.now();
    await done;
    expect(seen).toEqual(['start', 'response 200', 'end']);
    expect(Buffer.concat(chunks).toString()).toBe('fast');
    // Generous: the slow copy would have held the caller for 3 s.
    expect(Date.now() - started).toBeLessThan(2_500);
    expect(server.seen('/tail')).toHaveLength(2);
    expect(finished).toMatchObject([{ attempts: 1, hedge: { copies: 1, winner: 2 }, outcome: 'success' }]);
    const slow = server.responses.find((r) => r.path === '/tail' && (r.step as { delayMs?: number }).delayMs);
    await realSleep(50);
    expect(slow?.finished).toBe(false);
  });

  it('works for undici fetch too, and the summary tells which copy answered', async () => {
    slowThenFast('/fetch');
    const dispatcher = dispatcherFor({ hedge: createHedging({ delayMs: 30 }) });
    const response = await undici8.fetch(url('/fetch'), { dispatcher });
    expect(await response.text()).toBe('fast');
    expect(finished.at(-1)?.hedge).toEqual({ copies: 1, winner: 2 });
  });

  it('never hedges a POST without an idempotency key; hedges one with a key (its body sent again)', async () => {
    server.route('/pay', [
      { status: 200, body: 'slow', delayMs: 300 },
      { status: 200, body: 'fast' },
    ]);
    const dispatcher = dispatcherFor({ hedge: createHedging({ delayMs: 20 }) });
    expect((await get(dispatcher, '/pay', { method: 'POST', body: 'x' })).body).toBe('slow');
    expect(server.seen('/pay')).toHaveLength(1);
    server.reset();
    slowThenFast('/pay');
    const keyed = await get(dispatcher, '/pay', {
      method: 'POST',
      body: 'x',
      headers: { 'idempotency-key': 'k' },
    });
    expect(keyed.body).toBe('fast');
    expect(server.seen('/pay').map((r) => r.body.toString())).toEqual(['x', 'x']);
  });

  it('a final answer from either copy ends the attempt: a 404 wins, the other copy is aborted', async () => {
    server.route('/gone', [
      { status: 200, body: 'slow', delayMs: 3_000 },
      { status: 404, body: 'no' },
    ]);
    const res = await get(dispatcherFor({ hedge: createHedging({ delayMs: 20 }) }), '/gone');
    expect(res).toEqual({ status: 404, body: 'no' });
    expect(finished.at(-1)).toMatchObject({ attempts: 1, reason: 'status-not-retryable' });
  });

  it('a retried failure of one copy waits for the other; its answer is drained, not cut', async () => {
    server.route('/half', [
      { status: 503, body: 'busy', delayMs: 100 },
      { status: 200, body: 'ok', delayMs: 200 },
    ]);
    const res = await get(dispatcherFor({ hedge: createHedging({ delayMs: 20 }) }), '/half');
    expect(res.body).toBe('ok');
    expect(finished.at(-1)).toMatchObject({ attempts: 1, retries: [], hedge: { winner: 2 } });
    expect(server.responses.find((r) => 'status' in r.step && r.step.status === 503)?.finished).toBe(true);
  });

  it('every copy failing with a retried answer makes the attempt a retry', async () => {
    server.route('/both', [
      { status: 503, body: 'a', delayMs: 100 },
      { status: 503, body: 'b' },
      { status: 200, body: 'third' },
    ]);
    const res = await get(dispatcherFor({ hedge: createHedging({ delayMs: 20 }) }), '/both');
    expect(res.body).toBe('third');
    expect(finished.at(-1)).toMatchObject({ attempts: 2, retries: ['status'] });
  });

  it('the hedge budget: at most ten hedges held, `ratio` more per request', async () => {
    const dispatcher = dispatcherFor({ hedge: createHedging({ delayMs: 20, ratio: 0 }) });
    for (let i = 0; i < 10; i++) {
      slowThenFast(`/a${i}`, 300);
      expect((await get(dispatcher, `/a${i}`)).body).toBe('fast');
      expect(server.seen(`/a${i}`)).toHaveLength(2);
    }
    slowThenFast('/b', 300);
    expect((await get(dispatcher, '/b')).body).toBe('slow');
    expect(server.seen('/b')).toHaveLength(1);
  });

  it('a percentile delay learns from attempts that were not hedged, and hedges once 20 are known', async () => {
    server.route('/quick', [{ status: 200, body: 'q' }]);
    const dispatcher = dispatcherFor({ hedge: createHedging({ delayMs: 'p50', ratio: 1 }) });
    slowThenFast('/early', 300);
    expect((await get(dispatcher, '/early')).body).toBe('slow');
    for (let i = 0; i < 20; i++) await get(dispatcher, '/quick');
    slowThenFast('/late');
    expect((await get(dispatcher, '/late')).body).toBe('fast');
  });

  it('attemptTimeoutMs is each copy’s own: both time out, the attempt is retried', async () => {
    server.route('/stall', [
      { status: 200, body: 'late', delayMs: 3_000 },
      { status: 200, body: 'late', delayMs: 3_000 },
      { status: 200, body: 'now' },
    ]);
    const res = await get(
      dispatcherFor({ hedge: createHedging({ delayMs: 50 }), attemptTimeoutMs: 200 }),
      '/stall',
    );
    expect(res.body).toBe('now');
    expect(finished.at(-1)).toMatchObject({ attempts: 2, retries: ['error'] });
  });

  it('the caller’s abort mid-hedge ends every copy with its reason; no socket or timer left', async () => {
    server.route('/stuck', [{ status: 200, body: 'late', delayMs: 3_000 }]);
    const before = activeResources();
    const dispatcher = dispatcherFor({
      hedge: createHedging({ delayMs: 20 }),
      sleep: (ms, signal) => realSleep(ms, signal),
    });
    const controller = new AbortController();
    const reason = new Error('left');
    const pending = get(dispatcher, '/stuck', { signal: controller.signal }).catch((e: unknown) => e);
    while (server.seen('/stuck').length < 2) await realSleep(5);
    const abortedAt = Date.now();
    controller.abort(reason);
    expect(await pending).toBe(reason);
    expect(Date.now() - abortedAt).toBeLessThan(1_500);
    expect(finished.at(-1)).toMatchObject({ reason: 'aborted', attempts: 1, hedge: { copies: 1 } });
    // The copies' connections are closed by the abort itself, not by closing the agent.
    expect(await server.waitForIdle(2_000)).toBe(0);
    for (const agent of agents.splice(0)) await agent.close();
    expect(await settleResources(before)).toEqual({});
  });

  it('a caller that aborts from its onRequestStart: nothing written, no attempt counted', async () => {
    slowThenFast('/early-abort');
    const dispatcher = dispatcherFor({ hedge: createHedging({ delayMs: 20 }) });
    const reason = new Error('not now');
    const error = await new Promise((resolve) => {
      dispatcher.dispatch(
        { origin: server.url, path: '/early-abort', method: 'GET' },
        {
          onRequestStart: (controller) => controller.abort(reason),
          onResponseError: (_c, e) => resolve(e),
        },
      );
    });
    expect(error).toBe(reason);
    await realSleep(60);
    expect(finished).toMatchObject([{ reason: 'aborted', attempts: 0 }]);
    expect(server.seen('/early-abort')).toHaveLength(0);
  });

  it('each copy is one attempt:start event (hedges with their copy number); an attempt, one', async () => {
    slowThenFast('/events');
    const starts: Array<{ attempt: number; copy?: number }> = [];
    const listener = (message: unknown) => {
      const { attempt, copy } = message as { attempt: number; copy?: number };
      starts.push(copy === undefined ? { attempt } : { attempt, copy });
    };
    subscribe('jitterbug:attempt:start', listener);
    try {
      await get(dispatcherFor({ hedge: createHedging({ delayMs: 30 }) }), '/events');
      server.route('/plain', [{ status: 503 }, { status: 200, body: 'ok' }]);
      await get(dispatcherFor({}), '/plain');
    } finally {
      unsubscribe('jitterbug:attempt:start', listener);
    }
    expect(starts).toEqual([{ attempt: 1 }, { attempt: 1, copy: 2 }, { attempt: 1 }, { attempt: 2 }]);
  });

  it('without hedge nothing changes: one copy, no hedge in the summary', async () => {
    slowThenFast('/off', 200);
    expect((await get(dispatcherFor({}), '/off')).body).toBe('slow');
    expect(server.seen('/off')).toHaveLength(1);
    expect(finished.at(-1)?.hedge).toBeUndefined();
  });
});
