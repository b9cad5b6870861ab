/**
 * The translation layer alone: the interceptor in front of a scripted fake `dispatch`, so every
 * handler call undici could make (and when) is under the test's control.
 */
import {
  AttemptTimeoutError,
  createBodyBuffering,
  createRetryPolicy,
  getRetryInfo,
  type RetryOptions,
} from '@jitterbug/core';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { retryInterceptor } from '../src/index.ts';
import type { Controller, DispatchOpts, HeaderRecord, NewHandler, NextDispatch } from '../src/types.ts';
import { fakeNext, RecordingCaller } from './fake-dispatch.ts';
import { endlessSleep, recordingSleep } from './helpers.ts';

const setup = (options: RetryOptions = {}) => {
  const { next, dispatched } = fakeNext();
  const { sleep, delays } = recordingSleep();
  const finished: unknown[] = [];
  const dispatch = (
    retryInterceptor({
      sleep,
      random: () => 0.5,
      onFinish: (s) => finished.push(s),
      ...options,
    }) as never as (n: NextDispatch) => NextDispatch
  )(next);
  return { dispatch, dispatched, delays, finished };
};

const GET: DispatchOpts = {
  origin: 'http://api.test',
  path: '/items/1',
  method: 'GET',
  headers: { accept: 'text/plain' },
};
const tick = () => new Promise((r) => setImmediate(r));

afterEach(() => {
  vi.useRealTimers();
});

describe('the success path streams straight through', () => {
  test('one dispatch with the caller’s own opts, the same headers object and the same chunks', () => {
    const { dispatch, dispatched } = setup();
    const caller = new RecordingCaller();
    dispatch(GET, caller);
    expect(dispatched).toHaveLength(1);
    expect(dispatched[0]!.opts).toBe(GET);
    const inner = dispatched[0]!.start();
    const headers = { 'content-type': 'text/plain' };
    inner.rawHeaders = [Buffer.from('content-type'), Buffer.from('text/plain')];
    const chunk = Buffer.from('hello');
    const h = dispatched[0]!.handler;
    h.onResponseStart?.(inner, 200, headers, 'OK');
    h.onResponseData?.(inner, chunk);
    h.onResponseEnd?.(inner, {});
    expect(caller.events).toEqual(['start', 'response 200', 'data', 'end']);
    expect(caller.headers).toBe(headers);
    expect(caller.chunks[0]).toBe(chunk);
    expect(caller.controller?.rawHeaders).toBe(inner.rawHeaders);
    expect(getRetryInfo(headers)).toMatchObject({ attempts: 1, outcome: 'success' });
  });

  test('the caller’s pause, resume and abort reach the attempt in flight', () => {
    const { dispatch, dispatched } = setup();
    const caller = new RecordingCaller();
    dispatch(GET, caller);
    const inner = dispatched[0]!.start();
    dispatched[0]!.handler.onResponseStart?.(inner, 200, {});
    caller.controller!.pause();
    caller.controller!.resume();
    const reason = new Error('stop');
    caller.controller!.abort(reason);
    expect(inner.calls).toEqual(['pause', 'resume', 'abort']);
    expect(inner.reason).toBe(reason);
    expect(caller.error).toBe(reason);
    expect(caller.controller!.aborted).toBe(true);
  });

  test('an error after the response was delivered goes to the caller, never retried', () => {
    const { dispatch, dispatched } = setup();
    const caller = new RecordingCaller();
    dispatch(GET, caller);
    const inner = dispatched[0]!.start();
    const h = dispatched[0]!.handler;
    h.onResponseStart?.(inner, 200, {});
    const reset = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
    h.onResponseError?.(inner, reset);
    expect(caller.error).toBe(reset);
    expect(dispatched).toHaveLength(1);
  });

  test('interim 1xx answers pass through and are not outcomes', () => {
    const { dispatch, dispatched, finished } = setup();
    const caller = new RecordingCaller();
    dispatch(GET, caller);
    const inner = dispatched[0]!.start();
    dispatched[0]!.handler.onResponseStart?.(inner, 103, { link: '</a.css>' });
    expect(finished).toHaveLength(0);
    dispatched[0]!.handler.onResponseStart?.(inner, 200, {});
    expect(caller.events).toEqual(['start', 'response 103', 'response 200']);
  });
});

