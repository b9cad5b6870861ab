/**
 * Why axios' `httpVersion: 2` is not among the conformance suite's HTTP/2 runs, asserted (the
 * research behind it: `test/support/signals-h2-axios.test.ts`). With jitterbug attached, a
 * connection lost before the headers never settles: axios' http2 path neither rejects nor fires
 * its own `timeout`, so there is no error for jitterbug to retry or to hand over (the scenarios on a
 * lost connection expect the client's network error). Only the caller's signal ends such a request,
 * or jitterbug's `attemptTimeoutMs`, which aborts the attempt and retries it like any lost attempt.
 * A RST_STREAM `CANCEL` mid-body is taken for the end of the body, below jitterbug.
 */
import { attachRetry } from '@jitterbug/axios';
import { createRetryPolicy, type RetryInfo } from '@jitterbug/core';
import axios, { type AxiosInstance } from 'axios';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '../../packages/core/src/sleep.ts';
import { type H2ScriptedServer, startH2ScriptedServer } from '../support/h2-scripted-server.ts';

let server: H2ScriptedServer;
beforeAll(async () => {
  server = await startH2ScriptedServer();
});
afterEach(async () => {
  // axios closes its cached HTTP/2 sessions after `sessionTimeout` (10 ms) without a stream.
  expect(await server.waitForIdle(3_000)).toBe(0);
  server.reset();
});
afterAll(() => server.close());

const api = (options: { attemptTimeoutMs?: number; finished: RetryInfo[] }): AxiosInstance => {
  const instance = axios.create({
    baseURL: server.url,
    httpVersion: 2,
    http2Options: { ca: server.ca, sessionTimeout: 10 },
    responseType: 'text',
    transformResponse: [],
    // axios' own timeout, which its http2 path never fires for a lost connection (it does fire while
    // a session is being set up, which on a busy machine can take that long).
    timeout: 250,
  });
  attachRetry(
    instance,
    createRetryPolicy({
      random: () => 0,
      sleep: (_ms, signal) => sleep(0, signal),
      onFinish: (info) => {
        options.finished.push(info);
      },
      ...(options.attemptTimeoutMs === undefined ? {} : { attemptTimeoutMs: options.attemptTimeoutMs }),
    }),
  );
  return instance;
};

describe('axios httpVersion: 2 with jitterbug', () => {
  it('a connection lost before the headers never settles: no error to retry or hand over', async () => {
    server.route('/gone', [{ destroy: 'before-headers' }, { status: 200, body: 'back' }]);
    const finished: RetryInfo[] = [];
    const controller = new AbortController();
    let settled = false;
    const pending = api({ finished })
      .get('/gone', { signal: controller.signal })
      .finally(() => {
        settled = true;
      });
    await expect.poll(() => server.seen('/gone').length, { timeout: 5_000 }).toBe(1);
    // Four times axios' timeout: still nothing, and nothing sent again.
    await sleep(1_000);
    expect(settled).toBe(false);
    expect(finished).toEqual([]);
    expect(server.seen('/gone')).toHaveLength(1);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'ERR_CANCELED' });
    // On a busy machine an attempt before the one the server saw may have timed out while its
    // session was being set up (axios' timeout fires there): it was sent, as far as the client
    // knows, and is counted. The one the server saw was the last, and only the abort ended it.
    expect(finished).toMatchObject([{ reason: 'aborted' }]);
    expect(finished[0]!.attempts).toBeGreaterThanOrEqual(1);
  });

  it('attemptTimeoutMs ends such an attempt, and a GET is sent again', async () => {
    server.route('/gone', [{ destroy: 'before-headers' }, { status: 200, body: 'back' }]);
    const finished: RetryInfo[] = [];
    const response = await api({ finished, attemptTimeoutMs: 400 }).get<string>('/gone');
    expect(response).toMatchObject({ status: 200, data: 'back' });
    // The lost attempt timed out and was retried; on a busy machine the retry may time out too
    // (400 ms), and the one after it gets the 200: every retry follows a timeout.
    expect(finished).toMatchObject([{ outcome: 'success' }]);
    const [{ attempts, retries }] = finished as [RetryInfo];
    expect(attempts).toBeGreaterThanOrEqual(2);
    expect(retries).toEqual(Array(attempts - 1).fill('error'));
  });
});
