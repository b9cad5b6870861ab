import {
  createRequestEdits,
  createRetryBudget,
  createRetryPolicy,
  DEFAULT_BUDGET,
  type RetryPolicy,
} from '@jitterbug/core';
import { isRetryBudget } from '@jitterbug/core/adapter';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideOn } from './decisions.ts';
import { decided, fixed } from './helpers.ts';

/** One request that fails with 503 until `maxAttempts`; returns the attempts it made. */
const failingRequest = (policy: RetryPolicy): number => {
  const run = policy.begin({ method: 'GET', url: 'https://api.example.com/' });
  while (decided(decideOn(run, { status: 503 })).retry) {
    // an adapter would wait here
  }
  return run.attempts;
};

describe('createRetryBudget', () => {
  it('starts full, withdraws one per retry, deposits ratio per request up to burst', () => {
    const budget = createRetryBudget({ ratio: 0.5, burst: 2 });
    expect(budget.tokens).toBe(2);
    expect(budget.tryWithdraw()).toBe(true);
    expect(budget.tryWithdraw()).toBe(true);
    expect(budget.tokens).toBe(0);
    expect(budget.tryWithdraw()).toBe(false);
    expect(budget.tokens).toBe(0);
    budget.deposit();
    expect(budget.tryWithdraw()).toBe(false);
    budget.deposit();
    expect(budget.tryWithdraw()).toBe(true);
    for (let i = 0; i < 100; i++) budget.deposit();
    expect(budget.tokens).toBe(2);
  });

  it('ten deposits of 0.1 make a whole token despite floating point', () => {
    const budget = createRetryBudget();
    while (budget.tryWithdraw()) {}
    for (let i = 0; i < 9; i++) budget.deposit();
    expect(budget.tryWithdraw()).toBe(false);
    budget.deposit();
    expect(budget.tryWithdraw()).toBe(true);
  });

  it('has the documented defaults', () => {
    expect(DEFAULT_BUDGET).toEqual({ ratio: 0.1, burst: 10 });
    const budget = createRetryBudget();
    expect([budget.ratio, budget.burst, budget.tokens]).toEqual([0.1, 10, 10]);
    expect(isRetryBudget(budget)).toBe(true);
    expect(isRetryBudget({ ratio: 0.1 })).toBe(false);
  });

  it('rejects bad settings naming the option', () => {
    expect(() => createRetryBudget({ ratio: -0.1 })).toThrow(/"budget\.ratio"/);
    expect(() => createRetryBudget({ burst: 0 })).toThrow(/"budget\.burst"/);
    expect(() => createRetryBudget({ burst: 5 }, 'routes[0].budget')).not.toThrow();
    expect(() => createRetryBudget({ ratio: 7 }, 'routes[0].budget')).toThrow(/"routes\[0\]\.budget\.ratio"/);
  });
});

