/**
 * undici's own retry in the same chain (`src/undici-retry.ts`), with undici's real `RetryHandler`
 * (undici 8 and 7) in front of or behind the interceptor, and a scripted fake of the dispatch below
 * them: undici's retry outside is passed on, `interceptors.retry()` inside is told to pass every
 * answer on, a `RetryAgent` inside is refused before anything is written.
 */
import type { RetryInfo, RetryOptions } from '@jitterbug/core';
import * as undici8 from 'undici';
import * as undici7 from 'undici7';
import { describe, expect, test } from 'vitest';
import { retryInterceptor } from '../src/index.ts';
import type { Controller, DispatchOpts, LegacyHandler, NewHandler, NextDispatch } from '../src/types.ts';
import { fakeNext, RecordingCaller } from './fake-dispatch.ts';
import { recordingSleep } from './helpers.ts';

type Interceptor = (next: NextDispatch) => NextDispatch;
type Undici = typeof undici8;

const GET: DispatchOpts = { origin: 'http://api.test', path: '/items/1', method: 'GET', headers: {} };
const UNDICI_RETRY = { maxRetries: 3, minTimeout: 1, maxTimeout: 1 };
const tick = () => new Promise((r) => setImmediate(r));

const jitterbug = (finished: RetryInfo[], options: RetryOptions = {}): Interceptor =>
  retryInterceptor({
    sleep: recordingSleep().sleep,
    onFinish: (summary) => finished.push(summary),
    ...options,
  }) as never;

/** Answers the dispatch's handler as undici would, a body of `body`. */
const answer = (handler: NewHandler, controller: Controller, status: number, body: string) => {
  handler.onResponseStart?.(controller, status, { 'content-length': String(body.length) });
  handler.onResponseData?.(controller, Buffer.from(body));
  handler.onResponseEnd?.(controller, {});
};

describe.each([
  ['undici 8', undici8],
  ['undici 7', undici7 as unknown as Undici],
])('%s', (_name, u) => {
  const undiciRetry = u.interceptors.retry(UNDICI_RETRY) as unknown as Interceptor;

  test('under interceptors.retry(), a dispatch is passed on: undici decides, no run begins', () => {
    const { next, dispatched } = fakeNext();
    const finished: RetryInfo[] = [];
    const dispatch = undiciRetry(jitterbug(finished)(next));
    const caller = new RecordingCaller();
    dispatch(GET, caller);
    expect(dispatched).toHaveLength(1);
    expect(dispatched[0]!.handler).toBeInstanceOf(u.RetryHandler);
    const controller = dispatched[0]!.start();
    answer(dispatched[0]!.handler, controller, 200, 'ok');
    expect(caller.events).toEqual(['start', 'response 200', 'data', 'end']);
    expect(finished).toEqual([]);
  });

  test('under interceptors.retry(), a legacy handler (Node’s fetch) hears back', () => {
    const { next, dispatched } = fakeNext();
    const events: string[] = [];
    const legacy: LegacyHandler = {
      onConnect: () => events.push('connect'),
      onHeaders: (status) => {
        events.push(`headers ${status}`);
        return true;
      },
      onData: () => {
        events.push('data');
        return true;
      },
      onComplete: () => events.push('complete'),
      onError: (error) => events.push(`error ${error.message}`),
    };
    undiciRetry(jitterbug([])(next))(GET, legacy as never);
    const controller = dispatched[0]!.start();
    answer(dispatched[0]!.handler, controller, 200, 'ok');
    expect(events).toEqual(['connect', 'headers 200', 'data', 'complete']);
  });

  test('over interceptors.retry(), each attempt tells it to pass every answer on: jitterbug decides', async () => {
    const { next, dispatched } = fakeNext();
    const finished: RetryInfo[] = [];
    const dispatch = jitterbug(finished, { maxAttempts: 3 })(undiciRetry(next));
    const caller = new RecordingCaller();
    dispatch(GET, caller);
    // Found as it starts the first attempt: that one, unwritten, goes again so told.
    const first = dispatched[0]!.start();
    expect(first.aborted).toBe(true);
    expect(dispatched[0]!.opts).not.toHaveProperty('retryOptions');
    await tick();
    expect(dispatched).toHaveLength(2);
    expect(dispatched[1]!.opts).toMatchObject({
      ...GET,
      retryOptions: { throwOnError: true, statusCodes: [] },
    });
    expect(caller.events).toEqual([]);
    // undici's retry hands the 503 on; jitterbug retries it.
    answer(dispatched[1]!.handler, dispatched[1]!.start(), 503, 'down');
    await tick();
    await tick();
    expect(dispatched).toHaveLength(3);
    expect(dispatched[2]!.opts).toHaveProperty('retryOptions');
    answer(dispatched[2]!.handler, dispatched[2]!.start(), 200, 'ok');
    expect(caller.events).toEqual(['start', 'response 200', 'data', 'end']);
    expect(finished).toMatchObject([{ attempts: 2, outcome: 'success', status: 200 }]);
  });

  test('over interceptors.retry(), a failure is handed on to jitterbug, not retried by undici', async () => {
    const { next, dispatched } = fakeNext();
    const finished: RetryInfo[] = [];
    const dispatch = jitterbug(finished, { maxAttempts: 2 })(undiciRetry(next));
    const caller = new RecordingCaller();
    dispatch(GET, caller);
    dispatched[0]!.start();
    await tick();
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    const handler = dispatched[1]!.handler;
    dispatched[1]!.start();
    handler.onResponseError?.(null, reset);
    await tick();
    expect(dispatched).toHaveLength(3);
    dispatched[2]!.start();
    dispatched[2]!.handler.onResponseError?.(null, reset);
    await tick();
    expect(dispatched).toHaveLength(3);
    expect(caller.error).toBe(reset);
    expect(finished).toMatchObject([{ attempts: 2, reason: 'max-attempts' }]);
  });

  test('over a RetryAgent, which cannot be told, the request fails with a TypeError before anything is written', async () => {
    const { next, dispatched } = fakeNext();
    const agent = new u.RetryAgent({ dispatch: next, close() {}, destroy() {} } as never, UNDICI_RETRY);
    const finished: RetryInfo[] = [];
    const dispatch = jitterbug(finished)((opts, handler) => agent.dispatch(opts as never, handler as never));
    const caller = new RecordingCaller();
    dispatch(GET, caller);
    dispatched[0]!.start();
    await tick();
    const told = dispatched[1]!.start();
    expect(told.aborted).toBe(true);
    expect(caller.error).toBeInstanceOf(TypeError);
    expect(caller.error?.message).toContain('new RetryAgent(new Agent().compose(retryInterceptor(options)))');
    expect(finished).toMatchObject([{ outcome: 'failure', reason: 'error-not-retryable' }]);
    // Known from then on: the next request is told from the start, and refused as it starts.
    const second = new RecordingCaller();
    dispatch(GET, second);
    expect(dispatched).toHaveLength(3);
    expect(dispatched[2]!.start().aborted).toBe(true);
    expect(second.error).toBeInstanceOf(TypeError);
    expect(dispatched).toHaveLength(3);
  });
});
