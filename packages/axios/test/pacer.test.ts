/**
 * The origin-wide pacer on axios: after a 429 with `Retry-After`, the policy's next request to that
 * origin waits before it is sent (`run.beforeAttempt`'s hold), is refused at once with a
 * `PacerError` when the hold is too long, and a cancel ends the hold with what axios rejects with.
 * The clock is injected and does not move, so the hold is still on when the next request starts.
 */
import { createPacer, createRetryPolicy, PacerError } from '@jitterbug/core';
import axios, { isCancel } from 'axios';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedServer, startScriptedServer } from '../../../test/support/scripted-server.ts';
import { attachRetry, getRetryInfo } from '../src/index.ts';
import { recordingSleep, rejection } from './helpers.ts';

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterEach(() => server.reset());
afterAll(async () => {
  await server.close();
});

const NOW = Date.UTC(2026, 10, 26, 9, 0, 0);

describe('pacer', () => {
  it('a 429 with Retry-After holds the next request to the origin before it is sent', async () => {
    server.route('/limited', [{ status: 429, headers: { 'retry-after': '2' } }]);
    server.route('/other', [{ status: 200, body: 'ok' }]);
    const delays: number[] = [];
    const api = axios.create({ baseURL: server.url });
    attachRetry(api, {
      now: () => NOW,
      random: () => 0.5,
      sleep: recordingSleep(delays),
      maxAttempts: 1,
      pacer: createPacer(),
    });
    await rejection(api.get('/limited'));
    expect(delays).toEqual([]);
    const response = await api.get('/other');
    expect(response.data).toBe('ok');
    // Held for the server's 2 s before the request went out (told in steps: a long wait is asked again).
    const held = delays.reduce((a, b) => a + b, 0);
    expect(held).toBeGreaterThanOrEqual(2000);
    expect(held).toBeLessThan(2100);
    expect(getRetryInfo(response)).toMatchObject({ attempts: 1, totalDelayMs: held });
  });

  it('a hold longer than retryAfter.maxMs refuses the request at once with a PacerError', async () => {
    server.route('/limited', [{ status: 429, headers: { 'retry-after': '120' } }]);
    const api = axios.create({ baseURL: server.url });
    attachRetry(api, {
      now: () => NOW,
      sleep: recordingSleep([]),
      retryAfter: { maxMs: 5_000 },
      pacer: createPacer(),
    });
    await rejection(api.get('/limited'));
    const error = await rejection(api.get('/other'));
    expect(error).toBeInstanceOf(PacerError);
    expect(server.seen('/other')).toHaveLength(0);
    expect(getRetryInfo(error)).toMatchObject({ attempts: 0, reason: 'retry-after-too-long' });
  });

  it.each([
    ['an AbortSignal', 'signal'],
    ['a CancelToken', 'token'],
  ] as const)('%s ends a hold at once with what axios rejects with; nothing is sent', async (_, kind) => {
    server.route('/limited', [{ status: 429, headers: { 'retry-after': '30' } }]);
    let held!: () => void;
    const holding = new Promise<void>((resolve) => {
      held = resolve;
    });
    // A sleep that only an abort ends.
    const sleep = (_ms: number, signal?: AbortSignal): Promise<void> =>
      new Promise((_resolve, reject) => {
        held();
        signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
    const policy = createRetryPolicy({ now: () => NOW, sleep, maxAttempts: 1, pacer: createPacer() });
    const api = axios.create({ baseURL: server.url });
    attachRetry(api, policy);
    await rejection(api.get('/limited'));
    const controller = new AbortController();
    const source = axios.CancelToken.source();
    const pending = rejection(
      api.get('/other', kind === 'signal' ? { signal: controller.signal } : { cancelToken: source.token }),
    );
    await holding;
    if (kind === 'signal') controller.abort();
    else source.cancel('stop');
    const error = await pending;
    expect(isCancel(error)).toBe(true);
    if (kind === 'token') expect(error).toMatchObject({ message: 'stop' });
    expect(server.seen('/other')).toHaveLength(0);
    expect(getRetryInfo(error)).toMatchObject({ attempts: 0, reason: 'aborted' });
  });
});
