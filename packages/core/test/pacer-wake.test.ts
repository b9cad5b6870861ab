/**
 * A request the pacer holds because as many attempts are unanswered as an answer said remained goes
 * when one of them is answered, not at its next step; and its hold leaves no timer behind, answered
 * or aborted. Driven through the promise driver, with the policy's clock and sleep injected: the
 * sleep never ends by itself, so that only a wake can end a hold.
 */
import { createPacer, createRetryPolicy } from '@jitterbug/core';
import type { RetryRun } from '@jitterbug/core/adapter';
import { describe, expect, it } from 'vitest';
import { runAttempts, type Transport } from '../src/drive/promise.ts';
import type { AttemptResult } from '../src/steps.ts';
import { decideOn } from './decisions.ts';
import { clock, decided, headers } from './helpers.ts';

const URL_A = 'https://api.example.com/items';
const ADVERTISED = headers({ 'ratelimit-policy': '"default";q=4;w=1', ratelimit: '"default";r=3;t=1' });

/** A sleep that ends only when its signal aborts (as the core's does then): the holds still out. */
const heldSleeps = () => {
  const out = new Set<number>();
  const asked: number[] = [];
  const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
    new Promise<void>((_, reject) => {
      const id = asked.push(ms);
      out.add(id);
      signal?.addEventListener('abort', () => {
        out.delete(id);
        reject(signal.reason);
      });
    });
  return { sleep, out, asked };
};

/** A client whose one attempt is answered 200 when the test says, its sends counted. */
const transport = (controller = new AbortController()) => {
  let answer: (result: AttemptResult) => void = () => undefined;
  const t: Transport<AttemptResult, AttemptResult> & { sends: number } = {
    sends: 0,
    signal: () => controller.signal,
    cancellation: () => (controller.signal.aborted ? controller.signal.reason : undefined),
    send() {
      t.sends++;
      return new Promise<AttemptResult>((resolve) => {
        answer = resolve;
      });
    },
    status: (a) => ('status' in a ? a.status : undefined),
    result: (a) => a,
    deliver: (a) => a,
    discard: () => undefined,
    tag: () => undefined,
    requestHeaders: () => new Headers(),
    requestUrl: () => URL_A,
    edit: () => undefined,
  };
  return { t, answer: (result: AttemptResult) => answer(result) };
};

/**
 * A pacer told of a quota of 3, three attempts sent and unanswered, and the window over: a fourth
 * request waits for an answer whatever the pace says.
 */
const atTheCap = () => {
  const c = clock();
  const sleeps = heldSleeps();
  const policy = createRetryPolicy({
    now: c.now,
    random: () => 0.5,
    sleep: sleeps.sleep,
    pacer: createPacer(),
  });
  const begin = (): RetryRun => policy.begin({ method: 'GET', url: URL_A });
  const first = begin();
  first.admission();
  decided(decideOn(first, { status: 200, headers: ADVERTISED }));
  const start = c.now();
  const unanswered = Array.from({ length: 3 }, begin);
  for (const run of unanswered) {
    for (let turn = run.admission(); turn; turn = run.admission()) {
      if (!('holdMs' in turn)) throw new Error(`refused: ${turn.refuse}`);
      c.advance(turn.holdMs);
    }
  }
  c.advance(Math.max(0, start + 2000 - c.now()));
  return { c, sleeps, begin, unanswered };
};

/** Lets the driver's promises settle. */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

describe('pacer: a request held for an answer', () => {
  it('goes when an attempt in flight is answered, not at its next step, and leaves no hold behind', async () => {
    const { c, sleeps, begin, unanswered } = atTheCap();
    const fourth = transport();
    const delivered = runAttempts(begin(), fourth.t);
    await settle();
    // Held for a step of 50 ms, which never ends by itself here.
    expect(sleeps.asked).toEqual([50]);
    expect(fourth.t.sends).toBe(0);
    const answeredAt = c.now();
    decided(decideOn(unanswered[0]!, { status: 200, headers: ADVERTISED }));
    await settle();
    expect(fourth.t.sends).toBe(1);
    expect(c.now()).toBe(answeredAt);
    expect(sleeps.asked).toEqual([50]);
    expect(sleeps.out.size).toBe(0);
    fourth.answer({ status: 200 });
    await expect(delivered).resolves.toEqual({ status: 200 });
    expect(sleeps.out.size).toBe(0);
  });

  it('the caller’s abort ends its hold at once, and a later answer wakes nothing', async () => {
    const { sleeps, begin, unanswered } = atTheCap();
    const controller = new AbortController();
    const fourth = transport(controller);
    const delivered = runAttempts(begin(), fourth.t);
    await settle();
    expect(sleeps.out.size).toBe(1);
    const reason = new Error('left');
    controller.abort(reason);
    await expect(delivered).rejects.toBe(reason);
    expect(sleeps.out.size).toBe(0);
    decided(decideOn(unanswered[0]!, { status: 200, headers: ADVERTISED }));
    await settle();
    expect(fourth.t.sends).toBe(0);
    expect(sleeps.asked).toEqual([50]);
  });

  it('only a hold for an answer is woken: the request behind it keeps the pace’s hold', async () => {
    const { sleeps, begin, unanswered } = atTheCap();
    const behind = new AbortController();
    const held = [transport(), transport(behind)];
    const running = held.map(({ t }) => runAttempts(begin(), t));
    await settle();
    // The first waits for an answer (a step of 50 ms); the second for its place at the pace (4 a
    // second: half of its 250 ms).
    expect(sleeps.asked).toEqual([50, 125]);
    decided(decideOn(unanswered[0]!, { status: 200, headers: ADVERTISED }));
    await settle();
    expect(held.map(({ t }) => t.sends)).toEqual([1, 0]);
    expect(sleeps.out.size).toBe(1);
    held[0]!.answer({ status: 200 });
    await expect(running[0]).resolves.toEqual({ status: 200 });
    behind.abort(new Error('left'));
    await expect(running[1]).rejects.toThrow('left');
    expect(sleeps.out.size).toBe(0);
  });
});