describe('a retried response is swallowed', () => {
  test('the caller sees one request: no 503, one onRequestStart, then the retry’s response', async () => {
    const { dispatch, dispatched, delays } = setup();
    const caller = new RecordingCaller();
    dispatch(GET, caller);
    const first = dispatched[0]!.start();
    const h1 = dispatched[0]!.handler;
    h1.onResponseStart?.(first, 503, { 'content-length': '4' });
    h1.onResponseData?.(first, Buffer.from('busy'));
    h1.onResponseEnd?.(first, {});
    expect(first.calls).toEqual([]);
    await tick();
    expect(delays).toHaveLength(1);
    expect(dispatched).toHaveLength(2);
    expect(dispatched[1]!.opts).toBe(GET);
    const second = dispatched[1]!.start();
    dispatched[1]!.handler.onResponseStart?.(second, 200, {});
    dispatched[1]!.handler.onResponseEnd?.(second, {});
    expect(caller.events).toEqual(['start', 'response 200', 'end']);
  });

  test('a body declared over discardBodyMaxBytes is not read: the attempt is aborted at once', async () => {
    const { dispatch, dispatched } = setup({ discardBodyMaxBytes: 10 });
    dispatch(GET, new RecordingCaller());
    const first = dispatched[0]!.start();
    dispatched[0]!.handler.onResponseStart?.(first, 503, { 'content-length': '1000000' });
    expect(first.calls).toEqual(['abort']);
    await tick();
    expect(dispatched).toHaveLength(2);
  });

  test('a HEAD answer’s content-length (no body follows) does not close the connection', async () => {
    const { dispatch, dispatched } = setup({ discardBodyMaxBytes: 10 });
    dispatch({ ...GET, method: 'HEAD' }, new RecordingCaller());
    const first = dispatched[0]!.start();
    dispatched[0]!.handler.onResponseStart?.(first, 503, { 'content-length': '1000000' });
    dispatched[0]!.handler.onResponseEnd?.(first, {});
    expect(first.calls).toEqual([]);
    await tick();
    expect(dispatched).toHaveLength(2);
  });

  test('an undeclared body is drained up to discardBodyMaxBytes, then the attempt is aborted', async () => {
    const { dispatch, dispatched } = setup({ discardBodyMaxBytes: 10 });
    const caller = new RecordingCaller();
    dispatch(GET, caller);
    const first = dispatched[0]!.start();
    const h = dispatched[0]!.handler;
    h.onResponseStart?.(first, 503, {});
    h.onResponseData?.(first, Buffer.alloc(6));
    expect(first.calls).toEqual([]);
    h.onResponseData?.(first, Buffer.alloc(6));
    expect(first.calls).toEqual(['abort']);
    // Late events of the abandoned attempt are ignored.
    h.onResponseData?.(first, Buffer.alloc(6));
    h.onResponseError?.(first, new Error('late'));
    await tick();
    expect(dispatched).toHaveLength(2);
    expect(caller.events).toEqual(['start']);
  });

  test('abort during the wait: the wait ends at once with the reason, nothing more is sent', async () => {
    const { sleep, delays } = endlessSleep();
    const { dispatch, dispatched, finished } = setup({ sleep });
    const caller = new RecordingCaller();
    dispatch(GET, caller);
    const first = dispatched[0]!.start();
    dispatched[0]!.handler.onResponseStart?.(first, 503, {});
    dispatched[0]!.handler.onResponseEnd?.(first, {});
    expect(delays).toHaveLength(1);
    const reason = new Error('bye');
    caller.controller!.abort(reason);
    await tick();
    expect(caller.events).toEqual(['start', 'error']);
    expect(caller.error).toBe(reason);
    expect(dispatched).toHaveLength(1);
    expect(finished).toMatchObject([{ reason: 'aborted', attempts: 1 }]);
  });

  test('an attempt refused before connecting still gives the caller a controller to abort the wait', async () => {
    const { sleep } = endlessSleep();
    const { dispatch, dispatched } = setup({ sleep });
    const caller = new RecordingCaller();
    dispatch(GET, caller);
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    dispatched[0]!.handler.onResponseError?.(null, refused);
    expect(caller.events).toEqual(['start']);
    caller.controller!.abort(new Error('stop'));
    await tick();
    expect(caller.events).toEqual(['start', 'error']);
    expect(dispatched).toHaveLength(1);
  });

  test('a throwing user hook reaches the caller and ends the attempt', () => {
    const boom = new Error('hook');
    const { dispatch, dispatched } = setup({
      shouldRetry: () => {
        throw boom;
      },
    });
    const caller = new RecordingCaller();
    dispatch(GET, caller);
    const first = dispatched[0]!.start();
    dispatched[0]!.handler.onResponseStart?.(first, 503, {});
    expect(first.calls).toEqual(['abort']);
    expect(caller.error).toBe(boom);
  });
});

