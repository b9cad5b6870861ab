/**
 * Aborts and deadlines, on every client: an abort during an attempt, during a 20 s wait, between
 * attempts and before the first releases the caller promptly with the abort reason, and no further
 * attempt reaches the server; a wait never runs past `deadlineMs`. Real timers with small numbers
 * (asserting only generous bounds), or an injected clock.
 */
import type { RetryInfo, RetryOptions } from '@jitterbug/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sleep as realSleep } from '../../packages/core/src/sleep.ts';
import type { ConformanceClient, ConformanceResult } from '../conformance/driver.ts';
import { drivers } from '../conformance/drivers/index.ts';
import { type ScriptedServer, type Step, startScriptedServer } from '../support/scripted-server.ts';
import { activeResources, captureUnhandled, settleResources } from './support.ts';

/** "Promptly": far more than an abort needs, far less than any wait in these tests. */
const PROMPT_MS = 1_500;

const until = async (condition: () => boolean, timeoutMs = 5_000): Promise<void> => {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await realSleep(5);
  }
};

describe.each(drivers.map((d) => [d.name, d] as const))('aborts and deadlines: %s', (_name, driver) => {
  /**
   * The client's abort error for `reason`; the run ended once, as aborted, after `attempts` attempts
   * (fetch rejects on the abort itself, so its run may end a moment after the caller was released).
   */
  const expectAborted = async (
    result: ConformanceResult,
    reason: unknown,
    attempts: number,
  ): Promise<void> => {
    expect(result.outcome.kind).toBe('error');
    if (result.outcome.kind === 'error') expect(driver.isAbort(result.outcome.error, reason)).toBe(true);
    await until(() => finished.length > 0);
    expect(finished).toMatchObject([{ reason: 'aborted', attempts, outcome: 'failure' }]);
    if (result.info) expect(result.info).toBe(finished[0]);
  };

  let server: ScriptedServer;
  const clients: ConformanceClient[] = [];
  const held: Array<() => void> = [];
  let unhandled: ReturnType<typeof captureUnhandled>;

  let finished: RetryInfo[] = [];
  const client = async (options: RetryOptions): Promise<ConformanceClient> => {
    finished = [];
    const c = await driver.create(server.url, { ...options, onFinish: (summary) => finished.push(summary) });
    clients.push(c);
    return c;
  };
  /** A script that answers only when the test releases it (or at the end of the test). */
  const hold = (step: Step) => (): Promise<Step> => new Promise((resolve) => held.push(() => resolve(step)));

  beforeAll(async () => {
    server = await startScriptedServer();
    unhandled = captureUnhandled();
  });
  afterEach(async () => {
    for (const release of held.splice(0)) release();
    for (const c of clients.splice(0)) await c.close();
    expect(await server.waitForIdle(3_000)).toBe(0);
    server.reset();
  });
  afterAll(async () => {
    unhandled.dispose();
    expect(unhandled.reasons.map(String)).toEqual([]);
    await server.close();
  });

  it('an abort during an attempt releases the caller at once; nothing is sent again', async () => {
    server.route('/slow', hold({ status: 503 }));
    const c = await client({ maxAttempts: 5, sleep: () => realSleep(0) });
    const controller = new AbortController();
    const reason = new Error('caller gave up during the attempt');
    const pending = c.send({ method: 'GET', path: '/slow', signal: controller.signal });
    await until(() => server.seen('/slow').length === 1);
    const abortedAt = Date.now();
    controller.abort(reason);
    const result = await pending;
    expect(Date.now() - abortedAt).toBeLessThan(PROMPT_MS);
    await expectAborted(result, reason, 1);
    for (const release of held.splice(0)) release();
    await realSleep(100);
    expect(server.seen('/slow')).toHaveLength(1);
  });

  it('an abort during a 20 s wait releases the caller at once; nothing is sent again, no timer left', async () => {
    server.route('/wait', [{ status: 503 }, { status: 200, body: 'late' }]);
    const before = activeResources();
    const c = await client({ retryAfter: false, backoff: { strategy: 'constant', baseMs: 20_000 } });
    const controller = new AbortController();
    const reason = new Error('caller gave up during the wait');
    const started = Date.now();
    const pending = c.send({ method: 'GET', path: '/wait', signal: controller.signal });
    await until(() => server.responses.length === 1);
    await realSleep(30);
    controller.abort(reason);
    const result = await pending;
    expect(Date.now() - started).toBeLessThan(PROMPT_MS + 1_000);
    await expectAborted(result, reason, 1);
    await realSleep(100);
    expect(server.seen('/wait')).toHaveLength(1);
    // The 20 s timer went with the abort; the client's sockets with its close.
    for (const closing of clients.splice(0)) await closing.close();
    expect(await settleResources(before)).toEqual({});
  });

  it('an abort between attempts (as the wait ends) stops the next attempt', async () => {
    server.route('/between', [{ status: 503 }, { status: 200, body: 'late' }]);
    const controller = new AbortController();
    const reason = new Error('caller gave up between attempts');
    // The wait completes normally, and the caller's signal fires in the same instant.
    const c = await client({
      sleep: async () => {
        controller.abort(reason);
      },
    });
    const result = await c.send({ method: 'GET', path: '/between', signal: controller.signal });
    await expectAborted(result, reason, 1);
    await realSleep(100);
    expect(server.seen('/between')).toHaveLength(1);
  });

  it('an abort while a retried response is being discarded stops the next attempt', async () => {
    // A large error body: the client drains (or drops) it before waiting; the abort lands meanwhile.
    server.route('/discard', [
      { status: 503, bodyBytes: 8 * 1024 * 1024 },
      { status: 200, body: 'late' },
    ]);
    const controller = new AbortController();
    const reason = new Error('caller gave up while the body was discarded');
    const c = await client({
      discardBodyMaxBytes: 16 * 1024 * 1024,
      sleep: (ms, signal) => realSleep(ms, signal),
    });
    const pending = c.send({ method: 'GET', path: '/discard', signal: controller.signal });
    await until(() => server.responses.length === 1);
    controller.abort(reason);
    const abortedAt = Date.now();
    const result = await pending;
    expect(Date.now() - abortedAt).toBeLessThan(PROMPT_MS);
    await expectAborted(result, reason, 1);
    await realSleep(100);
    expect(server.seen('/discard')).toHaveLength(1);
  });

  it('a signal aborted before the request sends nothing', async () => {
    server.route('/never', [{ status: 200 }]);
    const c = await client({});
    const reason = new Error('aborted before the start');
    const result = await c.send({ method: 'GET', path: '/never', signal: AbortSignal.abort(reason) });
    expect(result.outcome.kind).toBe('error');
    if (result.outcome.kind === 'error') {
      expect(driver.isAbort(result.outcome.error, reason, true)).toBe(true);
    }
    // axios and fetch reject such a request themselves before jitterbug runs: no run, no summary.
    // Others end their run without counting an attempt.
    expect(finished.length).toBeLessThanOrEqual(1);
    for (const summary of finished) expect(summary).toMatchObject({ reason: 'aborted', attempts: 0 });
    await realSleep(50);
    expect(server.seen('/never')).toHaveLength(0);
  });

  it('no wait runs past deadlineMs (real clock, real waits)', async () => {
    server.route('/deadline', [{ status: 503 }]);
    const deadlineMs = 400;
    let start: number | undefined;
    const overruns: number[] = [];
    let waits = 0;
    const c = await client({
      maxAttempts: 1000,
      budget: false,
      retryAfter: false,
      deadlineMs,
      backoff: { strategy: 'exponential', baseMs: 20, capMs: 160 },
      now: () => {
        const t = Date.now();
        start ??= t;
        return t;
      },
      sleep: (ms, signal) => {
        waits++;
        // Measured when the wait starts, a little after the decision: allow a generous 50 ms.
        const end = Date.now() - start! + ms;
        if (end > deadlineMs + 50) overruns.push(end);
        return realSleep(ms, signal);
      },
    });
    const sent = Date.now();
    const result = await c.send({ method: 'GET', path: '/deadline' });
    expect(Date.now() - sent).toBeLessThan(deadlineMs + PROMPT_MS);
    expect(waits).toBeGreaterThanOrEqual(2);
    expect(overruns).toEqual([]);
    expect(result.info?.reason).toBe('deadline');
  });

  it('no wait runs past deadlineMs (injected clock; slow attempts and Retry-After)', async () => {
    let clock = 1_000_000;
    let start: number | undefined;
    let step = 0;
    // Each attempt "takes" some time on the injected clock; some answers ask for a Retry-After.
    server.route('/clock', () => {
      clock += [30, 170, 5, 90, 240][step % 5]!;
      step++;
      return step % 3 === 0 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 503 };
    });
    const deadlineMs = 2_500;
    const ends: number[] = [];
    const c = await client({
      maxAttempts: 1000,
      budget: false,
      deadlineMs,
      random: () => 0.99,
      backoff: { strategy: 'exponential', baseMs: 50, capMs: 800 },
      now: () => {
        start ??= clock;
        return clock;
      },
      sleep: async (ms) => {
        ends.push(clock - start! + ms);
        clock += ms;
      },
    });
    const result = await c.send({ method: 'GET', path: '/clock' });
    expect(ends.length).toBeGreaterThanOrEqual(3);
    for (const end of ends) expect(end).toBeLessThanOrEqual(deadlineMs);
    expect(result.info?.reason).toBe('deadline');
  });
});
