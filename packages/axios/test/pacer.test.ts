/**
 * The origin-wide pacer on axios, where axios itself is the point: a `CancelToken` ends a hold with
 * the Cancel axios rejects with, and nothing is sent. What every client does with the pacer (holds,
 * advertised quotas, `PacerError`, the caller's signal) is in the conformance suite
 * (`test/conformance/pacer.test.ts`). The clock is injected and does not move, so the hold is still
 * on when the next request starts.
 */
import { createPacer, createRetryPolicy } from '@jitterbug/core';
import axios, { isCancel } from 'axios';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedServer, startScriptedServer } from '../../../test/support/scripted-server.ts';
import { attachRetry, getRetryInfo } from '../src/index.ts';
import { rejection } from './helpers.ts';

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
  it('a CancelToken ends a hold at once with the Cancel axios rejects with; nothing is sent', async () => {
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
    const source = axios.CancelToken.source();
    const pending = rejection(api.get('/other', { cancelToken: source.token }));
    await holding;
    source.cancel('stop');
    const error = await pending;
    expect(isCancel(error)).toBe(true);
    expect(error).toMatchObject({ message: 'stop' });
    expect(server.seen('/other')).toHaveLength(0);
    expect(getRetryInfo(error)).toMatchObject({ attempts: 0, reason: 'aborted' });
  });
});
