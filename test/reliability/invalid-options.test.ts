/**
 * Invalid options of every kind throw a `TypeError` naming the option, when the policy is created —
 * through the core and through each adapter's entry point (`withRetry`, `kyRetry`, `attachRetry`,
 * `retryInterceptor`), never later on a request. Route rules are `createRetryPolicy`'s: an adapter
 * given them in plain options refuses them, naming `routes`.
 */
import { attachRetry } from '@jitterbug/axios';
import { createBodyBuffering, createRetryPolicy, type RetryOptions } from '@jitterbug/core';
import { withRetry } from '@jitterbug/fetch';
import { kyRetry } from '@jitterbug/ky';
import { retryInterceptor } from '@jitterbug/undici';
import axios from 'axios';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

type EntryPoint = (options: unknown) => unknown;

const entryPoints: ReadonlyArray<readonly [string, EntryPoint]> = [
  ['createRetryPolicy', (o) => createRetryPolicy(o as RetryOptions)],
  ['withRetry', (o) => withRetry(fetch, o as RetryOptions)],
  ['kyRetry', (o) => kyRetry(o as RetryOptions)],
  ['attachRetry', (o) => attachRetry(axios.create(), o as RetryOptions)],
  ['retryInterceptor', (o) => retryInterceptor(o as RetryOptions)],
];

const fnValue = (): void => {};