describe('retries free of the budget', () => {
  const empty = () => {
    const budget = createRetryBudget({ ratio: 0, burst: 1 });
    budget.tryWithdraw();
    return createRetryPolicy({ random: fixed(0.5), budget });
  };

  it('a 429 retried at the time the server gave (Retry-After, retry-after-ms, a rate-limit reset)', () => {
    for (const name of ['retry-after', 'retry-after-ms', 'ratelimit-reset']) {
      const run = empty().begin({ method: 'GET', url: 'https://api.example.com/' });
      const given = (header: string) => (header === name ? '1' : undefined);
      expect(decided(decideOn(run, { status: 429, headers: given }))).toMatchObject({
        retry: true,
        reason: 'status',
      });
    }
  });

  it('but not a 429 without a delay, nor a 503 with one (an outage)', () => {
    const run = empty().begin({ method: 'GET', url: 'https://api.example.com/' });
    expect(decided(decideOn(run, { status: 429 }))).toMatchObject({
      retry: false,
      reason: 'budget-exhausted',
    });
    const outage = empty().begin({ method: 'GET', url: 'https://api.example.com/' });
    const later = (name: string) => (name === 'retry-after' ? '1' : undefined);
    expect(decided(decideOn(outage, { status: 503, headers: later }))).toMatchObject({
      retry: false,
      reason: 'budget-exhausted',
    });
  });

  it('a transparent retry of a request the server never processed', () => {
    const run = empty().begin({ method: 'POST', url: 'https://api.example.com/', body: 'replayable' });
    const refused = Object.assign(new Error('refused'), { code: 'ECONNREFUSED' });
    expect(decided(decideOn(run, { error: refused }))).toMatchObject({ retry: true, reason: 'unprocessed' });
  });

  it('once per request, a 4xx shouldRetry forced that a beforeRetry hook can change (a token refreshed)', () => {
    const budget = createRetryBudget({ ratio: 0, burst: 1 });
    budget.tryWithdraw();
    const policy = createRetryPolicy({
      random: fixed(0.5),
      budget,
      shouldRetry: ({ status }) => (status === 401 ? true : undefined),
      beforeRetry: () => {},
      requestEdits: createRequestEdits(),
    });
    const run = policy.begin({ method: 'GET', url: 'https://api.example.com/' });
    expect(decided(decideOn(run, { status: 401 }))).toMatchObject({ retry: true, reason: 'forced' });
    // The same request refused again is charged as any retry: the empty budget ends it.
    expect(decided(decideOn(run, { status: 401 }))).toMatchObject({
      retry: false,
      reason: 'budget-exhausted',
    });
    // Each request has its own.
    const other = policy.begin({ method: 'GET', url: 'https://api.example.com/' });
    expect(decided(decideOn(other, { status: 401 }))).toMatchObject({ retry: true, reason: 'forced' });
  });

  it('a client’s own retry hooks count as a hook that can change it (ky’s beforeRetry)', () => {
    const budget = createRetryBudget({ ratio: 0, burst: 1 });
    budget.tryWithdraw();
    const policy = createRetryPolicy({ budget, shouldRetry: ({ status }) => status === 401 || undefined });
    const run = policy.begin({ method: 'GET', url: 'https://api.example.com/' });
    run.retryHooks = true;
    expect(decided(decideOn(run, { status: 401 }))).toMatchObject({ retry: true, reason: 'forced' });
  });

  it('but not without a hook that could change the request, nor a forced retry of a 5xx or a success', () => {
    const empty = () => {
      const budget = createRetryBudget({ ratio: 0, burst: 1 });
      budget.tryWithdraw();
      return budget;
    };
    const forced = () => true;
    const bare = createRetryPolicy({ budget: empty(), shouldRetry: forced });
    expect(
      decided(decideOn(bare.begin({ method: 'GET', url: 'https://a.example/' }), { status: 401 })),
    ).toMatchObject({
      retry: false,
      reason: 'budget-exhausted',
    });
    const hooked = createRetryPolicy({
      budget: empty(),
      shouldRetry: forced,
      beforeRetry: () => {},
      requestEdits: createRequestEdits(),
    });
    expect(
      decided(decideOn(hooked.begin({ method: 'GET', url: 'https://a.example/' }), { status: 501 })),
    ).toMatchObject({
      retry: false,
      reason: 'budget-exhausted',
    });
    // A 2xx the caller calls a failure (isFailure) is not a request that was wrong either.
    const ok = createRetryPolicy({
      budget: empty(),
      isFailure: forced,
      beforeRetry: () => {},
      requestEdits: createRequestEdits(),
    });
    expect(
      decided(decideOn(ok.begin({ method: 'GET', url: 'https://a.example/' }), { status: 200 })),
    ).toMatchObject({
      retry: false,
      reason: 'budget-exhausted',
    });
  });

  it('a server that answers 401 forever still ends each request within maxAttempts', () => {
    const policy = createRetryPolicy({
      budget: false,
      shouldRetry: ({ status }) => (status === 401 ? true : undefined),
      beforeRetry: () => {},
      requestEdits: createRequestEdits(),
    });
    const run = policy.begin({ method: 'GET', url: 'https://api.example.com/' });
    while (decided(decideOn(run, { status: 401 })).retry) {}
    expect(run.attempts).toBe(3);
    expect(run.summary).toMatchObject({ reason: 'max-attempts', retries: ['forced', 'forced'] });
  });

  it('the onRetry event says what is left of the budget, unchanged by a free retry', () => {
    const left: (number | undefined)[] = [];
    const policy = createRetryPolicy({ random: fixed(0.5), onRetry: (e) => left.push(e.budgetTokens) });
    const run = policy.begin({ method: 'GET', url: 'https://api.example.com/' });
    decided(decideOn(run, { status: 429, headers: (name) => (name === 'retry-after' ? '1' : undefined) }));
    decided(decideOn(run, { status: 503 }));
    expect(left).toEqual([10, 9]);
  });
});

