/**
 * Hooks that return promises (issue: "a shouldRetry that returns a Promise is silently read as no
 * opinion, and a rejected one becomes an unhandledRejection"). A thenable is awaited; a synchronous
 * hook keeps the decision synchronous.
 */
import { createRetryPolicy, type RetryOptions } from '@jitterbug/core';
import { describe, expect, it } from 'vitest';
import { forceRetry } from '../src/force.ts';
import { decideOn, settleOn, waitBetween } from './decisions.ts';
import { decided, fixed, recordingSleep } from './helpers.ts';

const begin = (options: RetryOptions, method = 'GET') =>
  createRetryPolicy({ random: fixed(0.5), sleep: recordingSleep(), ...options }).begin({
    method,
    url: 'https://api.example.com/items',
  });

describe('async hooks', () => {
  it('an async shouldRetry that resolves false stops the run (it is not read as "no opinion")', async () => {
    const run = begin({ shouldRetry: async () => false });
    const decision = decideOn(run, { status: 503 });
    expect(decision).toBeInstanceOf(Promise);
    expect(await decision).toMatchObject({ retry: false, reason: 'should-retry' });
    expect(run.summary).toMatchObject({ attempts: 1, reason: 'should-retry', outcome: 'failure' });
  });

  it('an async shouldRetry that resolves true retries what would not be retried', async () => {
    const run = begin({ shouldRetry: async () => true });
    expect(await decideOn(run, { status: 404 })).toMatchObject({ retry: true, reason: 'forced' });
  });

  it('an async isFailure that resolves true retries a 200 as a failure', async () => {
    const run = begin({ isFailure: async () => true });
    expect(await decideOn(run, { status: 200 })).toMatchObject({ retry: true, reason: 'forced' });
  });

  it('a shouldRetry that rejects fails the decision with its error, and nothing is left unhandled', async () => {
    const boom = new Error('hook failed');
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const run = begin({ shouldRetry: () => Promise.reject(boom) });
      await expect(decideOn(run, { status: 503 })).rejects.toBe(boom);
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('a synchronous hook keeps the decision synchronous (the success path pays no promise)', () => {
    const run = begin({ shouldRetry: () => undefined, onRetry: () => undefined, onFinish: () => 1 });
    expect(decided(decideOn(run, { status: 503 }))).toMatchObject({ retry: true });
    expect(decided(decideOn(run, { status: 200 }))).toMatchObject({ retry: false, reason: 'success' });
    expect(decided(settleOn(begin({}), 200)!)).toMatchObject({ reason: 'success' });
  });

  it('awaits onRetry before the decision is returned, and fails with its rejection', async () => {
    const order: string[] = [];
    const run = begin({
      onRetry: async () => {
        await Promise.resolve();
        order.push('onRetry done');
      },
    });
    const decision = decideOn(run, { status: 503 });
    order.push('next returned');
    await decision;
    order.push('decision settled');
    expect(order).toEqual(['next returned', 'onRetry done', 'decision settled']);

    const boom = new Error('onRetry failed');
    await expect(decideOn(begin({ onRetry: () => Promise.reject(boom) }), { status: 503 })).rejects.toBe(
      boom,
    );
  });

  it('awaits onGiveUp and onFinish before the final decision, and fails with a rejection of either', async () => {
    const seen: string[] = [];
    const run = begin({
      maxAttempts: 1,
      onGiveUp: async () => {
        await Promise.resolve();
        seen.push('give-up');
      },
      onFinish: async () => {
        await Promise.resolve();
        seen.push('finish');
      },
    });
    expect(await decideOn(run, { status: 503 })).toMatchObject({ retry: false, reason: 'max-attempts' });
    expect(seen).toEqual(['give-up', 'finish']);

    const boom = new Error('onFinish failed');
    const failing = begin({ onFinish: () => Promise.reject(boom) });
    await expect(Promise.resolve(settleOn(failing, 200))).rejects.toBe(boom);
    expect(failing.summary).toMatchObject({ reason: 'success' });
  });

  it('a wait that ends in an abort does not surface a rejecting onFinish in place of the reason', async () => {
    const run = begin({ onFinish: () => Promise.reject(new Error('late')) });
    const controller = new AbortController();
    const reason = new Error('caller left');
    controller.abort(reason);
    await expect(waitBetween(run, 10, controller.signal)).rejects.toBe(reason);
  });
});

describe('forceRetry (ky.retry() after the response was handed over)', () => {
  it('continues a finished run: counts, draws from the budget, waits the given delay, finishes again', async () => {
    const finished: unknown[] = [];
    const policy = createRetryPolicy({
      random: fixed(0.5),
      budget: { burst: 5 },
      onFinish: (i) => finished.push(i),
    });
    const run = policy.begin({ method: 'POST', url: 'https://api.example.com/charge' });
    decided(settleOn(run, 200)!);
    expect(finished).toHaveLength(1);
    const tokens = policy.options.feature.budget!.tokens;
    expect(decided(forceRetry(run, 250))).toMatchObject({
      retry: true,
      delayMs: 250,
      delaySource: 'forced',
      reason: 'forced',
    });
    expect(run.summary).toBeUndefined();
    expect(policy.options.feature.budget!.tokens).toBe(tokens - 1);
    decided(settleOn(run, 200)!);
    expect(finished).toHaveLength(2);
    expect(run.summary).toMatchObject({
      attempts: 2,
      retries: ['forced'],
      reason: 'success',
      outcome: 'success',
    });
  });

  it('a forced retry past maxAttempts finishes the run as a failure with that reason', () => {
    const run = begin({ maxAttempts: 1 });
    decided(settleOn(run, 200)!);
    expect(decided(forceRetry(run))).toMatchObject({ retry: false, reason: 'max-attempts' });
    expect(run.summary).toMatchObject({
      attempts: 1,
      reason: 'max-attempts',
      outcome: 'failure',
      status: 200,
    });
  });
});