/** [options, the option the message must name]. */
const INVALID: ReadonlyArray<readonly [unknown, string]> = [
  [{ maxAttempts: 0 }, 'maxAttempts'],
  [{ maxAttempts: 1.5 }, 'maxAttempts'],
  [{ maxAttempts: 1001 }, 'maxAttempts'],
  [{ maxAttempts: Number.NaN }, 'maxAttempts'],
  [{ maxAttempts: '3' }, 'maxAttempts'],
  [{ maxAttempts: null }, 'maxAttempts'],
  [{ maxAttempts: Number.POSITIVE_INFINITY }, 'maxAttempts'],
  [{ backoff: 'full' }, 'backoff'],
  [{ backoff: null }, 'backoff'],
  [{ backoff: { strategy: 'fibonacci' } }, 'backoff.strategy'],
  [{ backoff: { strategy: 42 } }, 'backoff.strategy'],
  [{ backoff: { baseMs: -1 } }, 'backoff.baseMs'],
  [{ backoff: { baseMs: Number.NaN } }, 'backoff.baseMs'],
  [{ backoff: { baseMs: Number.POSITIVE_INFINITY } }, 'backoff.baseMs'],
  [{ backoff: { capMs: -5 } }, 'backoff.capMs'],
  [{ backoff: { baseMs: 500, capMs: 100 } }, 'backoff.capMs'],
  [{ backoff: { basems: 100 } }, 'backoff.basems'],
  [{ methods: 'GET' }, 'methods'],
  [{ methods: ['GET', ''] }, 'methods[1]'],
  [{ methods: [1] }, 'methods[0]'],
  [{ statusCodes: [503, 99] }, 'statusCodes[1]'],
  [{ statusCodes: [600] }, 'statusCodes[0]'],
  [{ statusCodes: ['503'] }, 'statusCodes[0]'],
  [{ statusCodes: 503 }, 'statusCodes'],
  [{ errorCodes: 'ECONNRESET' }, 'errorCodes'],
  [{ errorCodes: [null] }, 'errorCodes[0]'],
  [{ idempotencyKey: '' }, 'idempotencyKey'],
  [{ idempotencyKey: 'Idempotency Key' }, 'idempotencyKey'],
  [{ idempotencyKey: true }, 'idempotencyKey'],
  [{ idempotencyKey: 'x\r\nInjected: 1' }, 'idempotencyKey'],
  [{ retryAfter: 'yes' }, 'retryAfter'],
  [{ retryAfter: { maxMs: -1 } }, 'retryAfter.maxMs'],
  [{ retryAfter: { maxMs: Number.POSITIVE_INFINITY } }, 'retryAfter.maxMs'],
  [{ retryAfter: { whenLonger: 'wait' } }, 'retryAfter.whenLonger'],
  [{ retryAfter: { jitterRatio: 1.5 } }, 'retryAfter.jitterRatio'],
  [{ retryAfter: { jitterRatio: Number.NaN } }, 'retryAfter.jitterRatio'],
  [{ retryAfter: { maxMS: 10 } }, 'retryAfter.maxMS'],
  [{ deadlineMs: -1 }, 'deadlineMs'],
  [{ deadlineMs: Number.NaN }, 'deadlineMs'],
  [{ deadlineMs: '1000' }, 'deadlineMs'],
  [{ attemptTimeoutMs: 0 }, 'attemptTimeoutMs'],
  [{ attemptTimeoutMs: Number.POSITIVE_INFINITY }, 'attemptTimeoutMs'],
  [{ bodyBuffering: 1024 }, 'bodyBuffering'],
  [{ discardBodyMaxBytes: Number.NaN }, 'discardBodyMaxBytes'],
  [{ budget: true }, 'budget'],
  [{ budget: { ratio: 2 } }, 'budget.ratio'],
  [{ budget: { ratio: -0.1 } }, 'budget.ratio'],
  [{ budget: { burst: 0 } }, 'budget.burst'],
  [{ budget: { burst: Number.POSITIVE_INFINITY } }, 'budget.burst'],
  [{ budget: { size: 10 } }, 'budget.size'],
  [{ shouldRetry: true }, 'shouldRetry'],
  [{ onRetry: 'log' }, 'onRetry'],
  [{ onGiveUp: {} }, 'onGiveUp'],
  [{ onFinish: 1 }, 'onFinish'],
  [{ random: 0.5 }, 'random'],
  [{ sleep: 10 }, 'sleep'],
  [{ now: Date.now() }, 'now'],
  [{ routes: 'GET /x' }, 'routes'],
  [{ routes: [null] }, 'routes[0]'],
  [{ routes: [{ retry: false }] }, 'routes[0].match'],
  [{ routes: [{ match: 42 }] }, 'routes[0].match'],
  [{ routes: [{ match: 'FETCH!! /x' }] }, 'routes[0].match'],
  [{ routes: [{ match: '/x', retry: 'no' }] }, 'routes[0].retry'],
  [{ routes: [{ match: '/x', name: 7 }] }, 'routes[0].name'],
  [{ routes: [{ match: '/x' }, { match: '/y', maxAttempts: 0 }] }, 'routes[1].maxAttempts'],
  [{ routes: [{ match: '/x', backoff: { capMs: -1 } }] }, 'routes[0].backoff.capMs'],
  [{ routes: [{ match: '/x', sleep: fnValue }] }, 'routes[0].sleep'],
  [{ routes: [{ match: '/x', maxAttempt: 3 }] }, 'routes[0].maxAttempt'],
  [{ maxAttempt: 3 }, 'maxAttempt'],
  [{ retries: 3 }, 'retries'],
  [[], 'options'],
  ['fast', 'options'],
  [42, 'options'],
];

const nameOf = (options: unknown): string => {
  try {
    return JSON.stringify(options) ?? String(options);
  } catch {
    return String(options);
  }
};

