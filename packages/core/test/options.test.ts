import {
  createRetryBudget,
  createRetryPolicy,
  DEFAULT_ERROR_CODES,
  DEFAULTS,
  full,
  type RetryOptions,
} from '@jitterbug/core';
import { isRetryPolicy, toRetryPolicy } from '@jitterbug/core/adapter';
import { describe, expect, it } from 'vitest';
import { sleep } from '../src/sleep.ts';

describe('defaults', () => {
  const o = createRetryPolicy().options;

  it('match the documented table', () => {
    expect(o.maxAttempts).toBe(3);
    expect(o.backoff.strategy).toBe(full);
    expect(o.backoff).toMatchObject({ baseMs: 100, capMs: 20_000 });
    expect([...o.methods]).toEqual(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'TRACE', 'QUERY']);
    expect([...o.statusCodes]).toEqual([408, 429, 500, 502, 503, 504]);
    expect([...o.errorCodes]).toEqual([...DEFAULT_ERROR_CODES]);
    expect(o.idempotencyKey).toBe('idempotency-key');
    expect(o.retryAfter).toEqual({ maxMs: 60_000, whenLonger: 'give-up', jitterRatio: 0.1 });
    expect(o.deadlineMs).toBeUndefined();
    expect(o.attemptTimeoutMs).toBeUndefined();
    expect(o.feature.bodyBuffering).toBeUndefined();
    expect(o.discardBodyMaxBytes).toBe(65_536);
    expect(o.feature.budget?.ratio).toBe(0.1);
    expect(o.feature.budget?.burst).toBe(10);
    expect(o.feature.budget?.tokens).toBe(10);
    expect(o.random).toBe(Math.random);
    expect(o.now).toBe(Date.now);
    expect(o.sleep).toBe(sleep);
    expect(o.retry).toBe(true);
    expect(o.route).toBeUndefined();
  });

  it('agree with the exported DEFAULTS object, which is frozen', () => {
    expect(DEFAULTS.maxAttempts).toBe(o.maxAttempts);
    expect(DEFAULTS.backoff).toEqual({ strategy: 'full', baseMs: o.backoff.baseMs, capMs: o.backoff.capMs });
    expect(Object.isFrozen(DEFAULTS)).toBe(true);
    expect(Object.isFrozen(DEFAULTS.backoff)).toBe(true);
  });

  it('ENOTFOUND is not retried by default but EAI_AGAIN and undici socket errors are', () => {
    expect(o.errorCodes.has('ENOTFOUND')).toBe(false);
    for (const code of [
      'ECONNRESET',
      'ECONNREFUSED',
      'EAI_AGAIN',
      'UND_ERR_SOCKET',
      'UND_ERR_CONNECT_TIMEOUT',
    ]) {
      expect(o.errorCodes.has(code)).toBe(true);
    }
  });

  it('each policy gets its own budget', () => {
    expect(createRetryPolicy().options.feature.budget).not.toBe(createRetryPolicy().options.feature.budget);
  });

  it('a capMs defaults to at least baseMs', () => {
    expect(createRetryPolicy({ backoff: { baseMs: 30_000 } }).options.backoff).toMatchObject({
      baseMs: 30_000,
      capMs: 30_000,
    });
  });

  it('a backoff function keeps the default base and cap', () => {
    const mine = () => [5, { attempt: 1 }] as const;
    const o2 = createRetryPolicy({ backoff: mine }).options;
    expect(o2.backoff.strategy).toBe(mine);
    expect(o2.backoff).toMatchObject({ baseMs: 100, capMs: 20_000 });
  });

  it('methods are upper-cased and the idempotency header name lower-cased', () => {
    const o2 = createRetryPolicy({ methods: ['get', 'Post'], idempotencyKey: 'X-Request-Id' }).options;
    expect([...o2.methods]).toEqual(['GET', 'POST']);
    expect(o2.idempotencyKey).toBe('x-request-id');
  });

  it('retryAfter fills in the fields not given; true means the defaults', () => {
    expect(createRetryPolicy({ retryAfter: { maxMs: 5000 } }).options.retryAfter).toEqual({
      maxMs: 5000,
      whenLonger: 'give-up',
      jitterRatio: 0.1,
    });
    expect(createRetryPolicy({ retryAfter: true } as unknown as RetryOptions).options.retryAfter).toEqual(
      DEFAULTS.retryAfter,
    );
    expect(createRetryPolicy({ retryAfter: false }).options.retryAfter).toBe(false);
  });

  it('undefined options mean the default', () => {
    expect(createRetryPolicy({ maxAttempts: undefined } as unknown as RetryOptions).options.maxAttempts).toBe(
      3,
    );
  });
});

