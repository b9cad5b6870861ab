/** `checkOptions` and `policyFor` (`@jitterbug/core/adapter`): the adapters' and otel's option checks. */
import { createRetryPolicy } from '@jitterbug/core';
import { checkOptions, fail, numberIn, policyFor } from '@jitterbug/core/adapter';
import { describe, expect, it } from 'vitest';

const ROWS = {
  size: (v: unknown, n: string) => numberIn(v, n, 0),
  mode: (v: unknown, n: string) => (v === 'fast' || v === 'slow' ? v : fail(n, '"fast" or "slow"', v)),
};

describe('checkOptions', () => {
  it('returns each option given, as its row returned it, and leaves out the absent and undefined', () => {
    expect(checkOptions({ size: 3, mode: 'fast' }, ROWS, 'demo')).toEqual({ size: 3, mode: 'fast' });
    expect(checkOptions({ size: undefined }, ROWS, 'demo')).toEqual({});
    expect(checkOptions(undefined, ROWS, 'demo')).toEqual({});
  });

  it('throws the TypeError of the invalid option’s row', () => {
    expect(() => checkOptions({ size: -1 }, ROWS, 'demo')).toThrow(
      new TypeError('jitterbug: option "size" must be a finite number >= 0, got -1'),
    );
    expect(() => checkOptions({ mode: 'quick' }, ROWS, 'demo')).toThrow(
      new TypeError('jitterbug: option "mode" must be "fast" or "slow", got "quick"'),
    );
  });

  it('refuses what is not an object, naming the options as the caller calls them', () => {
    for (const value of [null, [], 'fast', 3, () => {}]) {
      expect(() => checkOptions(value, ROWS, 'demo')).toThrow(
        /^jitterbug: option "adapterOptions" must be an object, got /,
      );
      expect(() => checkOptions(value, ROWS, 'demo', 'options')).toThrow(
        /^jitterbug: option "options" must be an object/,
      );
    }
  });

  it('refuses an unknown key with the closest real one, and a policy’s option with where it goes', () => {
    expect(() => checkOptions({ sise: 1 }, ROWS, 'demo')).toThrow(
      new TypeError('jitterbug: unknown option "sise" among the settings of demo: did you mean "size"?'),
    );
    expect(() => checkOptions({ other: 1 }, ROWS, 'demo')).toThrow(
      new TypeError('jitterbug: unknown option "other"'),
    );
    expect(() => checkOptions({ maxAttempts: 2 }, ROWS, 'kyRetry')).toThrow(
      new TypeError(
        'jitterbug: unknown option "maxAttempts" among the settings of kyRetry: it goes with the retry policy\'s options: kyRetry({ maxAttempts }, adapterOptions)',
      ),
    );
  });

  it('does not take a key of Object.prototype as a row', () => {
    expect(() => checkOptions({ toString: 1 }, ROWS, 'demo')).toThrow(/unknown option "toString"/);
  });
});

describe('policyFor', () => {
  it('takes options or a policy, as toRetryPolicy does', () => {
    const policy = createRetryPolicy({ maxAttempts: 2 });
    expect(policyFor(policy, 'kyRetry')).toBe(policy);
    expect(policyFor({ maxAttempts: 5 }, 'kyRetry').options.maxAttempts).toBe(5);
    expect(policyFor(undefined, 'kyRetry').options.maxAttempts).toBe(3);
  });

  it('refuses a function with what the entry point’s caller meant', () => {
    expect(() => policyFor((() => {}) as never, 'retryInterceptor')).toThrow(
      new TypeError(
        'jitterbug: option "options" must be an object, got a function: retryInterceptor is a factory: compose what it returns, dispatcher.compose(retryInterceptor(options))',
      ),
    );
    expect(() => policyFor((() => {}) as never, 'unknown entry')).toThrow(
      new TypeError('jitterbug: option "options" must be an object, got a function'),
    );
  });
});