/** The TypeError `call()` throws; fails the test when it throws something else or nothing. */
const typeErrorOf = (call: () => unknown): TypeError => {
  let thrown: unknown;
  try {
    call();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(TypeError);
  return thrown as TypeError;
};

describe.each(entryPoints)('invalid options through %s', (name, entry) => {
  it.each(INVALID.map(([options, option]) => [nameOf(options), options, option] as const))(
    '%s throws a TypeError naming the option',
    (_label, options, option) => {
      const error = typeErrorOf(() => entry(options));
      // Route rules, valid or not, are createRetryPolicy's alone.
      const routes = typeof options === 'object' && options !== null && 'routes' in options;
      expect(error.message).toContain(`"${routes && name !== 'createRetryPolicy' ? 'routes' : option}"`);
    },
  );

  it('route rules in plain options are refused unless they go to createRetryPolicy', () => {
    const rules = { routes: [{ match: '/x', retry: false }] };
    if (name === 'createRetryPolicy') expect(() => entry(rules)).not.toThrow();
    else
      expect(typeErrorOf(() => entry(rules)).message).toMatch(
        /option "routes" must be given to createRetryPolicy\(\)/,
      );
  });

  it('valid options are accepted', () => {
    for (const options of [undefined, {}, { maxAttempts: 1 }, { retryAfter: false, budget: false }]) {
      expect(() => entry(options)).not.toThrow();
    }
  });
});

/** Fuzz: any value for a numeric option is accepted exactly when valid, else a TypeError names it. */
const NUMERIC: ReadonlyArray<
  readonly [string, (v: unknown) => Record<string, unknown>, (v: unknown) => boolean]
> = [
  [
    'maxAttempts',
    (v) => ({ maxAttempts: v }),
    (v) => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 1000,
  ],
  ['deadlineMs', (v) => ({ deadlineMs: v }), (v) => typeof v === 'number' && Number.isFinite(v) && v >= 0],
  [
    'attemptTimeoutMs',
    (v) => ({ attemptTimeoutMs: v }),
    (v) => typeof v === 'number' && Number.isFinite(v) && v >= 1,
  ],
  [
    'createBodyBuffering(options).maxBytes',
    (v) => ({ bodyBuffering: createBodyBuffering({ maxBytes: v as number }) }),
    (v) => typeof v === 'number' && Number.isFinite(v) && v >= 0,
  ],
  [
    'discardBodyMaxBytes',
    (v) => ({ discardBodyMaxBytes: v }),
    (v) => typeof v === 'number' && Number.isFinite(v) && v >= 0,
  ],
  [
    'backoff.baseMs',
    (v) => ({ backoff: { baseMs: v, capMs: Number.MAX_VALUE } }),
    (v) => typeof v === 'number' && Number.isFinite(v) && v >= 0,
  ],
  [
    'retryAfter.maxMs',
    (v) => ({ retryAfter: { maxMs: v } }),
    (v) => typeof v === 'number' && Number.isFinite(v) && v >= 0,
  ],
  [
    'retryAfter.jitterRatio',
    (v) => ({ retryAfter: { jitterRatio: v } }),
    (v) => typeof v === 'number' && v >= 0 && v <= 1,
  ],
  ['budget.ratio', (v) => ({ budget: { ratio: v } }), (v) => typeof v === 'number' && v >= 0 && v <= 1],
  ['budget.burst', (v) => ({ budget: { burst: v } }), (v) => typeof v === 'number' && v >= 1 && v <= 1e9],
];

const anyValue = fc.oneof(
  fc.double(),
  fc.integer({ min: -10, max: 2000 }),
  fc.constantFrom(null, true, false, '', '5', [], {}, Number.NaN, -0, Number.MAX_VALUE, fnValue),
  fc.anything(),
);

describe('fuzzed option values', () => {
  it.each(NUMERIC.map(([name, build, valid]) => [name, build, valid] as const))(
    '%s: accepted exactly when valid, else a TypeError naming it',
    (name, build, valid) => {
      fc.assert(
        fc.property(anyValue, (value) => {
          if (value === undefined) return; // an absent option takes its default
          let thrown: unknown;
          try {
            createRetryPolicy(build(value) as RetryOptions);
          } catch (error) {
            thrown = error;
          }
          if (valid(value)) {
            expect(thrown).toBeUndefined();
          } else {
            expect(thrown).toBeInstanceOf(TypeError);
            expect((thrown as TypeError).message).toContain(`"${name}"`);
          }
        }),
        { numRuns: 1_000 },
      );
    },
  );
});
