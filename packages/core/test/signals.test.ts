/**
 * The signals a failed answer carries besides its status, as the decision reads them: an
 * idempotency key's 409 and 422, a `Proxy-Status` that proves no intermediary sent the request on,
 * the RateLimit draft's problem types, a quota that is spent for longer than `retryAfter.maxMs`, and
 * a network failure while the browser is offline. Each with the caps, jitter and summary fields a
 * `Retry-After` has.
 */
import {
  createIdempotencyKeys,
  createRetryBudget,
  createRetryPolicy,
  type RetryOptions,
} from '@jitterbug/core';
import { describe, expect, it } from 'vitest';
import { decide, defaultRetry } from '../src/decide.ts';
import { budgetFeature } from '../src/features/budget.ts';
import { decideOn } from './decisions.ts';
import { decided, fetchFailed, fixed, headers, outcome, resolved } from './helpers.ts';

const NOW = 1_700_000_000_000;
const PROBLEM = 'https://iana.org/assignments/http-problem-types#';
const keyed = headers({ 'idempotency-key': 'order-7' });

const begin = (options: RetryOptions = {}, method = 'POST', key: string | undefined = 'order-7') =>
  createRetryPolicy({ random: fixed(0.5), budget: false, now: () => NOW, ...options }).begin({
    method,
    url: 'https://api.example.com/orders',
    headers: headers(key === undefined ? {} : { 'Idempotency-Key': key }),
    body: 'replayable',
  });

describe('Idempotency-Key: a keyed request answered 409 or 422', () => {
  it('409 (one with this key is still being processed): waits its Retry-After, then goes again', () => {
    const d = decide(
      outcome({
        method: 'POST',
        status: 409,
        requestHeaders: keyed,
        responseHeaders: headers({ 'retry-after': '2' }),
      }),
      resolved({ random: fixed(0) }),
    );
    expect(d).toEqual(
      expect.objectContaining({
        retry: true,
        reason: 'key-in-use',
        delayMs: 2000,
        delaySource: 'retry-after',
      }),
    );
  });

  it('409 without a delay waits the backoff; within maxAttempts; the budget applies', () => {
    const o = resolved({ maxAttempts: 2 });
    expect(decide(outcome({ method: 'POST', status: 409, requestHeaders: keyed }), o)).toMatchObject({
      retry: true,
      reason: 'key-in-use',
      delaySource: 'backoff',
      serverDelayUnread: undefined,
    });
    expect(
      decide(outcome({ method: 'POST', status: 409, requestHeaders: keyed, attempt: 2 }), o),
    ).toMatchObject({
      retry: false,
      reason: 'max-attempts',
      gaveUp: true,
    });
    const run = begin({ budget: { ratio: 0.1, burst: 1 } });
    expect(decided(decideOn(run, { status: 409 }))).toMatchObject({ retry: true, reason: 'key-in-use' });
    expect(decided(decideOn(run, { status: 409 }))).toMatchObject({
      retry: false,
      reason: 'budget-exhausted',
    });
  });

  it('a generated key counts: a POST keyed by jitterbug is retried on 409 too', () => {
    const run = begin(
      { idempotencyKey: createIdempotencyKeys({ generate: () => 'made-1' }) },
      'POST',
      undefined,
    );
    expect(decided(decideOn(run, { status: 409 }))).toMatchObject({ retry: true, reason: 'key-in-use' });
    expect(decided(decideOn(run, { status: 201 }))).toMatchObject({ reason: 'success' });
    expect(run.summary).toMatchObject({ attempts: 2, retries: ['key-in-use'] });
  });

  it('x-should-retry: false on a keyed 409 is the server declining', () => {
    const d = decide(
      outcome({
        method: 'POST',
        status: 409,
        requestHeaders: keyed,
        responseHeaders: headers({ 'x-should-retry': 'false' }),
      }),
      resolved(),
    );
    expect(d).toEqual({ retry: false, reason: 'declined-by-server', gaveUp: true });
  });

  it('422 (the key was used with another payload): never retried, and the run says why', () => {
    const run = begin();
    expect(decided(decideOn(run, { status: 422 }))).toEqual({
      retry: false,
      reason: 'key-reused',
      gaveUp: false,
    });
    expect(run.summary).toMatchObject({ attempts: 1, reason: 'key-reused', outcome: 'failure', retries: [] });
    // Not even when 422 is among the statuses retried: then it is a give-up.
    expect(decide(outcome({ status: 422, requestHeaders: keyed }), resolved({ statusCodes: [422] }))).toEqual(
      {
        retry: false,
        reason: 'key-reused',
        gaveUp: true,
      },
    );
    expect(
      defaultRetry(outcome({ status: 422, requestHeaders: keyed }), resolved({ statusCodes: [422] })),
    ).toBe(false);
  });

  it("a hook's true or a forced retry still decides last", () => {
    expect(decide(outcome({ status: 422, requestHeaders: keyed, verdict: true }), resolved())).toMatchObject({
      retry: true,
      reason: 'forced',
    });
    expect(decide(outcome({ status: 422, requestHeaders: keyed, forced: {} }), resolved())).toMatchObject({
      retry: true,
    });
  });

  it('unkeyed 409 and 422 keep the status rules; so does a keyed one with idempotencyKey: false', () => {
    for (const status of [409, 422]) {
      expect(decide(outcome({ status }), resolved())).toEqual({
        retry: false,
        reason: 'status-not-retryable',
        gaveUp: false,
      });
      expect(
        decide(outcome({ status, requestHeaders: keyed }), resolved({ idempotencyKey: false })),
      ).toMatchObject({
        reason: 'status-not-retryable',
      });
      // A blank key is no key.
      expect(
        decide(outcome({ status, requestHeaders: headers({ 'idempotency-key': '  ' }) }), resolved()),
      ).toMatchObject({ reason: 'status-not-retryable' });
    }
    // Listed by the user, an unkeyed 409 is a status like any other.
    expect(decide(outcome({ status: 409 }), resolved({ statusCodes: [409] }))).toMatchObject({
      retry: true,
      reason: 'status',
    });
  });

  it('the key header is the one the policy names', () => {
    const own = headers({ 'x-request-key': 'k1' });
    expect(
      decide(
        outcome({ method: 'POST', status: 409, requestHeaders: own }),
        resolved({ idempotencyKey: 'X-Request-Key' }),
      ),
    ).toMatchObject({ retry: true, reason: 'key-in-use' });
  });
});

