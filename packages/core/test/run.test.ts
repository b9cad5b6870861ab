import {
  createRetryPolicy,
  type GiveUpEvent,
  type RetryEvent,
  type RetryInfo,
  type RetryOptions,
} from '@jitterbug/core';
import type { AttemptResult } from '@jitterbug/core/adapter';
import { describe, expect, it } from 'vitest';
import { decideOn, finishRun, waitBetween } from './decisions.ts';
import { clock, decided, fetchFailed, fixed, headers, recordingSleep } from './helpers.ts';

const URL_ = 'https://api.example.com/items?page=2';

/** Drives a run the way an adapter does: next, then wait, until it stops. */
const drive = async (options: RetryOptions, results: AttemptResult[], method = 'GET') => {
  const sleep = recordingSleep();
  const c = clock();
  const events = { retry: [] as RetryEvent[], giveUp: [] as GiveUpEvent[], finish: [] as RetryInfo[] };
  const policy = createRetryPolicy({
    random: fixed(0.5),
    sleep,
    now: c.now,
    onRetry: (e) => events.retry.push(e),
    onGiveUp: (e) => events.giveUp.push(e),
    onFinish: (s) => events.finish.push(s),
    ...options,
  });
  const run = policy.begin({ method, url: URL_ });
  for (const result of results) {
    c.advance(10); // the attempt takes 10 ms
    const decision = decided(decideOn(run, result));
    if (!decision.retry) break;
    await waitBetween(run, decision.delayMs);
    c.advance(decision.delayMs);
  }
  return { run, sleep, events };
};

