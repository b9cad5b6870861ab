/**
 * The fleet's retry budget in one process: policies standing for processes share a bucket through
 * an in-memory store, against a real `node:http` origin that is down (503 to everything). The
 * store's calls are counted: a successful request makes none.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRetryPolicy, createRetryBudget as localBudget } from '@jitterbug/core';
import {
  createMemoryStore,
  createRetryBudget,
  FleetBudgetError,
  type SharedStore,
  type StoreReply,
} from '@jitterbug/core/store';
import { withRetry } from '@jitterbug/fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let server: Server;
let base: string;
let status = 503;
let requests = 0;

beforeAll(async () => {
  server = createServer((_req, res) => {
    requests++;
    res.writeHead(status, { 'content-length': '0' }).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

/** A store that counts its calls, over `inner`. */
const counted = (inner: SharedStore): SharedStore & { calls: number } => {
  const store = {
    calls: 0,
    run: (...args: Parameters<SharedStore['run']>): Promise<StoreReply> => {
      store.calls++;
      return inner.run(...args);
    },
  };
  return store;
};

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
        const r = await client(`${base}/`).then(
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
    requests = 0;
    await fleet(4, 20, () => localBudget({ burst: 10 }));
    const local = requests;
    requests = 0;
    const store = createMemoryStore();
    const results = await fleet(4, 20, () => createRetryBudget({ store }));
    // 80 requests, the burst of 10 and 0.1 per request: 98 at most.
    expect(requests).toBeLessThanOrEqual(98);
    expect(requests).toBeGreaterThanOrEqual(80);
    expect(local).toBeGreaterThan(110);
    expect(results.flat().every((s) => s === 503 || s === -1)).toBe(true);
  });

  it('a successful request makes no store round trip', async () => {
    status = 200;
    const store = counted(createMemoryStore());
    const client = withRetry(fetch, createRetryPolicy({ ...FAST, budget: createRetryBudget({ store }) }));
    for (let i = 0; i < 20; i++) expect((await client(`${base}/`)).status).toBe(200);
    expect(store.calls).toBe(0);
    status = 503;
    await client(`${base}/`);
    // A failure's two retries ask for a token each, paying the 21 deposits with the first.
    expect(store.calls).toBe(2);
  });

  it('a store that fails is asked once a second at most, the local bucket no fuller than the fleet', async () => {
    status = 503;
    const memory = createMemoryStore();
    let down = false;
    const store = counted({
      run: (...args) => (down ? Promise.resolve({ ok: false, failure: 'unavailable' }) : memory.run(...args)),
    });
    const client = withRetry(
      fetch,
      createRetryPolicy({ ...FAST, budget: createRetryBudget({ store, burst: 4, ratio: 0 }) }),
    );
    // The fleet's bucket of 4 is spent, then the store goes away.
    const send = () => client(`${base}/`).catch((error: unknown) => error);
    for (let i = 0; i < 2; i++) await send();
    down = true;
    const calls = store.calls;
    requests = 0;
    for (let i = 0; i < 5; i++) await send();
    // One ask, then a second alone: the local bucket holds what the fleet held (0), no burst.
    expect(store.calls - calls).toBe(1);
    expect(requests).toBe(5);
  });

  it('refuses bad options naming the option and the fix', () => {
    expect(() => createRetryBudget({ store: {} as never })).toThrow(/"budget\.store".*SharedStore/);
    expect(() => createRetryBudget({ store: createMemoryStore(), name: '' })).toThrow(/"budget\.name"/);
    expect(() => createRetryBudget({ store: createMemoryStore(), ratio: 2 })).toThrow(/"budget\.ratio"/);
  });
});
