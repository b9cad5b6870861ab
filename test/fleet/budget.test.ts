/**
 * The fleet's retry budget in one process: policies standing for processes share a bucket through
 * an in-memory store, against a real `node:http` origin that is down (503 to everything). The
 * store's calls are counted: a successful request makes none.
 */
import {
  createRetryPolicy,
  createRetryBudget as localBudget,
  createPacer as localPacer,
} from '@jitterbug/core';
import { createMemoryStore, createRetryBudget, FleetBudgetError } from '@jitterbug/core/store';
import { withRetry } from '@jitterbug/fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countedStore, type Origin, startStatusOrigin } from './fleet.ts';

let origin: Origin;
let url: string;
let status = 503;

beforeAll(async () => {
  origin = await startStatusOrigin(() => status);
  url = origin.url;
});

afterAll(async () => {
  await origin.close();
});

const FAST = { backoff: { baseMs: 2, capMs: 5 } } as const;

/** `processes` clients, each with a budget made by `budget`, send `each` GETs one after another. */
const fleet = async (processes: number, each: number, budget: () => unknown): Promise<number[]> => {
  const clients = Array.from({ length: processes }, () =>
    withRetry(fetch, createRetryPolicy({ ...FAST, budget: budget() as never })),
  );
  return Promise.all(
    clients.flatMap(async (client) => {
      const statuses: number[] = [];
      for (let i = 0; i < each; i++) {
        const r = await client(url).then(
          (response) => response.status,
          (error: unknown) => (error instanceof FleetBudgetError ? -1 : -2),
        );
        statuses.push(r);
      }
      return statuses;
    }) as never,
  );
};

describe('createRetryBudget({ store })', () => {
  it('four processes in an outage spend one budget, not four', async () => {
    status = 503;
    origin.requests = 0;
    await fleet(4, 20, () => localBudget({ burst: 10 }));
    const local = origin.requests;
    origin.requests = 0;
    const store = createMemoryStore();
    const results = await fleet(4, 20, () => createRetryBudget({ store }));
    // 80 origin.requests, the burst of 10 and 0.1 per request: 98 at most.
    expect(origin.requests).toBeLessThanOrEqual(98);
    expect(origin.requests).toBeGreaterThanOrEqual(80);
    expect(local).toBeGreaterThan(110);
    expect(results.flat().every((s) => s === 503 || s === -1)).toBe(true);
  });

  it('a successful request makes no store round trip', async () => {
    status = 200;
    const store = countedStore(createMemoryStore());
    const client = withRetry(fetch, createRetryPolicy({ ...FAST, budget: createRetryBudget({ store }) }));
    for (let i = 0; i < 20; i++) expect((await client(url)).status).toBe(200);
    expect(store.calls).toBe(0);
    status = 503;
    await client(url);
    // A failure's two retries ask for a token each, paying the 21 deposits with the first.
    expect(store.calls).toBe(2);
  });

  it('a store that fails is asked once a second at most, the local bucket no fuller than the fleet', async () => {
    status = 503;
    const memory = createMemoryStore();
    let down = false;
    const store = countedStore({
      run: (...args) => (down ? Promise.resolve({ ok: false, failure: 'unavailable' }) : memory.run(...args)),
    });
    const client = withRetry(
      fetch,
      createRetryPolicy({ ...FAST, budget: createRetryBudget({ store, burst: 4, ratio: 0 }) }),
    );
    // The fleet's bucket of 4 is spent, then the store goes away.
    const send = () => client(url).catch((error: unknown) => error);
    for (let i = 0; i < 2; i++) await send();
    down = true;
    const calls = store.calls;
    origin.requests = 0;
    for (let i = 0; i < 5; i++) await send();
    // One ask, then a second alone: the local bucket holds what the fleet held (0), no burst.
    expect(store.calls - calls).toBe(1);
    expect(origin.requests).toBe(5);
  });

  it('refuses bad options naming the option and the fix', () => {
    expect(() => createRetryBudget({ store: {} as never })).toThrow(/"budget\.store".*SharedStore/);
    expect(() => createRetryBudget({ store: createMemoryStore(), name: '' })).toThrow(/"budget\.name"/);
    expect(() => createRetryBudget({ store: createMemoryStore(), ratio: 2 })).toThrow(/"budget\.ratio"/);
    // The core's own factories, given a store, say where the fleet's are.
    expect(() => localBudget({ store: createMemoryStore() } as never)).toThrow(
      /"budget\.store".*createRetryBudget\(\{ store \}\) from '@jitterbug\/core\/store'/,
    );
    expect(() => localPacer({ store: createMemoryStore() } as never)).toThrow(
      /createPacer\(\{ store \}\) from '@jitterbug\/core\/store'/,
    );
  });
});