describe('RetryRun.next and wait', () => {
  it('retries until a success, with the strategy delays, and summarises', async () => {
    const { run, sleep, events } = await drive({}, [{ status: 503 }, { status: 502 }, { status: 200 }]);
    expect(sleep.calls).toEqual([50, 100]); // full jitter with random 0.5: 0.5*100, 0.5*200
    expect(run.attempts).toBe(3);
    expect(run.totalDelayMs).toBe(150);
    expect(events.retry).toEqual([
      {
        method: 'GET',
        url: URL_,
        attempt: 1,
        delayMs: 50,
        delaySource: 'backoff',
        // A 503 without Retry-After: the wait is the backoff's, and the event says so.
        serverDelayUnread: true,
        reason: 'status',
        status: 503,
        budgetTokens: 9, // starts full at 10; the deposit cannot exceed the burst
      },
      {
        method: 'GET',
        url: URL_,
        attempt: 2,
        delayMs: 100,
        delaySource: 'backoff',
        serverDelayUnread: false,
        reason: 'status',
        status: 502,
        budgetTokens: 8,
      },
    ]);
    expect(events.giveUp).toEqual([]);
    expect(events.finish).toEqual([
      {
        method: 'GET',
        url: URL_,
        attempts: 3,
        retries: ['status', 'status'],
        totalDelayMs: 150,
        serverDelaysUnread: 1,
        elapsedMs: 180,
        outcome: 'success',
        reason: 'success',
        status: 200,
      },
    ]);
    expect(run.summary).toBe(events.finish[0]);
  });

  it('gives up at maxAttempts with onGiveUp and a failure summary', async () => {
    const error = fetchFailed('ECONNRESET');
    const { run, events } = await drive({ maxAttempts: 2 }, [{ error }, { error }, { error }]);
    expect(run.attempts).toBe(2);
    expect(events.retry).toHaveLength(1);
    expect(events.retry[0]).toMatchObject({ attempt: 1, error });
    expect(events.retry[0]?.status).toBeUndefined();
    expect(events.giveUp).toEqual([{ method: 'GET', url: URL_, attempt: 2, reason: 'max-attempts', error }]);
    expect(events.finish[0]).toMatchObject({
      attempts: 2,
      outcome: 'failure',
      reason: 'max-attempts',
      error,
    });
  });

  it('a non-retryable status finishes without onGiveUp', async () => {
    const { events } = await drive({}, [{ status: 404 }]);
    expect(events.giveUp).toEqual([]);
    expect(events.finish[0]).toMatchObject({
      attempts: 1,
      outcome: 'failure',
      reason: 'status-not-retryable',
    });
  });

  it('POST is given up on at once, with reason method-not-idempotent', async () => {
    const { events } = await drive({}, [{ status: 503 }], 'post');
    expect(events.giveUp).toEqual([
      { method: 'POST', url: URL_, attempt: 1, reason: 'method-not-idempotent', status: 503 },
    ]);
  });

  it('POST with an Idempotency-Key header is retried through begin()', () => {
    const policy = createRetryPolicy({ random: fixed(0), budget: false });
    const run = policy.begin({ method: 'POST', url: URL_, headers: headers({ 'Idempotency-Key': 'abc' }) });
    expect(decided(decideOn(run, { error: fetchFailed('ECONNRESET') })).retry).toBe(true);
  });

  it('a stream body is not retried; an adapter that buffered it marks it replayable', () => {
    const policy = createRetryPolicy({ random: fixed(0), budget: false });
    const run = policy.begin({ method: 'PUT', url: URL_, body: 'stream' });
    expect(run.body).toBe('stream');
    expect(decided(decideOn(run, { status: 503 }))).toMatchObject({
      retry: false,
      reason: 'body-not-replayable',
    });
    const buffered = policy.begin({ method: 'PUT', url: URL_, body: 'stream' });
    buffered.body = 'replayable';
    expect(decided(decideOn(buffered, { status: 503 })).retry).toBe(true);
  });

  it('retry-after-too-long and deadline give-ups carry the refused delay', async () => {
    const tooLong = await drive({}, [{ status: 429, headers: headers({ 'retry-after': '120' }) }]);
    expect(tooLong.events.giveUp[0]).toMatchObject({
      reason: 'retry-after-too-long',
      refusedDelayMs: 120_000,
    });
    const deadline = await drive({ deadlineMs: 100, backoff: { strategy: 'constant', baseMs: 60 } }, [
      { status: 503 },
      { status: 503 },
      { status: 503 },
    ]);
    // attempt 1 ends at 10 ms: 10 + 60 <= 100; attempt 2 ends at 80 ms: 80 + 60 > 100.
    expect(deadline.sleep.calls).toEqual([60]);
    expect(deadline.events.giveUp[0]).toMatchObject({ attempt: 2, reason: 'deadline', refusedDelayMs: 60 });
  });

  it('the deadline uses the injected clock', () => {
    const c = clock();
    const policy = createRetryPolicy({ now: c.now, deadlineMs: 1000, random: fixed(0.5), budget: false });
    const run = policy.begin({ method: 'GET', url: URL_ });
    c.advance(990);
    expect(run.elapsedMs()).toBe(990);
    expect(decided(decideOn(run, { status: 503 }))).toMatchObject({
      retry: false,
      reason: 'deadline',
      refusedDelayMs: 50,
    });
  });

  it('Retry-After HTTP-dates are read against the injected clock', () => {
    const c = clock(Date.UTC(2030, 0, 1));
    const policy = createRetryPolicy({ now: c.now, random: fixed(0), budget: false });
    const run = policy.begin({ method: 'GET', url: URL_ });
    const decision = decided(
      decideOn(run, {
        status: 503,
        headers: headers({ 'Retry-After': 'Tue, 01 Jan 2030 00:00:30 GMT' }),
      }),
    );
    expect(decision).toMatchObject({ retry: true, delayMs: 30_000, delaySource: 'retry-after' });
  });

  it('decorrelated backoff carries the previous delay across attempts of one run', async () => {
    const { sleep } = await drive(
      { backoff: { strategy: 'decorrelated', baseMs: 100, capMs: 10_000 }, maxAttempts: 4 },
      [{ status: 503 }, { status: 503 }, { status: 503 }],
    );
    // 100 + 0.5*(300-100) = 200; 100 + 0.5*(600-100) = 350; 100 + 0.5*(1050-100) = 575
    expect(sleep.calls).toEqual([200, 350, 575]);
  });

  it('an aborted attempt finishes as aborted without onGiveUp', async () => {
    const reason = new DOMException('stop', 'AbortError');
    const { events } = await drive({}, [{ error: reason, aborted: true }]);
    expect(events.giveUp).toEqual([]);
    expect(events.finish[0]).toMatchObject({ outcome: 'failure', reason: 'aborted', error: reason });
  });

  it('shouldRetry false gives up with reason should-retry', async () => {
    const { events } = await drive({ shouldRetry: () => false }, [{ status: 503 }]);
    expect(events.giveUp[0]).toMatchObject({ reason: 'should-retry', status: 503 });
  });

  it('a hook that throws propagates from next()', () => {
    const policy = createRetryPolicy({
      budget: false,
      onRetry: () => {
        throw new Error('hook');
      },
    });
    expect(() => decided(decideOn(policy.begin({ method: 'GET', url: URL_ }), { status: 503 }))).toThrow(
      'hook',
    );
  });

  it.each([
    ['shouldRetry', 'throws'],
    ['shouldRetry', 'rejects'],
    ['onRetry', 'throws'],
    ['onRetry', 'rejects'],
    ['onGiveUp', 'throws'],
    ['onGiveUp', 'rejects'],
  ] as const)(
    'a %s that %s fails the request with its error, and the run ends first (hook-failed, onFinish once)',
    async (hook, how) => {
      const broken = new Error(`${hook} broke`);
      const fail =
        how === 'throws'
          ? () => {
              throw broken;
            }
          : () => Promise.reject(broken);
      const finished: RetryInfo[] = [];
      const run = createRetryPolicy({
        random: fixed(0.5),
        sleep: recordingSleep(),
        // onGiveUp is asked once attempts are used up: one attempt.
        maxAttempts: hook === 'onGiveUp' ? 1 : 3,
        [hook]: fail,
        onFinish: (info) => finished.push(info),
      }).begin({ method: 'GET', url: URL_ });
      let error: unknown;
      try {
        await decideOn(run, { status: 503 });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBe(broken);
      await Promise.resolve();
      expect(finished).toHaveLength(1);
      expect(run.summary).toMatchObject({
        reason: 'hook-failed',
        outcome: 'failure',
        status: 503,
        attempts: 1,
      });
      expect(run.summary?.error).toBe(broken);
      // The run is over: an adapter that then aborts it changes nothing.
      finishRun(run, 'aborted', undefined, new Error('later'), false);
      expect(finished).toHaveLength(1);
    },
  );

  it('accepts a URL object and reports its href', () => {
    const run = createRetryPolicy().begin({ method: 'get', url: new URL(URL_) });
    expect(run.url).toBe(URL_);
    expect(run.method).toBe('GET');
  });

  it('onFinish is called once even if abort() follows the end', async () => {
    const { run, events } = await drive({}, [{ status: 200 }]);
    finishRun(run, 'aborted', undefined, new Error('late'), false);
    expect(events.finish).toHaveLength(1);
    expect(run.summary?.reason).toBe('success');
  });
});

describe('RetryRun.wait with abort', () => {
  it('passes the signal to the injected sleep', async () => {
    const seen: (AbortSignal | undefined)[] = [];
    const policy = createRetryPolicy({
      sleep: async (_ms, signal) => {
        seen.push(signal);
      },
    });
    const controller = new AbortController();
    await waitBetween(policy.begin({ method: 'GET', url: URL_ }), 5, controller.signal);
    expect(seen).toEqual([controller.signal]);
  });

  it("rejects with the signal's reason and summarises as aborted (real sleep)", async () => {
    const finished: RetryInfo[] = [];
    const policy = createRetryPolicy({ onFinish: (s) => finished.push(s), random: fixed(0.5) });
    const run = policy.begin({ method: 'GET', url: URL_ });
    const decision = decided(decideOn(run, { status: 503 }));
    expect(decision.retry).toBe(true);
    const controller = new AbortController();
    const reason = new Error('user cancelled');
    const waiting = waitBetween(run, 60_000, controller.signal);
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    expect(run.totalDelayMs).toBe(0);
    expect(finished).toHaveLength(1);
    expect(finished[0]).toMatchObject({ reason: 'aborted', outcome: 'failure', error: reason, attempts: 1 });
  });

  it('rejects when an injected sleep ignores the signal and resolves after it fired', async () => {
    const finished: RetryInfo[] = [];
    const controller = new AbortController();
    const reason = new Error('gave up as the wait ended');
    const policy = createRetryPolicy({
      onFinish: (s) => finished.push(s),
      sleep: async () => {
        controller.abort(reason);
      },
    });
    const run = policy.begin({ method: 'GET', url: URL_ });
    expect(decided(decideOn(run, { status: 503 })).retry).toBe(true);
    await expect(waitBetween(run, 100, controller.signal)).rejects.toBe(reason);
    expect(run.totalDelayMs).toBe(0);
    expect(finished).toEqual([expect.objectContaining({ reason: 'aborted', error: reason, attempts: 1 })]);
  });

  it('an already aborted signal rejects at once', async () => {
    const run = createRetryPolicy().begin({ method: 'GET', url: URL_ });
    const signal = AbortSignal.abort(new Error('already'));
    await expect(waitBetween(run, 60_000, signal)).rejects.toThrow('already');
    expect(run.summary?.reason).toBe('aborted');
  });

  it('abort() outside next and wait finishes the run as aborted', () => {
    const finished: RetryInfo[] = [];
    const run = createRetryPolicy({ onFinish: (s) => finished.push(s) }).begin({ method: 'GET', url: URL_ });
    const reason = new Error('gone');
    finishRun(run, 'aborted', undefined, reason, false);
    expect(finished).toEqual([
      expect.objectContaining({ reason: 'aborted', outcome: 'failure', error: reason, attempts: 0 }),
    ]);
  });
});
