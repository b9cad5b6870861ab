/**
 * `durableObjectStore` and `JitterbugStoreObject` in workerd, through miniflare (as the runtime
 * matrix runs it): the Worker in `worker.ts`, bundled with esbuild for workerd's conditions, binds
 * the store's object and two that misbehave. Each test posts calls to the Worker, which runs them
 * through the store and answers their replies.
 */

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BREAKER_PROBE,
  BREAKER_REPORT,
  BREAKER_SETTLE,
  BUDGET_LEASE,
  createMemoryStore,
  GCRA_LIMIT,
  GCRA_TAKE,
  type StoreOperation,
} from '@jitterbug/core/store';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundle, ROOT } from '../../../test/runtimes/hosts/bundle.ts';
import type { Call, TimedReply } from './worker.ts';

let mf: Miniflare;
let script: string;
let persist: string;

/** workerd with the test Worker, its objects' storage kept in `persist` (a restart finds it there). */
const startWorkerd = async (): Promise<Miniflare> => {
  const started = new Miniflare({
    modules: true,
    script,
    compatibilityDate: '2026-07-01',
    durableObjects: {
      STORE: { className: 'JitterbugStoreObject', useSQLite: true },
      SILENT: 'SilentObject',
      GARBLED: 'GarbledObject',
    },
    durableObjectsPersist: persist,
  });
  await started.ready;
  return started;
};

beforeAll(async () => {
  script = await bundle({
    entry: `${ROOT}packages/durable-object/test/worker.ts`,
    conditions: ['@jitterbug/source', 'workerd', 'worker', 'browser'],
  });
  persist = await mkdtemp(join(tmpdir(), 'jitterbug-do-'));
  mf = await startWorkerd();
}, 60_000);

afterAll(async () => {
  await mf?.dispose();
  if (persist) await rm(persist, { recursive: true, force: true });
});

const post = async (calls: readonly Call[], sequential = false): Promise<TimedReply[]> => {
  const response = await mf.dispatchFetch('http://worker.invalid/', {
    method: 'POST',
    body: JSON.stringify({ calls, sequential }),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`the Worker answered ${response.status}: ${text}`);
  return JSON.parse(text) as TimedReply[];
};

const call = (
  operation: StoreOperation,
  args: readonly number[],
  scope = 'https://api.example.com',
): Call => ({
  binding: 'STORE',
  operation: operation.name,
  scope,
  args,
});

describe('durableObjectStore in workerd', () => {
  it('runs each operation inside the object, as the JavaScript body does at the object’s time', async () => {
    const calls: readonly (readonly [StoreOperation, readonly number[]])[] = [
      [BUDGET_LEASE, [0, 3, 10, 60_000]],
      [BUDGET_LEASE, [0.5, 8, 10, 60_000]],
      [GCRA_LIMIT, [2_000, 100, 2, 60_000]],
      [GCRA_TAKE, [1, 0, 2, 5_000]],
      [GCRA_TAKE, [1, 0, 2, 0]],
      [BREAKER_REPORT, [11, 1, 10_000, 2, 0, 60_000]],
      [BREAKER_REPORT, [12, 1, 10_000, 2, 0, 60_000]],
      [BREAKER_PROBE, [11, 1_000, 60_000]],
      [BREAKER_PROBE, [12, 1_000, 60_000]],
      [BREAKER_SETTLE, [11, 1, 50, 60_000]],
    ];
    const replies = await post(
      calls.map(([op, args]) => call(op, args, 'sequence')),
      true,
    );
    // The same calls on the in-memory store, each at the time the object answered it.
    let at = 0;
    const memory = createMemoryStore({ now: () => at });
    for (const [i, [operation, args]] of calls.entries()) {
      const reply = replies[i]!;
      if (!reply.ok) throw new Error(`${operation.name}: ${reply.failure}`);
      at = reply.atMs;
      const expected = await memory.run(operation, 'sequence', args);
      expect(reply.ok && reply.result).toEqual(expected.ok && expected.result);
    }
    expect(replies.at(-1)).toMatchObject({ ok: true, result: [1, 0, 0] });
  });

  it('is atomic: 60 leases at once from a bucket of 25 grant 25 in all, one each', async () => {
    const replies = await post(
      Array.from({ length: 60 }, () => call(BUDGET_LEASE, [0, 1, 25, 60_000], 'atomic')),
    );
    const granted = replies.map((r) => (r.ok ? r.result[0] : Number.NaN));
    expect(granted.filter((g) => g === 1)).toHaveLength(25);
    expect(granted.filter((g) => g === 0)).toHaveLength(35);
    expect(replies.map((r) => r.ok && r.result[1]).sort()).toContain(0);
  });

  it('keeps one object per scope', async () => {
    const [a, b, a2] = await post(
      [
        call(BUDGET_LEASE, [0, 4, 5, 60_000], 'scope-a'),
        call(BUDGET_LEASE, [0, 1, 5, 60_000], 'scope-b'),
        call(BUDGET_LEASE, [0, 4, 5, 60_000], 'scope-a'),
      ],
      true,
    );
    expect([a, b, a2].map((r) => r!.ok && r!.result)).toEqual([
      [4, 1],
      [1, 4],
      [1, 0],
    ]);
  });

  it('an object started again (workerd restarted) carries on from its stored state', async () => {
    const [before] = await post([call(BUDGET_LEASE, [0, 3, 10, 600_000], 'restarted')]);
    expect(before).toMatchObject({ ok: true, result: [3, 7] });
    await mf.dispose();
    mf = await startWorkerd();
    const [after] = await post([call(BUDGET_LEASE, [0, 3, 10, 600_000], 'restarted')]);
    expect(after).toMatchObject({ ok: true, result: [3, 4] });
  });

  it('an operation the object does not know is an error, and nothing changes', async () => {
    const [unknown, after] = await post(
      [
        { binding: 'STORE', operation: 'budget.unknown', scope: 'unknown', args: [0, 1, 10, 60_000] },
        call(BUDGET_LEASE, [0, 0, 10, 60_000], 'unknown'),
      ],
      true,
    );
    expect(unknown).toMatchObject({ ok: false, failure: 'error' });
    expect(after).toMatchObject({ ok: true, result: [0, 10] });
  });

  it('an object that never answers times out within the timeout; one that answers nonsense is a bad reply', async () => {
    const replies = await post([
      {
        binding: 'SILENT',
        operation: BUDGET_LEASE.name,
        scope: 'silent',
        args: [0, 1, 10, 60_000],
        timeoutMs: 50,
      },
      { binding: 'GARBLED', operation: BUDGET_LEASE.name, scope: 'garbled', args: [0, 1, 10, 60_000] },
    ]);
    expect(replies[0]).toMatchObject({ ok: false, failure: 'timeout' });
    expect(replies[0]!.ms).toBeLessThan(50 + 250);
    expect(replies[1]).toMatchObject({ ok: false, failure: 'bad-reply' });
  });
});