describe('bodies', () => {
  test('a buffered stream body: dispatched later, with bytes; a retry sends the same bytes', async () => {
    const { dispatch, dispatched } = setup({ bodyBuffering: createBodyBuffering({ maxBytes: 100 }) });
    const body = (async function* () {
      yield 'ab';
      yield 'c';
    })();
    expect(dispatch({ ...GET, method: 'PUT', body }, new RecordingCaller())).toBe(true);
    expect(dispatched).toHaveLength(0);
    await tick();
    const first = dispatched[0]!;
    expect((first.opts.body as Buffer).toString()).toBe('abc');
    const c = first.start();
    first.handler.onResponseStart?.(c, 503, {});
    first.handler.onResponseEnd?.(c, {});
    await tick();
    expect(dispatched[1]!.opts).toBe(first.opts);
  });

  test('a stream that fails while being buffered: the caller gets its error, nothing is sent', async () => {
    const boom = new Error('disk');
    const { dispatch, dispatched, finished } = setup({
      bodyBuffering: createBodyBuffering({ maxBytes: 100 }),
    });
    const caller = new RecordingCaller();
    const body = (async function* () {
      yield 'a';
      throw boom;
    })();
    dispatch({ ...GET, method: 'PUT', body }, caller);
    await tick();
    expect(caller.error).toBe(boom);
    expect(dispatched).toHaveLength(0);
    expect(finished).toMatchObject([{ reason: 'error-not-retryable' }]);
  });
});

