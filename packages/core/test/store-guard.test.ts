import { BUDGET_LEASE, createCallGuard, type StoreReply } from '@jitterbug/core/store';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

const OK: StoreReply = { ok: true, result: [1, 9], atMs: 0 };
const ARGS = [0, 1, 10, 1_000];

describe('createCallGuard', () => {
  it('answers a timeout at timeoutMs, aborts the call, and pauses for pauseMs after it', async () => {
    let now = 0;
    const guard = createCallGuard({ timeoutMs: 10, pauseMs: 1_000, now: () => now });
    let signal: AbortSignal | undefined;
    const reply = guard(BUDGET_LEASE, ARGS, (s) => {
      signal = s;
      return new Promise(() => {});
    });
    await vi.advanceTimersByTimeAsync(9);
    expect(signal?.aborted).toBe(false);
    // At timeoutMs, a turn of the event loop later: a reply that came while the loop was busy is read first.
    await vi.advanceTimersByTimeAsync(1);
    expect(signal?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await reply).toEqual({ ok: false, failure: 'timeout' });
    expect(signal?.aborted).toBe(true);
    const call = vi.fn(() => Promise.resolve(OK));
    now = 999;
    expect(await guard(BUDGET_LEASE, ARGS, call)).toEqual({ ok: false, failure: 'paused' });
    expect(call).not.toHaveBeenCalled();
    now = 1_000;
    expect(await guard(BUDGET_LEASE, ARGS, call)).toBe(OK);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('does not pause after a failure that cost no time, and leaves no timer behind', async () => {
    const guard = createCallGuard({ timeoutMs: 10, pauseMs: 1_000 });
    const call = vi.fn(() => Promise.resolve<StoreReply>({ ok: false, failure: 'unavailable' }));
    expect(await guard(BUDGET_LEASE, ARGS, call)).toEqual({ ok: false, failure: 'unavailable' });
    expect(await guard(BUDGET_LEASE, ARGS, call)).toEqual({ ok: false, failure: 'unavailable' });
    expect(call).toHaveBeenCalledTimes(2);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('turns a call that throws or rejects into an error, and refuses arguments past the limit', async () => {
    const guard = createCallGuard({ timeoutMs: 10, pauseMs: 0 });
    const thrown = new Error('sync');
    expect(
      await guard(BUDGET_LEASE, ARGS, () => {
        throw thrown;
      }),
    ).toEqual({ ok: false, failure: 'error', error: thrown });
    expect(await guard(BUDGET_LEASE, ARGS, () => Promise.reject(thrown))).toEqual({
      ok: false,
      failure: 'error',
      error: thrown,
    });
    const call = vi.fn(() => Promise.resolve(OK));
    expect(await guard(BUDGET_LEASE, [Number.POSITIVE_INFINITY], call)).toMatchObject({ failure: 'error' });
    expect(call).not.toHaveBeenCalled();
  });
});
