/**
 * Hedged requests through the interceptor, where undici's handler API is the point: a raw handler
 * sees one response however many copies were sent, a caller that aborts from its `onRequestStart`
 * sends nothing, and each copy is one `jitterbug:attempt:start` event. What every client does with
 * hedging (which copy wins, the budget, the percentile, the caller's abort, per-copy timers, route
 * rules) is in the conformance suite (`test/conformance/hedging.test.ts`), on undici 8 and 7,
 * `request()`, `fetch()` and Node's fetch.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createHedging, createRetryPolicy, type RetryInfo, type RetryPolicyOptions } from '@jitterbug/core';
import * as undici8 from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedServer, startScriptedServer } from '../../../test/support/scripted-server.ts';
import { sleep as realSleep } from '../../core/src/sleep.ts';
import { retryInterceptor } from '../src/index.ts';

let server: ScriptedServer;
const PROBLEM = 'https://iana.org/assignments/http-problem-types#';
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
const slowThenFast = (path: string) =>
  server.route(path, [
    { status: 200, body: 'slow', held: true },
    { status: 200, body: 'fast' },
  ]);

beforeAll(async () => {
  server = await startScriptedServer();
});
afterEach(async () => {
  for (const agent of agents.splice(0)) await agent.close();
  expect(await server.waitForIdle(3_000)).toBe(0);
  server.reset();
});
afterAll(() => server.close());

describe('hedged requests through undici handlers', () => {
  it('a raw handler sees what a caller sees: one start, one response, one end, the winning copy’s body', async () => {
    slowThenFast('/tail');
    const dispatcher = dispatcherFor({ hedge: createHedging({ delayMs: 50 }) });
    const seen: string[] = [];
    const chunks: Buffer[] = [];
    await new Promise<void>((resolve, reject) => {
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
    expect(seen).toEqual(['start', 'response 200', 'end']);
    expect(Buffer.concat(chunks).toString()).toBe('fast');
    expect(server.seen('/tail')).toHaveLength(2);
    expect(finished).toMatchObject([{ attempts: 1, hedge: { copies: 1, winner: 2 }, outcome: 'success' }]);
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
      const hedged = dispatcherFor({ hedge: createHedging({ delayMs: 30 }) });
      await (await undici8.request(`${server.url}/events`, { dispatcher: hedged })).body.text();
      server.route('/plain', [{ status: 503 }, { status: 200, body: 'ok' }]);
      await (await undici8.request(`${server.url}/plain`, { dispatcher: dispatcherFor({}) })).body.text();
    } finally {
      unsubscribe('jitterbug:attempt:start', listener);
    }
    expect(starts).toEqual([{ attempt: 1 }, { attempt: 1, copy: 2 }, { attempt: 1 }, { attempt: 2 }]);
  });

  // The winning copy's problem type decides, as an attempt's does (undici reads the body of a copy's
  // failed answer before telling its result; a race itself is settled on the status alone).
  it('a hedged copy’s 429 of problem type quota-exceeded stops the request, its body handed over', async () => {
    const body = JSON.stringify({ type: `${PROBLEM}quota-exceeded`, title: 'Quota exceeded' });
    server.route('/quota', [
      { status: 429, headers: { 'content-type': 'application/problem+json' }, body },
      { status: 200, body: 'ok' },
    ]);
    const dispatcher = dispatcherFor({ hedge: createHedging({ delayMs: 1_000 }) });
    const response = await undici8.request(`${server.url}/quota`, { dispatcher });
    expect(response.statusCode).toBe(429);
    expect(await response.body.text()).toBe(body);
    expect(server.seen('/quota')).toHaveLength(1);
    expect(finished).toMatchObject([{ attempts: 1, reason: 'quota-exceeded', outcome: 'failure' }]);
  });

  it('a second copy’s 400 of problem type temporary-reduced-capacity wins, and is retried', async () => {
    const body = JSON.stringify({ type: `${PROBLEM}temporary-reduced-capacity`, title: 'Reduced capacity' });
    server.route('/capacity', [
      { status: 200, body: 'slow', held: true },
      { status: 400, headers: { 'content-type': 'application/problem+json' }, body },
      { status: 200, body: 'ok' },
    ]);
    const dispatcher = dispatcherFor({ hedge: createHedging({ delayMs: 30 }) });
    const response = await undici8.request(`${server.url}/capacity`, { dispatcher });
    expect(response.statusCode).toBe(200);
    expect(await response.body.text()).toBe('ok');
    expect(server.seen('/capacity')).toHaveLength(3);
    expect(finished).toMatchObject([{ attempts: 2, retries: ['reduced-capacity'], outcome: 'success' }]);
  });
});

describe('hedged requests on one connection', () => {
  /**
   * A dispatcher of one connection, whose dispatches (each attempt and hedged copy) are recorded by
   * path; `copied(path)` settles when `path` is dispatched a second time.
   */
  const oneConnection = (options: RetryPolicyOptions) => {
    finished = [];
    const dispatched: string[] = [];
    const copies = new Map<string, () => void>();
    const agent = new undici8.Agent({ connections: 1 });
    agents.push(agent);
    const record =
      (dispatch: undici8.Dispatcher['dispatch']): undici8.Dispatcher['dispatch'] =>
      (opts, handler) => {
        dispatched.push(opts.path);
        if (dispatched.filter((path) => path === opts.path).length === 2) copies.get(opts.path)?.();
        return dispatch(opts, handler);
      };
    const copied = (path: string) => new Promise<void>((resolve) => copies.set(path, resolve));
    const onFinish = (info: RetryInfo) => {
      finished.push(info);
    };
    const policy = createRetryPolicy({ random: () => 0.5, sleep: async () => {}, onFinish, ...options });
    return { agent, dispatcher: agent.compose(record, retryInterceptor(policy)), dispatched, copied };
  };

  // The flake of "a hedged copy of a retry is dispatched in its caller's store" (async-context, before
  // fa2c562), with every answer held by the server rather than by a loaded machine. It looked as if
  // the warm-up's race had kept A's retry from being hedged; there was no retry. The warm-up's copy,
  // queued behind its first on the one connection, lost and was aborted as undici started it (which
  // closes that connection); A's first attempt was then slow in its turn, and hedged: its 503 came
  // while its copy was out, and a retried failure is dropped while another copy is out
  // (`HedgeRace.answer`). The copy's 200 answered the attempt, so nothing was retried.
  it('after a race whose copy lost, the next request is hedged alike; its 503 dropped, the copy answers', async () => {
    const { agent, dispatcher, dispatched, copied } = oneConnection({
      hedge: createHedging({ delayMs: 20 }),
    });
    const warmCopy = copied('/warm');
    server.route('/warm', async (request) => {
      if (request.nth === 0) await warmCopy;
      return { status: 200, body: 'ok' };
    });
    const aCopy = copied('/a');
    server.route('/a', async (request) => {
      if (request.nth > 0) return { status: 200, body: 'slow' };
      await aCopy;
      return { status: 503 };
    });
    const warm = await undici8.request(`${server.url}/warm`, { dispatcher });
    expect(await warm.body.text()).toBe('ok');
    const a = await undici8.request(`${server.url}/a`, { dispatcher });
    expect(`${a.statusCode} ${await a.body.text()}`).toBe('200 slow');
    expect(dispatched).toEqual(['/warm', '/warm', '/a', '/a']);
    // The warm-up's copy was never written; A's copy was, after the 503 it made nobody wait for.
    expect(server.requests.map((request) => request.path)).toEqual(['/warm', '/a', '/a']);
    expect(finished).toMatchObject([
      { attempts: 1, hedge: { copies: 1, winner: 1 }, outcome: 'success' },
      { attempts: 1, retries: [], hedge: { copies: 1, winner: 2 }, outcome: 'success' },
    ]);
    // Every copy that lost was let go: the client closes, and leaves no socket open.
    await agents.splice(agents.indexOf(agent), 1)[0]!.close();
    expect(await server.waitForIdle(3_000)).toBe(0);
  });
});