describe('attemptTimeoutMs', () => {
  test('aborts a silent attempt with AttemptTimeoutError, retries, and leaves no timer', async () => {
    vi.useFakeTimers();
    const { dispatch, dispatched } = setup({ attemptTimeoutMs: 1000, maxAttempts: 2 });
    const caller = new RecordingCaller();
    dispatch(GET, caller);
    const first = dispatched[0]!.start();
    vi.advanceTimersByTime(1000);
    expect(first.reason).toBeInstanceOf(AttemptTimeoutError);
    await vi.advanceTimersToNextTimerAsync();
    expect(dispatched).toHaveLength(2);
    const second = dispatched[1]!.start();
    dispatched[1]!.handler.onResponseStart?.(second, 200, {});
    expect(vi.getTimerCount()).toBe(0);
    dispatched[1]!.handler.onResponseEnd?.(second, {});
    expect(caller.events).toEqual(['start', 'response 200', 'end']);
  });

  test('an attempt not started yet is abandoned, and aborted as soon as undici starts it', async () => {
    vi.useFakeTimers();
    const { dispatch, dispatched } = setup({ attemptTimeoutMs: 50, maxAttempts: 2 });
    const caller = new RecordingCaller();
    dispatch(GET, caller);
    vi.advanceTimersByTime(50);
    await vi.advanceTimersToNextTimerAsync();
    expect(dispatched).toHaveLength(2);
    const late = dispatched[0]!.start();
    expect(late.reason).toBeInstanceOf(AttemptTimeoutError);
    vi.advanceTimersByTime(50);
    await vi.runAllTimersAsync();
    expect(caller.error).toBeInstanceOf(AttemptTimeoutError);
    expect(vi.getTimerCount()).toBe(0);
  });

  test('every ending clears the timer', () => {
    vi.useFakeTimers();
    const { dispatch, dispatched } = setup({ attemptTimeoutMs: 1000 });
    dispatch({ ...GET, method: 'POST' }, new RecordingCaller());
    const first = dispatched[0]!.start();
    dispatched[0]!.handler.onResponseError?.(first, Object.assign(new Error('x'), { code: 'ECONNRESET' }));
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('the caller’s handler', () => {
  test('one whose onResponseEnd throws gets that error, as undici gives it (undici’s RetryHandler throws there to retry)', () => {
    const { dispatch, dispatched } = setup();
    const thrown = new Error('retry me');
    class Throwing extends RecordingCaller {
      override onResponseEnd(): void {
        super.onResponseEnd();
        throw thrown;
      }
    }
    const caller = new Throwing();
    dispatch(GET, caller);
    const attempt = dispatched[0]!;
    const controller = attempt.start();
    attempt.handler.onResponseStart?.(controller, 200, { 'content-length': '2' });
    attempt.handler.onResponseData?.(controller, Buffer.from('ok'));
    attempt.handler.onResponseEnd?.(controller, {});
    expect(caller.events).toEqual(['start', 'response 200', 'data', 'end', 'error']);
    expect(caller.error).toBe(thrown);
  });
  test('one that throws in onResponseStart after a hook’s promise gets that error, its attempt aborted', async () => {
    const { dispatch, dispatched } = setup({ shouldRetry: async () => false });
    const thrown = new Error('refused by the caller');
    class Throwing extends RecordingCaller {
      override onResponseStart(controller: Controller, status: number, headers: HeaderRecord): void {
        super.onResponseStart(controller, status, headers);
        throw thrown;
      }
    }
    const caller = new Throwing();
    dispatch(GET, caller);
    const controller = dispatched[0]!.start();
    dispatched[0]!.handler.onResponseStart?.(controller, 503, {});
    await tick();
    expect(caller.events).toEqual(['start', 'response 503', 'error']);
    expect(caller.error).toBe(thrown);
    expect(controller.aborted).toBe(true);
  });
});

describe('what passes through unretried', () => {
  test.each([
    { ...GET, upgrade: 'websocket' },
    { ...GET, method: 'CONNECT' },
  ])('upgrade and CONNECT: the caller’s handler goes straight on, no policy run', (opts) => {
    const { dispatch, dispatched, finished } = setup();
    const caller = new RecordingCaller();
    dispatch(opts, caller);
    expect(dispatched[0]!.handler).toBe(caller);
    expect(finished).toEqual([]);
  });
  test('an upgrade the request did not ask for goes to the caller, with the caller’s controller', () => {
    const { dispatch, dispatched } = setup({ attemptTimeoutMs: 1000 });
    vi.useFakeTimers();
    const caller = new RecordingCaller();
    const upgrades: unknown[] = [];
    const handler: NewHandler = {
      onRequestStart: (c) => caller.onRequestStart(c),
      onRequestUpgrade: (c, status) => upgrades.push([c, status]),
      onResponseError: (c, e) => caller.onResponseError(c, e),
    };
    dispatch(GET, handler);
    const inner = dispatched[0]!.start();
    dispatched[0]!.handler.onRequestUpgrade?.(inner, 101, {}, {} as never);
    expect(upgrades).toEqual([[caller.controller, 101]]);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('policies', () => {
  test('a shared policy object is used as is (its budget is shared)', async () => {
    const policy = createRetryPolicy({ sleep: recordingSleep().sleep, budget: { ratio: 0, burst: 1 } });
    const { next, dispatched } = fakeNext();
    const a = (retryInterceptor(policy) as never as (n: NextDispatch) => NextDispatch)(next);
    const b = (retryInterceptor(policy) as never as (n: NextDispatch) => NextDispatch)(next);
    for (const d of [a, b]) {
      d(GET, new RecordingCaller());
      const attempt = dispatched.at(-1)!;
      const c = attempt.start();
      attempt.handler.onResponseStart?.(c, 503, {});
      attempt.handler.onResponseEnd?.(c, {});
      await tick();
    }
    // One retry token for both interceptors: the first retried, the second could not.
    expect(dispatched).toHaveLength(3);
  });

  test('invalid adapter options throw a TypeError naming the option', () => {
    expect(() => retryInterceptor({}, { infoHeaders: 'yes' as never })).toThrow(/infoHeaders/);
    expect(() => retryInterceptor({}, { knownLengthBodyMaxBytes: -1 })).toThrow(/knownLengthBodyMaxBytes/);
    expect(() => retryInterceptor({}, { nope: 1 } as never)).toThrow(/nope/);
  });
});
