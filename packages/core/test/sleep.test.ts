import { describe, expect, it } from 'vitest';
import { sleep } from '../src/sleep.ts';

const timers = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

describe('sleep', () => {
  it('resolves after the timer fires (0 ms and negative ms)', async () => {
    await expect(sleep(0)).resolves.toBeUndefined();
    await expect(sleep(-5)).resolves.toBeUndefined();
  });

  it('NaN is no wait (it used to be the longest timer, about 24.8 days)', async () => {
    const before = timers();
    await expect(sleep(Number.NaN)).resolves.toBeUndefined();
    expect(timers()).toBe(before);
  });

  it("rejects at once with the signal's reason when already aborted, and starts no timer", async () => {
    const before = timers();
    const reason = new Error('already aborted');
    const promise = sleep(60_000, AbortSignal.abort(reason));
    expect(timers()).toBe(before);
    await expect(promise).rejects.toBe(reason);
  });

  it("rejects with the signal's reason when aborted during the wait, and leaves no timer", async () => {
    const before = timers();
    const controller = new AbortController();
    const promise = sleep(60_000, controller.signal);
    expect(timers()).toBe(before + 1);
    const reason = new Error('cancelled');
    controller.abort(reason);
    await expect(promise).rejects.toBe(reason);
    expect(timers()).toBe(before);
  });

  it('rejects with the default AbortError when aborted without a reason', async () => {
    const controller = new AbortController();
    const promise = sleep(60_000, controller.signal);
    controller.abort();
    await expect(promise).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('removes its abort listener once the wait is over', async () => {
    const controller = new AbortController();
    let added = 0;
    let removed = 0;
    const signal = controller.signal;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = ((...args: Parameters<typeof add>) => {
      added++;
      add(...args);
    }) as typeof signal.addEventListener;
    signal.removeEventListener = ((...args: Parameters<typeof remove>) => {
      removed++;
      remove(...args);
    }) as typeof signal.removeEventListener;
    await sleep(0, signal);
    expect([added, removed]).toEqual([1, 1]);
    // Aborting afterwards has no effect on the settled promise.
    controller.abort();
  });

  it('many aborted sleeps leave no timers behind', async () => {
    const before = timers();
    const waits = Array.from({ length: 50 }, () => {
      const controller = new AbortController();
      const promise = sleep(3_600_000, controller.signal).catch((e: unknown) => e);
      controller.abort(new Error('x'));
      return promise;
    });
    await Promise.all(waits);
    expect(timers()).toBe(before);
  });
});