describe('Proxy-Status: an intermediary that never sent the request on', () => {
  const refused = headers({ 'proxy-status': 'lb; error=connection_refused' });
  const timedOut = headers({ 'proxy-status': 'lb; error=http_response_timeout' });

  it('a POST without a key, answered 502 connection_refused, goes again: outside maxAttempts, as not-forwarded', () => {
    const o = resolved({ maxAttempts: 1 });
    expect(decide(outcome({ method: 'POST', status: 502, responseHeaders: refused }), o)).toMatchObject({
      retry: true,
      reason: 'not-forwarded',
      delaySource: 'backoff',
    });
    const run = begin({ maxAttempts: 1 }, 'POST', undefined);
    expect(decided(decideOn(run, { status: 502, headers: refused }))).toMatchObject({
      retry: true,
      reason: 'not-forwarded',
    });
    expect(decided(decideOn(run, { status: 200 }))).toMatchObject({ reason: 'success' });
    expect(run.summary).toMatchObject({ attempts: 2, retries: ['not-forwarded'], outcome: 'success' });
  });

  it('one whose error says the origin may have had it keeps the method rule', () => {
    expect(decide(outcome({ method: 'POST', status: 504, responseHeaders: timedOut }), resolved())).toEqual({
      retry: false,
      reason: 'method-not-idempotent',
      gaveUp: true,
    });
    expect(decide(outcome({ status: 504, responseHeaders: timedOut }), resolved())).toMatchObject({
      retry: true,
      reason: 'status',
    });
  });

  it('at most transparentRetries in a row: its own answers are no progress of the servers', () => {
    const policy = createRetryPolicy({ random: fixed(0.5) });
    const post = policy.begin({ method: 'POST', url: 'https://api.example.com/orders', body: 'replayable' });
    const others = Array.from({ length: 4 }, () =>
      policy.begin({ method: 'POST', url: 'https://api.example.com/orders', body: 'replayable' }),
    );
    for (let i = 0; i < 2; i++) {
      // Other requests of the policy get the same answer from the proxy in between.
      for (const other of others) decided(decideOn(other, { status: 502, headers: refused }));
      expect(decided(decideOn(post, { status: 502, headers: refused }))).toMatchObject({ retry: true });
    }
    for (const other of others) decided(decideOn(other, { status: 502, headers: refused }));
    expect(decided(decideOn(post, { status: 502, headers: refused }))).toMatchObject({
      retry: false,
      reason: 'method-not-idempotent',
    });
    expect(post.summary).toMatchObject({ attempts: 3, retries: ['not-forwarded', 'not-forwarded'] });
    // Free of the budget, as a refused connection's retries are.
    expect(policy.options.feature.budget?.tokens).toBe(10);
  });

  it('transparentRetries: 0, a stream body, x-should-retry: false or a hook’s false turn it off', () => {
    const post = { method: 'POST', status: 502, responseHeaders: refused } as const;
    expect(decide(outcome(post), resolved({ transparentRetries: 0 }))).toMatchObject({
      reason: 'method-not-idempotent',
    });
    expect(decide(outcome({ ...post, bodyReplayable: false }), resolved())).toMatchObject({
      reason: 'method-not-idempotent',
    });
    expect(
      decide(
        outcome({
          ...post,
          responseHeaders: headers({
            'proxy-status': 'lb; error=connection_refused',
            'x-should-retry': 'false',
          }),
        }),
        resolved(),
      ),
    ).toMatchObject({ reason: 'declined-by-server' });
    expect(decide(outcome({ ...post, verdict: false }), resolved())).toMatchObject({
      reason: 'should-retry',
    });
  });

  it('a GET uses no attempt on it either, and waits a Retry-After the proxy gives', () => {
    const d = decide(
      outcome({
        status: 503,
        attempt: 3,
        responseHeaders: headers({ 'proxy-status': 'lb; error=destination_unavailable', 'retry-after': '1' }),
      }),
      resolved({ random: fixed(0) }),
    );
    expect(d).toMatchObject({
      retry: true,
      reason: 'not-forwarded',
      delayMs: 1000,
      delaySource: 'retry-after',
    });
  });
});

