import {
  BUDGET_LEASE,
  createMemoryStore,
  GCRA_TAKE,
  leaseBudget,
  runOperation,
  type SharedStore,
  STORE_OPERATIONS,
  type StoreOperation,
  takePace,
} from '@jitterbug/core/store';
import { afterEach, describe, expect, it, vi } from 'vitest';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('createMemoryStore', () => {
  it('keeps a state as Redis would (text, expiry) and answers on its own clock', async () => {
    let now = 5_000;
    const store = createMemoryStore({ now: () => now });
    expect(await store.run(BUDGET_LEASE, 'o', [0, 3, 10, 1_000])).toEqual({
      ok: true,
      result: [3, 7],
      atMs: 5_000,
    });
    expect(store.peek('o', 'budget@1')).toBe('7');
    expect(store.peek('other', 'budget@1')).toBeUndefined();
    now += 1_000;
    expect(store.peek('o', 'budget@1')).toBeUndefined();
  });

  it('refuses arguments past the limit as a failure, and writes nothing', async () => {
    const store = createMemoryStore();
    const reply = await store.run(BUDGET_LEASE, 'o', [Number.NaN, 1, 10, 1_000]);
    expect(reply).toMatchObject({ ok: false, failure: 'error' });
    expect(await store.run(BUDGET_LEASE, 'o', [1e16, 1, 10, 1_000])).toMatchObject({ ok: false });
    expect(store.peek('o', 'budget@1')).toBeUndefined();
  });

  it('a step that throws is a failure and leaves the state as it was', async () => {
    const store = createMemoryStore();
    await store.run(BUDGET_LEASE, 'o', [0, 1, 10, 60_000]);
    const broken: StoreOperation = {
      ...BUDGET_LEASE,
      name: 'broken',
      apply: () => {
        throw new Error('half way');
      },
    };
    expect(await store.run(broken, 'o', [])).toMatchObject({ ok: false, failure: 'error' });
    expect(store.peek('o', 'budget@1')).toBe('9');
  });

  it('keeps at most maxKeys keys, dropping expired ones first, then the oldest', async () => {
    let now = 0;
    const store = createMemoryStore({ now: () => now, maxKeys: 2 });
    await store.run(BUDGET_LEASE, 'a', [0, 1, 10, 10]);
    await store.run(BUDGET_LEASE, 'b', [0, 1, 10, 1_000]);
    now = 20;
    await store.run(BUDGET_LEASE, 'c', [0, 1, 10, 1_000]);
    expect([store.peek('a', 'budget@1'), store.peek('b', 'budget@1'), store.peek('c', 'budget@1')]).toEqual([
      undefined,
      '9',
      '9',
    ]);
    await store.run(BUDGET_LEASE, 'd', [0, 1, 10, 1_000]);
    expect(store.peek('b', 'budget@1')).toBeUndefined();
    store.clear();
    expect(store.peek('d', 'budget@1')).toBeUndefined();
  });

  it('takes no host time: hosts whose clocks are 5 s apart get the same answers', async () => {
    const calls = async (skewMs: number) => {
      let storeNow = 1_700_000_000_000;
      const store = createMemoryStore({ now: () => storeNow });
      const hostNow = Date.now;
      vi.spyOn(Date, 'now').mockImplementation(() => hostNow() + skewMs);
      vi.spyOn(performance, 'now').mockImplementation(() => 1e9 + skewMs);
      const answers: unknown[] = [];
      for (let i = 0; i < 6; i++) {
        answers.push(await takePace(store, 'o', { quantity: 1, intervalMs: 1_000, burst: 2, maxWaitMs: 0 }));
        storeNow += 400;
      }
      vi.restoreAllMocks();
      return answers;
    };
    const straight = await calls(0);
    expect(await calls(5_000)).toEqual(straight);
    expect(await calls(-5_000)).toEqual(straight);
  });
});

describe('runOperation', () => {
  const misbehaving = (run: SharedStore['run']): SharedStore => ({ run });
  const read = (result: readonly number[]) => result;

  it('turns a store that throws, rejects or answers the wrong shape into a failure', async () => {
    const cases: [SharedStore, string][] = [
      [
        misbehaving(() => {
          throw new Error('sync');
        }),
        'error',
      ],
      [misbehaving(() => Promise.reject(new Error('async'))), 'error'],
      [misbehaving(() => Promise.resolve(undefined as never)), 'bad-reply'],
      [misbehaving(() => Promise.resolve({ ok: true, result: [1], atMs: 0 })), 'bad-reply'],
      [misbehaving(() => Promise.resolve({ ok: true, result: [1, Number.NaN], atMs: 0 })), 'bad-reply'],
      [misbehaving(() => Promise.resolve({ ok: true, result: [1, 2], atMs: Number.NaN })), 'bad-reply'],
      [misbehaving(() => Promise.resolve({ ok: false, failure: 'timeout' })), 'timeout'],
    ];
    for (const [store, failure] of cases)
      expect(await runOperation(store, BUDGET_LEASE, 'o', [0, 1, 10, 1_000], read)).toMatchObject({
        ok: false,
        failure,
      });
  });

  it('reads a good reply', async () => {
    const store = createMemoryStore({ now: () => 7 });
    expect(await leaseBudget(store, 'o', { deposit: 0, want: 2, burst: 10, ttlMs: 1_000 })).toEqual({
      ok: true,
      value: { granted: 2, tokens: 8 },
      atMs: 7,
    });
  });
});

describe('STORE_OPERATIONS', () => {
  it('names every operation once, and those that share a state share its layout', () => {
    expect([...STORE_OPERATIONS.keys()]).toEqual([
      'budget.lease',
      'gcra.take',
      'gcra.limit',
      'breaker.report',
      'breaker.probe',
      'breaker.settle',
    ]);
    expect(STORE_OPERATIONS.get('gcra.take')).toBe(GCRA_TAKE);
    expect(new Set([...STORE_OPERATIONS.values()].map((op) => op.state))).toEqual(
      new Set(['budget@1', 'gcra@1', 'breaker@1']),
    );
  });
});
