import { afterEach, describe, expect, it, vi } from 'vitest';
import { bodyKind } from '../src/adapter.ts';
import { createRetryPolicy, exponential } from '../src/index.ts';
import { sleep } from '../src/sleep.ts';
import { decideOn } from './decisions.ts';
import { decided } from './helpers.ts';

describe('route rules override only the fields they name', () => {
  const policy = createRetryPolicy({
    backoff: { strategy: 'exponential', baseMs: 50, capMs: 1_000 },
    retryAfter: { maxMs: 5_000, whenLonger: 'cap', jitterRatio: 0 },
    routes: [
      { match: '/slow/*', backoff: { capMs: 9_000 }, retryAfter: { maxMs: 30_000 } },
      {
        match: '/custom/*',
        backoff: { strategy: (s, p) => [p.capMs, { attempt: s.attempt + 1 }], baseMs: 1, capMs: 7 },
      },
    ],
  });

  it('keeps the policy strategy and base when a route sets only capMs', () => {
    const o = policy.resolve('GET', 'http://h/slow/1');
    expect(o.backoff.strategy).toBe(exponential);
    expect(o.backoff).toMatchObject({ baseMs: 50, capMs: 9_000 });
    expect(o.retryAfter).toEqual({ maxMs: 30_000, whenLonger: 'cap', jitterRatio: 0 });
  });

  it('accepts a strategy function with its own numbers', () => {
    const run = policy.begin({ method: 'GET', url: 'http://h/custom/1' });
    const d = decided(decideOn(run, { status: 503 }));
    expect(d).toMatchObject({ retry: true, delayMs: 7 });
  });

  it('matches routes whatever the case of the method passed to resolve', () => {
    const p = createRetryPolicy({ routes: [{ match: 'POST /pay/*', retry: false }] });
    expect(p.resolve('post', 'http://h/pay/1').retry).toBe(false);
  });

  it('rejects an unknown strategy name, naming the option', () => {
    expect(() =>
      createRetryPolicy({ routes: [{ match: '/x', backoff: { strategy: 'nope' as never } }] }),
    ).toThrow(/routes\[0\]\.backoff\.strategy/);
  });
});

describe('bodyKind of collections', () => {
  it('calls a Map, a Set or a boxed string data, and a generator a stream', () => {
    expect(bodyKind(new Map([['a', 1]]))).toBe('replayable');
    expect(bodyKind(new Set([1]))).toBe('replayable');
    expect(bodyKind(new String('x'))).toBe('replayable');
    expect(bodyKind((function* () {})())).toBe('stream');
  });
});

describe('sleep beyond the timer limit', () => {
  afterEach(() => {
    vi.useRealTimers();
  });
  it('does not fire early when asked for more than 2^31 - 1 ms', async () => {
    vi.useFakeTimers();
    let done = false;
    const p = sleep(2 ** 31 + 10_000).then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(2 ** 31 - 1);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(10_001);
    await p;
    expect(done).toBe(true);
  });
});