describe('one read of each field of a failed answer', () => {
  it('a retried 503 or 429 reads no header twice, through the run and its decision', () => {
    for (const status of [503, 429, 502]) {
      const reads: string[] = [];
      const counting = (name: string) => {
        reads.push(name.toLowerCase());
        return undefined;
      };
      const run = begin({}, 'GET');
      expect(decided(decideOn(run, { status, headers: counting }))).toMatchObject({ retry: true });
      expect(reads.length).toBeGreaterThan(0);
      expect(reads.filter((name, i) => reads.indexOf(name) !== i)).toEqual([]);
    }
  });
});

describe('RateLimit problem types', () => {
  it('quota-exceeded (a 429): ends the request at once, with the reset time when the server gives one', () => {
    const run = begin({}, 'GET');
    const d = decided(
      decideOn(run, {
        status: 429,
        headers: headers({ 'retry-after': '3600' }),
        problemType: `${PROBLEM}quota-exceeded`,
      }),
    );
    expect(d).toEqual({
      retry: false,
      reason: 'quota-exceeded',
      gaveUp: true,
      refusedDelayMs: 3_600_000,
      quotaResetAt: NOW + 3_600_000,
    });
    expect(run.summary).toMatchObject({
      attempts: 1,
      reason: 'quota-exceeded',
      quotaResetAt: NOW + 3_600_000,
    });
    // Even with a short delay, and without any.
    expect(
      decide(
        outcome({
          status: 429,
          problemType: `${PROBLEM}quota-exceeded`,
          responseHeaders: headers({ 'retry-after': '1' }),
        }),
        resolved(),
      ),
    ).toMatchObject({ retry: false, reason: 'quota-exceeded', quotaResetAt: NOW + 1000 });
    expect(decide(outcome({ status: 429, problemType: `${PROBLEM}quota-exceeded` }), resolved())).toEqual({
      retry: false,
      reason: 'quota-exceeded',
      gaveUp: true,
    });
  });

  it('abnormal-usage-detected: a stop', () => {
    expect(
      decide(outcome({ status: 429, problemType: `${PROBLEM}abnormal-usage-detected` }), resolved()),
    ).toEqual({
      retry: false,
      reason: 'abnormal-usage',
      gaveUp: true,
    });
  });

  it('temporary-reduced-capacity (a 503): a retry at the server’s time, as reduced-capacity', () => {
    const d = decide(
      outcome({
        status: 503,
        problemType: `${PROBLEM}temporary-reduced-capacity`,
        responseHeaders: headers({ 'retry-after': '1' }),
      }),
      resolved({ random: fixed(0) }),
    );
    expect(d).toMatchObject({
      retry: true,
      reason: 'reduced-capacity',
      delayMs: 1000,
      delaySource: 'retry-after',
    });
    // Within the method rule.
    expect(
      decide(
        outcome({ method: 'POST', status: 503, problemType: `${PROBLEM}temporary-reduced-capacity` }),
        resolved(),
      ),
    ).toMatchObject({ reason: 'method-not-idempotent' });
  });

  it('another problem type, or none, keeps the status rules', () => {
    expect(
      decide(outcome({ status: 429, problemType: 'https://example.com/probs/out-of-credit' }), resolved()),
    ).toMatchObject({
      retry: true,
      reason: 'status',
    });
    expect(decide(outcome({ status: 429, problemType: 'about:blank' }), resolved())).toMatchObject({
      retry: true,
    });
  });
});

