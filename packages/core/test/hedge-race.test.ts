/**
 * The racer of hedged copies that the fetch engine and axios share (`Hedging.race`), driven by an
 * adapter whose copies answer when the test says: which copy wins, what is dropped, what is cancelled.
 */
import { createHedging, createRetryPolicy } from '@jitterbug/core';
import type { AttemptResult, RetryRun } from '@jitterbug/core/adapter';
import { describe, expect, it } from 'vitest';
import type { HedgedCopies } from '../src/features/hedge-race.ts';
import { settleOn } from './decisions.ts';

interface Copy {
  readonly copy: number;
  /** `undefined` for the attempt's only copy (no hedge delay). */
  readonly cancel: AbortSignal | undefined;
  answer(result: AttemptResult): void;
}

/** An answer as the scripted copies give it: its text and its result in the core's terms. */
interface Answer {
  readonly text: string;
  readonly result: AttemptResult;
}

/** An adapter whose copies wait for the test; `dropped` lists the answers the racer let go. */
const scripted = (cancelled = (): boolean => false) => {
  const copies: Copy[] = [];
  const dropped: string[] = [];
  const adapter: HedgedCopies<Answer> = {
    send: (cancel) =>
      new Promise((resolve) => {
        const copy = copies.length + 1;
        copies.push({
          copy,
          cancel,
          answer: (result) => resolve({ text: `copy ${copy}: ${JSON.stringify(result)}`, result }),
        });
      }),
    result: (answer) => answer.result,
    discard: (answer) => {
      dropped.push(answer.text);
    },
    cancellation: () => (cancelled() ? new Error('aborted') : undefined),
  };
  return { adapter, copies, dropped };
};

/** A run whose hedging sends copies `delayMs` apart (`'p95'`: no delay yet, so one copy). */
const run = (delayMs: number | 'p95' = 0): RetryRun =>
  createRetryPolicy({ hedge: createHedging({ delayMs, ratio: 1 }), budget: false }).begin({
    method: 'GET',
    url: 'https://api.example/items',
  });

/** The run's hedging races the copies; resolves with the winner's text. */
const race = (r: RetryRun, copies: HedgedCopies<Answer>): Promise<string> =>
  r.options.feature.hedge!.race(r, copies).then((answer) => answer.text);

/** Lets the hedge timer (0 ms) fire. */
const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 5));

describe('raceCopies: the hedged copies of one attempt', () => {
  it('the first copy to settle wins; the other is cancelled, and its later answer dropped', async () => {
    const r = run();
    const { adapter, copies, dropped } = scripted();
    const won = race(r, adapter);
    await tick();
    expect(copies.map((c) => c.copy)).toEqual([1, 2]);
    copies[1]?.answer({ status: 200 });
    expect(await won).toBe('copy 2: {"status":200}');
    expect(copies[0]?.cancel?.aborted).toBe(true);
    expect(String(copies[0]?.cancel?.reason)).toMatch(/another copy of this hedged request answered first/);
    expect(copies[1]?.cancel?.aborted).toBe(false);
    copies[0]?.answer({ status: 200 });
    await tick();
    expect(dropped).toEqual(['copy 1: {"status":200}']);
  });

  it('without a first delay: one copy, nothing to cancel it, its time to a status in the latency window', async () => {
    const r = run('p95');
    const hedging = r.options.feature.hedge!;
    const { adapter, copies, dropped } = scripted();
    const answered = race(r, adapter);
    await tick();
    expect(copies.map((c) => [c.copy, c.cancel])).toEqual([[1, undefined]]);
    copies[0]?.answer({ status: 200 });
    expect(await answered).toBe('copy 1: {"status":200}');
    expect(hedging.latencies.count).toBe(1);
    const failed = scripted();
    const failing = race(r, failed.adapter);
    await tick();
    failed.copies[0]?.answer({ error: new Error('reset'), code: 'ECONNRESET' });
    expect(await failing).toMatch(/^copy 1: /);
    // A failure has no time to an answer: the window is unchanged.
    expect(hedging.latencies.count).toBe(1);
    expect([...dropped, ...failed.dropped]).toEqual([]);
    settleOn(r, 200);
    expect(r.summary?.hedge).toBeUndefined();
  });

  it('a retried failure is dropped while another copy is out; the last copy left settles', async () => {
    const r = run();
    const { adapter, copies, dropped } = scripted();
    const won = race(r, adapter);
    await tick();
    copies[0]?.answer({ status: 503 });
    await tick();
    expect(dropped).toEqual(['copy 1: {"status":503}']);
    copies[1]?.answer({ status: 503 });
    expect(await won).toBe('copy 2: {"status":503}');
  });

  it('a final answer (a 404) settles at once', async () => {
    const r = run();
    const { adapter, copies } = scripted();
    const won = race(r, adapter);
    await tick();
    copies[0]?.answer({ status: 404 });
    expect(await won).toBe('copy 1: {"status":404}');
    expect(copies[1]?.cancel?.aborted).toBe(true);
  });

  it('no copy is sent once the caller gave up, and its failure settles', async () => {
    let gaveUp = false;
    const r = run(20);
    const { adapter, copies } = scripted(() => gaveUp);
    const won = race(r, adapter);
    gaveUp = true;
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(copies).toHaveLength(1);
    copies[0]?.answer({ error: new Error('aborted') });
    expect(await won).toMatch(/^copy 1:/);
  });

  it('once the caller gave up, a copy’s failure settles even with another copy out', async () => {
    let gaveUp = false;
    const r = run();
    const { adapter, copies, dropped } = scripted(() => gaveUp);
    const won = race(r, adapter);
    await tick();
    expect(copies).toHaveLength(2);
    gaveUp = true;
    copies[0]?.answer({ error: new Error('aborted') });
    expect(await won).toMatch(/^copy 1:/);
    expect(copies[1]?.cancel?.aborted).toBe(true);
    expect(dropped).toEqual([]);
  });

  it('records the winning copy in the summary', async () => {
    const r = run();
    const { adapter, copies } = scripted();
    const won = race(r, adapter);
    await tick();
    copies[1]?.answer({ status: 200 });
    await won;
    settleOn(r, 200);
    expect(r.summary?.hedge).toEqual({ copies: 1, winner: 2 });
  });
});