describe('policy helpers', () => {
  it('isRetryPolicy and toRetryPolicy', () => {
    const policy = createRetryPolicy();
    expect(isRetryPolicy(policy)).toBe(true);
    expect(isRetryPolicy({ options: policy.options })).toBe(false);
    expect(isRetryPolicy(null)).toBe(false);
    expect(toRetryPolicy(policy)).toBe(policy);
    expect(toRetryPolicy({ maxAttempts: 7 }).options.maxAttempts).toBe(7);
    expect(toRetryPolicy(undefined).options.maxAttempts).toBe(3);
    expect(Object.isFrozen(policy)).toBe(true);
  });
});

describe('validation: a TypeError naming the option, at createRetryPolicy time', () => {
  const cases: [string, unknown, RegExp][] = [
    ['negative maxAttempts', { maxAttempts: -1 }, /"maxAttempts"/],
    ['fractional maxAttempts', { maxAttempts: 2.5 }, /"maxAttempts"/],
    ['zero maxAttempts', { maxAttempts: 0 }, /"maxAttempts"/],
    ['NaN maxAttempts', { maxAttempts: Number.NaN }, /"maxAttempts"/],
    ['huge maxAttempts', { maxAttempts: 1001 }, /"maxAttempts"/],
    ['string maxAttempts', { maxAttempts: '3' }, /"maxAttempts"/],
    ['null maxAttempts', { maxAttempts: null }, /"maxAttempts"/],
    ['capMs < baseMs', { backoff: { baseMs: 500, capMs: 100 } }, /"backoff\.capMs"/],
    ['NaN baseMs', { backoff: { baseMs: Number.NaN } }, /"backoff\.baseMs"/],
    ['negative baseMs', { backoff: { baseMs: -1 } }, /"backoff\.baseMs"/],
    ['infinite capMs', { backoff: { capMs: Number.POSITIVE_INFINITY } }, /"backoff\.capMs"/],
    ['unknown strategy', { backoff: { strategy: 'fibonacci' } }, /"backoff\.strategy"/],
    ['prototype key as strategy', { backoff: { strategy: 'toString' } }, /"backoff\.strategy"/],
    ['unknown backoff key', { backoff: { base: 100 } }, /"backoff\.base"/],
    ['backoff not an object', { backoff: 'full' }, /"backoff"/],
    ['unknown option', { maxRetries: 3 }, /unknown option "maxRetries"/],
    ['typo in a known option', { statusCode: [503] }, /unknown option "statusCode"/],
    ['statusCodes not an array', { statusCodes: 503 }, /"statusCodes"/],
    ['status out of range', { statusCodes: [503, 600] }, /"statusCodes\[1\]"/],
    ['fractional status', { statusCodes: [503.5] }, /"statusCodes\[0\]"/],
    ['status as string', { statusCodes: ['503'] }, /"statusCodes\[0\]"/],
    ['methods not an array', { methods: 'GET' }, /"methods"/],
    ['empty method', { methods: ['GET', ' '] }, /"methods\[1\]"/],
    ['errorCodes entry not a string', { errorCodes: [42] }, /"errorCodes\[0\]"/],
    ['idempotencyKey with a space', { idempotencyKey: 'Idempotency Key' }, /"idempotencyKey"/],
    ['idempotencyKey empty', { idempotencyKey: '' }, /"idempotencyKey"/],
    ['idempotencyKey true', { idempotencyKey: true }, /"idempotencyKey"/],
    ['retryAfter null', { retryAfter: null }, /"retryAfter"/],
    ['retryAfter.maxMs negative', { retryAfter: { maxMs: -1 } }, /"retryAfter\.maxMs"/],
    ['retryAfter.maxMs NaN', { retryAfter: { maxMs: Number.NaN } }, /"retryAfter\.maxMs"/],
    ['retryAfter.whenLonger', { retryAfter: { whenLonger: 'wait' } }, /"retryAfter\.whenLonger"/],
    ['retryAfter.jitterRatio > 1', { retryAfter: { jitterRatio: 2 } }, /"retryAfter\.jitterRatio"/],
    ['retryAfter.jitterRatio NaN', { retryAfter: { jitterRatio: Number.NaN } }, /"retryAfter\.jitterRatio"/],
    ['unknown retryAfter key', { retryAfter: { max: 1 } }, /"retryAfter\.max"/],
    ['prototype key in retryAfter', { retryAfter: { constructor: 1 } }, /"retryAfter\.constructor"/],
    ['negative deadlineMs', { deadlineMs: -5 }, /"deadlineMs"/],
    ['NaN deadlineMs', { deadlineMs: Number.NaN }, /"deadlineMs"/],
    ['zero attemptTimeoutMs', { attemptTimeoutMs: 0 }, /"attemptTimeoutMs"/],
    ['bodyBuffering a number', { bodyBuffering: 1024 }, /"bodyBuffering"/],
    [
      'infinite discardBodyMaxBytes',
      { discardBodyMaxBytes: Number.POSITIVE_INFINITY },
      /"discardBodyMaxBytes"/,
    ],
    ['shouldRetry not a function', { shouldRetry: true }, /"shouldRetry"/],
    ['onRetry not a function', { onRetry: 'log' }, /"onRetry"/],
    ['onGiveUp null', { onGiveUp: null }, /"onGiveUp"/],
    ['onFinish not a function', { onFinish: {} }, /"onFinish"/],
    ['random not a function', { random: 0.5 }, /"random"/],
    ['sleep not a function', { sleep: 10 }, /"sleep"/],
    ['now not a function', { now: 0 }, /"now"/],
    ['budget true', { budget: true }, /"budget"/],
    ['budget null', { budget: null }, /"budget"/],
    ['budget.ratio > 1', { budget: { ratio: 2 } }, /"budget\.ratio"/],
    [
      'budget.ratio null (not the default)',
      { budget: { ratio: null } },
      /"budget\.ratio" must be .*, got null/,
    ],
    [
      'budget.burst a null-prototype object',
      { budget: { burst: Object.create(null) } },
      /"budget\.burst" must be .*, got /,
    ],
    ['budget.ratio NaN', { budget: { ratio: Number.NaN } }, /"budget\.ratio"/],
    ['budget.burst < 1', { budget: { burst: 0.5 } }, /"budget\.burst"/],
    ['unknown budget key', { budget: { size: 5 } }, /"budget\.size"/],
    ['routes not an array', { routes: {} }, /"routes"/],
    ['routes null', { routes: null }, /"routes" must be an array of rules, got null/],
    ['route not an object', { routes: ['/a'] }, /"routes\[0\]"/],
    ['route without match', { routes: [{ maxAttempts: 1 }] }, /"routes\[0\]\.match"/],
    ['route name not a string', { routes: [{ match: '/a', name: 1 }] }, /"routes\[0\]\.name"/],
    ['route retry not a boolean', { routes: [{ match: '/a', retry: 'no' }] }, /"routes\[0\]\.retry"/],
    [
      'route with an invalid option',
      { routes: [{ match: '/a', maxAttempts: 0 }] },
      /"routes\[0\]\.maxAttempts"/,
    ],
    [
      'route with a policy-only key',
      { routes: [{ match: '/a', random: Math.random }] },
      /"routes\[0\]\.random"/,
    ],
    ['unknown route key', { routes: [{ match: '/a', methodz: [] }] }, /"routes\[0\]\.methodz"/],
    ['route pattern without slash', { routes: [{ match: 'POST payments' }] }, /"routes\[0\]\.match"/],
    ['malformed route pattern', { routes: [{ match: '/a/(b' }] }, /"routes\[0\]\.match"/],
    ['route pattern bad regex', { routes: [{ match: '/a/([)' }] }, /"routes\[0\]\.match"/],
    ['route pattern bad method', { routes: [{ match: 'G3T /a' }] }, /"routes\[0\]\.match"/],
    ['route pattern dangling modifier', { routes: [{ match: '/a/?' }] }, /"routes\[0\]\.match"/],
    ['route match of a wrong type', { routes: [{ match: 42 }] }, /"routes\[0\]\.match"/],
    ['second route bad', { routes: [{ match: '/ok' }, { match: '/x/{y' }] }, /"routes\[1\]\.match"/],
    // null is a value, not an absent field: it must not fall back to the inherited default.
    ['null backoff.baseMs', { backoff: { baseMs: null } }, /"backoff\.baseMs"/],
    ['null backoff.capMs', { backoff: { capMs: null } }, /"backoff\.capMs"/],
    ['null retryAfter.maxMs', { retryAfter: { maxMs: null } }, /"retryAfter\.maxMs"/],
    ['null retryAfter.whenLonger', { retryAfter: { whenLonger: null } }, /"retryAfter\.whenLonger"/],
    ['null retryAfter.jitterRatio', { retryAfter: { jitterRatio: null } }, /"retryAfter\.jitterRatio"/],
    [
      'null route backoff.baseMs',
      { routes: [{ match: '/a', backoff: { baseMs: null } }] },
      /"routes\[0\]\.backoff\.baseMs"/,
    ],
    ['backoff as an array', { backoff: [] }, /"backoff"/],
    ['retryAfter as an array', { retryAfter: [] }, /"retryAfter"/],
    ['method with a space', { methods: ['GET POST'] }, /"methods\[0\]" must be HTTP method/],
    ['method with a slash', { methods: ['GET', 'PO/ST'] }, /"methods\[1\]"/],
    ['blank error code', { errorCodes: ['ECONNRESET', ''] }, /"errorCodes\[1\]"/],
  ];

  it.each(cases)('%s', (_name, options, message) => {
    expect(() => createRetryPolicy(options as RetryOptions)).toThrow(TypeError);
    expect(() => createRetryPolicy(options as RetryOptions)).toThrow(message);
  });

  it('shows the offending value, however unprintable, and always names the option', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const hostile = {
      toJSON() {
        throw new Error('no JSON');
      },
      toString() {
        throw new Error('no string');
      },
    };
    const shown: [unknown, RegExp][] = [
      [Number.NaN, /got NaN$/],
      [Number.NEGATIVE_INFINITY, /got -Infinity$/],
      [-0, /got -0$/],
      [10n, /got 10n$/],
      [Symbol('s'), /got Symbol\(s\)$/],
      [() => 3, /got a function$/],
      [cyclic, /got \[object Object\]$/],
      [Object.create(null), /got \{\}$/],
      [hostile, /got an unprintable object$/],
      ['x'.repeat(500), /… \(502 characters\)$/],
    ];
    for (const [value, message] of shown) {
      const make = () => createRetryPolicy({ maxAttempts: value } as unknown as RetryOptions);
      expect(make).toThrow(TypeError);
      expect(make).toThrow(/^jitterbug: option "maxAttempts" must be /);
      expect(make).toThrow(message);
    }
  });

  it('options that are not an object', () => {
    expect(() => createRetryPolicy(null as unknown as RetryOptions)).toThrow(TypeError);
    expect(() => createRetryPolicy([] as unknown as RetryOptions)).toThrow(/"options"/);
  });

  it('valid edge values are accepted', () => {
    expect(() =>
      createRetryPolicy({
        maxAttempts: 1,
        backoff: { strategy: 'constant', baseMs: 0, capMs: 0 },
        statusCodes: [],
        idempotencyKey: false,
        deadlineMs: 0,
        retryAfter: { maxMs: 0, jitterRatio: 0, whenLonger: 'cap' },
        budget: createRetryBudget({ ratio: 0, burst: 1 }),
      }),
    ).not.toThrow();
  });
});