describe('a quota that is gone for hours', () => {
  const far = NOW + 5 * 3_600_000;

  it('RateLimit r=0 with a reset past retryAfter.maxMs ends the request at once: quota-exceeded, reset readable', () => {
    const run = begin({}, 'GET');
    expect(
      decided(decideOn(run, { status: 429, headers: headers({ ratelimit: '"daily";r=0;t=18000' }) })),
    ).toEqual({
      retry: false,
      reason: 'quota-exceeded',
      gaveUp: true,
      refusedDelayMs: 18_000_000,
      quotaResetAt: far,
    });
    expect(run.summary).toMatchObject({ attempts: 1, reason: 'quota-exceeded', quotaResetAt: far });
  });

  it('X-RateLimit-Remaining: 0 with a far reset (GitHub’s epoch seconds), the same', () => {
    const d = decide(
      outcome({
        status: 429,
        responseHeaders: headers({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(far / 1000) }),
      }),
      resolved(),
    );
    expect(d).toMatchObject({ retry: false, reason: 'quota-exceeded', quotaResetAt: far });
  });

  it('a spent quota back within maxMs is waited for, with the jitter of a Retry-After', () => {
    const d = decide(
      outcome({ status: 429, responseHeaders: headers({ ratelimit: '"minute";r=0;t=20' }) }),
      resolved({ random: fixed(0.5) }),
    );
    expect(d).toMatchObject({ retry: true, delaySource: 'ratelimit', delayMs: 21_000 });
  });

  it('whenLonger: cap waits maxMs, as for a long Retry-After', () => {
    const d = decide(
      outcome({ status: 429, responseHeaders: headers({ ratelimit: '"daily";r=0;t=18000' }) }),
      resolved({ random: fixed(0), retryAfter: { whenLonger: 'cap' } }),
    );
    expect(d).toMatchObject({ retry: true, delaySource: 'ratelimit', delayMs: 60_000 });
  });

  it('Retry-After takes precedence (the draft: it MUST), as gemini-cli learned not to end a 429 it says to retry', () => {
    const d = decide(
      outcome({
        status: 429,
        responseHeaders: headers({ 'retry-after': '2', ratelimit: '"daily";r=0;t=18000' }),
      }),
      resolved({ random: fixed(0) }),
    );
    expect(d).toMatchObject({ retry: true, delaySource: 'retry-after', delayMs: 2000 });
  });

  it('a far reset with requests left is not a spent quota: it stays retry-after-too-long', () => {
    const d = decide(
      outcome({
        status: 429,
        responseHeaders: headers({ 'x-ratelimit-remaining': '12', 'x-ratelimit-reset': '18000' }),
      }),
      resolved(),
    );
    expect(d).toEqual({
      retry: false,
      reason: 'retry-after-too-long',
      gaveUp: true,
      refusedDelayMs: 18_000_000,
    });
  });

  it('retryAfter: false reads none of it', () => {
    const d = decide(
      outcome({ status: 429, responseHeaders: headers({ ratelimit: '"daily";r=0;t=18000' }) }),
      resolved({ retryAfter: false }),
    );
    expect(d).toMatchObject({ retry: true, delaySource: 'backoff' });
  });
});

