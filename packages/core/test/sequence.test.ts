/**
 * The attempt sequence as a callback driver runs it: the outcome of a `send` told at once, with
 * `done(result)` (or `failed(error)` for a send that failed with no answer), instead of `answered`
 * then `result`. Same steps, same decisions, same summary; a race still takes its copies' events.
 */
import { createHedging, createRetryPolicy, type RetryPolicyOptions } from '@jitterbug/core';
import { describe, expect, it } from 'vitest';
import type { AttemptResult, Step } from '../src/steps.ts';
import { fixed } from './helpers.ts';

const request = { method: 'GET', url: 'https://api.example.com/items' } as const;

const begin = (options: RetryPolicyOptions = {}, method = 'GET') =>
  createRetryPolicy({ random: fixed(0.5), budget: false, ...options }).begin({
    ...request,
    method,
  });

const reset = (): Error => Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });

/** Runs `results` through a sequence, one per attempt, telling each as `tell` does; the steps given. */
const drive = (
  run: ReturnType<typeof begin>,
  results: readonly AttemptResult[],
  tell: (result: AttemptResult) => Step,
): Step[] => {
  const steps: Step[] = [];
  let step = run.start(undefined, false);
  for (const result of results) {
    steps.push(step);
    expect(step).toBe('send');
    step = tell(result);
    while (step === 'discard' || step === 'wait' || step === 'result') {
      steps.push(step);
      step = step === 'result' ? run.done(result) : run.done();
    }
  }
  steps.push(step);
  return steps;
};

const atOnce = (run: ReturnType<typeof begin>) => (result: AttemptResult) => run.done(result);
const inTwoSteps = (run: ReturnType<typeof begin>) => (result: AttemptResult) =>
  run.answered(1, 'status' in result ? result.status : undefined);

describe('the attempt sequence: a send told at once', () => {
  it('done(result) at send decides as answered then result do: same steps, same summary', () => {
    const results: AttemptResult[] = [
      { status: 503 },
      { error: reset() },
      { status: 429, headers: (name) => (name === 'retry-after' ? '0' : undefined) },
      { status: 200 },
    ];
    const told = begin({ maxAttempts: 4 });
    const answered = begin({ maxAttempts: 4 });
    const toldSteps = drive(told, results, atOnce(told));
    const answeredSteps = drive(answered, results, inTwoSteps(answered));
    expect(toldSteps.filter((step) => step !== 'result')).toEqual(
      answeredSteps.filter((step) => step !== 'result'),
    );
    expect(toldSteps.at(-1)).toBe('deliver');
    const { elapsedMs: _a, ...toldSummary } = told.summary!;
    const { elapsedMs: _b, ...answeredSummary } = answered.summary!;
    expect(toldSummary).toEqual(answeredSummary);
    expect(toldSummary).toMatchObject({
      attempts: 4,
      reason: 'success',
      retries: ['status', 'error', 'status'],
    });
  });

  it('a final answer told at once is delivered; one the run gives up on too, its summary says why', () => {
    const ok = begin();
    expect(ok.start(undefined, false)).toBe('send');
    expect(ok.done({ status: 200 })).toBe('deliver');
    expect(ok.summary).toMatchObject({ attempts: 1, reason: 'success' });
    const out = begin({ maxAttempts: 1 });
    expect(out.start(undefined, false)).toBe('send');
    expect(out.done({ status: 503 })).toBe('deliver');
    expect(out.summary).toMatchObject({ attempts: 1, reason: 'max-attempts', status: 503 });
  });

  it('failed(error) at send is an attempt that failed with no answer: retried, or the request fails with it', () => {
    const run = begin({ maxAttempts: 2 });
    expect(run.start(undefined, false)).toBe('send');
    const first = reset();
    expect(run.failed(first)).toBe('discard');
    expect(run.done()).toBe('wait');
    expect(run.delayMs).toBeGreaterThanOrEqual(0);
    expect(run.done()).toBe('send');
    const second = reset();
    // Nothing is held to drop: the request fails at once, with the send's error.
    expect(run.failed(second)).toBe('fail');
    expect(run.error).toBe(second);
    expect(run.summary).toMatchObject({ attempts: 2, reason: 'max-attempts', retries: ['error'] });

    // After a retried one, the next attempt's answer is delivered.
    const again = begin();
    expect(again.start(undefined, false)).toBe('send');
    expect(again.failed(reset())).toBe('discard');
    expect(again.done()).toBe('wait');
    expect(again.done()).toBe('send');
    expect(again.done({ status: 200 })).toBe('deliver');
    expect(again.summary).toMatchObject({ attempts: 2, reason: 'success', retries: ['error'] });

    // A POST's reset is not retried (the server may have had it).
    const post = begin({}, 'POST');
    expect(post.start(undefined, false)).toBe('send');
    const error = reset();
    expect(post.failed(error)).toBe('fail');
    expect(post.error).toBe(error);
    expect(post.summary).toMatchObject({ attempts: 1, reason: 'method-not-idempotent' });
  });

  it('a held answer that a hook refuses is dropped before the request fails', () => {
    const hookError = new Error('shouldRetry broke');
    const run = begin({
      shouldRetry: () => {
        throw hookError;
      },
    });
    expect(run.start(undefined, false)).toBe('send');
    // The hook fails the request: the answer the driver holds is its to drop.
    const step = run.done({ status: 503 });
    expect(step === 'drop' ? run.proceed() : step).toBe('fail');
    expect(run.error).toBe(hookError);
    expect(run.summary).toMatchObject({ reason: 'hook-failed', status: 503 });
  });

  it('with hedging on, an attempt sent once is told at once; a race still takes its copies', () => {
    const hedge = createHedging({ delayMs: 5 });
    const once = begin({ hedge });
    expect(once.start({ sendOnce: () => true }, false)).toBe('send');
    expect(once.done({ status: 200 })).toBe('deliver');
    expect(once.summary).toMatchObject({ attempts: 1, reason: 'success' });

    const raced = begin({ hedge });
    expect(raced.start(undefined, false)).toBe('race');
    expect(raced.copy).toBe(1);
    expect(raced.due()).toBe('send');
    expect(raced.copy).toBe(2);
    // Copy 2 answers first and wins; copy 1 is the race's to end.
    expect(raced.answered(2, 200)).toBe('result');
    expect(raced.done({ status: 200 })).toBe('won');
    expect(raced.copy).toBe(2);
    expect(raced.proceed()).toBe('deliver');
    expect(raced.summary).toMatchObject({ attempts: 1, reason: 'success' });
  });
});