describe('the budget in a policy', () => {
  it('during an outage retries stop soon and stay near ratio per request, then resume as requests succeed', () => {
    const policy = createRetryPolicy({ random: fixed(0), maxAttempts: 3 });
    const budget = policy.options.feature.budget!;
    // First requests spend the burst: 10 tokens allow 10 retries (5 requests × 2 retries).
    const early = Array.from({ length: 5 }, () => failingRequest(policy));
    expect(early).toEqual([3, 3, 3, 3, 3]);
    // Then 1000 more failing requests: about 0.1 retries each, not 2.
    let attempts = 0;
    for (let i = 0; i < 1000; i++) attempts += failingRequest(policy);
    const retries = attempts - 1000;
    expect(retries).toBeGreaterThanOrEqual(95);
    expect(retries).toBeLessThanOrEqual(101);
    expect(budget.tokens).toBeLessThan(1);
    // The outage ends: successful requests refill the bucket; retries resume by themselves.
    for (let i = 0; i < 100; i++) {
      const run = policy.begin({ method: 'GET', url: 'https://api.example.com/' });
      expect(decided(decideOn(run, { status: 200 })).retry).toBe(false);
    }
    expect(budget.tokens).toBeCloseTo(10, 9);
    expect(failingRequest(policy)).toBe(3);
  });

  it('reports budget-exhausted to onGiveUp', () => {
    const reasons: string[] = [];
    const policy = createRetryPolicy({
      budget: { burst: 1, ratio: 0 },
      onGiveUp: (e) => reasons.push(e.reason),
    });
    failingRequest(policy);
    failingRequest(policy);
    expect(reasons).toEqual(['budget-exhausted', 'budget-exhausted']);
  });

  it('is shared between policies given the same budget object', () => {
    const shared = createRetryBudget({ burst: 2, ratio: 0 });
    const a = createRetryPolicy({ budget: shared });
    const b = createRetryPolicy({ budget: shared });
    expect(a.options.feature.budget).toBe(shared);
    expect(failingRequest(a)).toBe(3); // spends both tokens
    expect(failingRequest(b)).toBe(1); // nothing left for b
  });

  it('budget: false means no budget and unlimited retries', () => {
    const policy = createRetryPolicy({ budget: false, maxAttempts: 3 });
    expect(policy.options.feature.budget).toBeUndefined();
    for (let i = 0; i < 50; i++) expect(failingRequest(policy)).toBe(3);
  });

  it('onRetry reports the tokens left only when there is a budget', () => {
    const tokens: (number | undefined)[] = [];
    const onRetry = (e: { budgetTokens: number | undefined }) => tokens.push(e.budgetTokens);
    decideOn(createRetryPolicy({ onRetry, maxAttempts: 2 }).begin({ method: 'GET', url: 'http://x/' }), {
      status: 503,
    });
    decideOn(
      createRetryPolicy({ onRetry, maxAttempts: 2, budget: false }).begin({
        method: 'GET',
        url: 'http://x/',
      }),
      { status: 503 },
    );
    expect(tokens).toEqual([9, undefined]);
  });

  it('keeps the documented bound retries <= burst + ratio × requests', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 300 }),
        (ratio, burst, maxAttempts, failures) => {
          const policy = createRetryPolicy({ budget: { ratio, burst }, maxAttempts, random: fixed(0) });
          let retries = 0;
          for (const fails of failures) {
            const run = policy.begin({ method: 'GET', url: 'https://api.example.com/' });
            while (decided(decideOn(run, { status: fails ? 503 : 200 })).retry) retries++;
          }
          // The 1e-9 withdrawal tolerance may lend at most 1e-9 per retry.
          expect(retries).toBeLessThanOrEqual(burst + ratio * failures.length + 1e-9 * retries + 1e-9);
        },
      ),
    );
  });
});
