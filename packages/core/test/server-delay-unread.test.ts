/**
 * A 429 or 503 that gave no delay jitterbug could read (a cross-origin API whose Retry-After the
 * browser hides): the decision says so, the retry event and the summary count it, and a 429 waits
 * at least a second (the server's pacing is unknown, and a sooner retry is refused again).
 */
import { createRetryPolicy, type RetryEvent, type RetryInfo } from '@jitterbug/core';
import { describe, expect, it } from 'vitest';
import { decide, UNREAD_429_MS } from '../src/decide.ts';
import { decideOn, waitBetween } from './decisions.ts';
import { decided, fixed, headers, outcome, recordingSleep, resolved } from './helpers.ts';

const retried = (d: ReturnType<typeof decide>) => {
  if (!d.retry) throw new Error(`expected a retry, got ${d.reason}`);
  return d;
};

describe('decide: a 429 or 503 without a readable delay', () => {
  it('a 429 says so and waits at least a second, with the Retry-After jitter (random 0.5, ratio 0.1)', () => {
    const d = retried(decide(outcome({ status: 429 }), resolved()));
    expect(d).toMatchObject({ delaySource: 'backoff', serverDelayUnread: true });
    expect(d.delayMs).toBe(UNREAD_429_MS * 1.05);
  });

  it('a 429 whose backoff is longer waits the backoff', () => {
    const o = resolved({ backoff: { strategy: 'full', baseMs: 4000, capMs: 20_000 } });
    expect(retried(decide(outcome({ status: 429 }), o))).toMatchObject({
      delayMs: 2000,
      serverDelayUnread: true,
    });
  });

  it('the second is capped by retryAfter.maxMs, which caps what it stands in for', () => {
    const o = resolved({ retryAfter: { maxMs: 300 } });
    expect(retried(decide(outcome({ status: 429 }), o)).delayMs).toBe(300);
  });

  it('a 503 says so, and waits the backoff: an outage rarely gives a delay', () => {
    expect(retried(decide(outcome({ status: 503 }), resolved()))).toMatchObject({
      delayMs: 50,
      delaySource: 'backoff',
      serverDelayUnread: true,
    });
  });

  it('not with a delay it could read, not for other statuses or errors, nor with retryAfter: false', () => {
    const withDelay = retried(
      decide(outcome({ status: 429, responseHeaders: headers({ 'retry-after': '2' }) }), resolved()),
    );
    expect(withDelay).toMatchObject({ delaySource: 'retry-after', delayMs: 2100 });
    expect(withDelay.serverDelayUnread).toBeUndefined();
    expect(retried(decide(outcome({ status: 502 }), resolved())).serverDelayUnread).toBeUndefined();
    const error = retried(
      decide(outcome({ status: undefined, error: new TypeError('x'), code: 'ECONNRESET' }), resolved()),
    );
    expect(error.serverDelayUnread).toBeUndefined();
    const off = retried(decide(outcome({ status: 429 }), resolved({ retryAfter: false })));
    expect(off).toMatchObject({ delayMs: 50 });
    expect(off.serverDelayUnread).toBeUndefined();
  });
});

describe('the retry event and the summary', () => {
  it('say which retries had no readable delay, and how many', async () => {
    const sleep = recordingSleep();
    const events: RetryEvent[] = [];
    const finished: RetryInfo[] = [];
    const policy = createRetryPolicy({
      random: fixed(0.5),
      sleep,
      maxAttempts: 4,
      onRetry: (e) => events.push(e),
      onFinish: (i) => finished.push(i),
    });
    const run = policy.begin({ method: 'GET', url: 'https://api.example.com/items' });
    for (const result of [
      { status: 429 },
      { status: 429, headers: headers({ 'retry-after': '1' }) },
      { status: 503 },
      { status: 200 },
    ]) {
      const d = decided(decideOn(run, result));
      if (!d.retry) break;
      await waitBetween(run, d.delayMs);
    }
    expect(events.map((e) => [e.status, e.delaySource, e.serverDelayUnread])).toEqual([
      [429, 'backoff', true],
      [429, 'retry-after', false],
      [503, 'backoff', true],
    ]);
    // The server's delay does not move the backoff on: the 503 waits its second step, 0.5 * 200.
    expect(sleep.calls).toEqual([1050, 1050, 100]);
    expect(finished[0]).toMatchObject({ outcome: 'success', serverDelaysUnread: 2 });
  });
});