describe('a network failure while the browser is offline', () => {
  it('waits until it is back online: at most retryAfter.maxMs, the backoff not moved on', () => {
    const o = outcome({
      status: undefined,
      responseHeaders: undefined,
      error: new TypeError('Failed to fetch'),
      code: 'ERR_NETWORK',
      offline: true,
    });
    expect(decide(o, resolved())).toEqual({
      retry: true,
      reason: 'offline',
      delaySource: 'offline',
      delayMs: 60_000,
      nextBackoffState: o.backoffState,
    });
    expect(decide(o, resolved({ retryAfter: { maxMs: 10_000 } }))).toMatchObject({ delayMs: 10_000 });
    expect(decide(o, resolved({ retryAfter: false, backoff: { capMs: 5_000 } }))).toMatchObject({
      delayMs: 5_000,
    });
  });

  it('within the deadline: the wait is what is left of it', () => {
    const o = outcome({
      status: undefined,
      error: fetchFailed('ERR_NETWORK'),
      offline: true,
      elapsedMs: 7_000,
    });
    expect(decide(o, resolved({ deadlineMs: 10_000 }))).toMatchObject({
      retry: true,
      reason: 'offline',
      delayMs: 3_000,
    });
    expect(decide({ ...o, elapsedMs: 10_000 }, resolved({ deadlineMs: 10_000 }))).toMatchObject({
      retry: true,
      delayMs: 0,
    });
  });

  it('within the method rule, maxAttempts (less the attempts that ended back online) and a replayable body', () => {
    const failed = { status: undefined, error: fetchFailed('ERR_NETWORK'), offline: true } as const;
    expect(decide(outcome({ ...failed, method: 'POST' }), resolved())).toMatchObject({
      reason: 'method-not-idempotent',
    });
    expect(decide(outcome({ ...failed, attempt: 3 }), resolved())).toMatchObject({ reason: 'max-attempts' });
    expect(decide(outcome({ ...failed, attempt: 3, uncountedRetries: 1 }), resolved())).toMatchObject({
      retry: true,
      reason: 'offline',
    });
    expect(decide(outcome({ ...failed, bodyReplayable: false }), resolved())).toMatchObject({
      reason: 'body-not-replayable',
    });
  });

  it('an abort, a response, or a proof that nothing was sent are decided as ever', () => {
    expect(
      decide(
        outcome({ status: undefined, error: fetchFailed('ERR_NETWORK'), offline: true, aborted: true }),
        resolved(),
      ),
    ).toMatchObject({
      reason: 'aborted',
    });
    expect(decide(outcome({ status: 503, offline: true }), resolved())).toMatchObject({ reason: 'status' });
    expect(
      decide(
        outcome({ status: undefined, method: 'POST', error: fetchFailed('ECONNREFUSED'), offline: true }),
        resolved(),
      ),
    ).toMatchObject({ reason: 'unprocessed' });
  });

  it('takes no budget token: no server saw the attempt', () => {
    const budget = createRetryBudget({ ratio: 0.1, burst: 1 });
    expect(budget.tryWithdraw()).toBe(true);
    const review = budgetFeature(budget).review!;
    const run = begin({}, 'GET');
    const o = outcome({ status: undefined, error: fetchFailed('ERR_NETWORK'), offline: true });
    const waits = decide(o, resolved());
    expect(review(run, o, waits)).toBe(waits);
    const backs = decide({ ...o, offline: false }, resolved());
    expect(review(run, o, backs)).toMatchObject({ retry: false, reason: 'budget-exhausted' });
  });

  it('in Node, where there is no navigator.onLine, a failure is never taken for one while offline', () => {
    const run = begin({}, 'GET');
    expect(
      decided(decideOn(run, { error: new TypeError('Failed to fetch'), code: 'ERR_NETWORK' })),
    ).toMatchObject({
      retry: true,
      reason: 'error',
      delaySource: 'backoff',
    });
    expect(run.lastOutcome?.offline).toBe(false);
  });
});
