/**
 * The wording of option errors (`#messages`): the development messages say the fix, and know every
 * option a call or a route rule refuses; production and browser builds resolve the short wording,
 * which still names the option and what it must be.
 */
import { fileURLToPath } from 'node:url';
import { createRetryPolicy } from '@jitterbug/core';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { ROUTE_KEYS } from '../src/create-retry-policy.ts';
import { closestOption, editDistance } from '../src/messages/closest.ts';
import * as short from '../src/messages/short.ts';
import { CALL_KEYS, POLICY_KEYS } from '../src/validate.ts';

const messageOf = (call: () => unknown): string => {
  try {
    call();
  } catch (error) {
    expect(error).toBeInstanceOf(TypeError);
    return (error as TypeError).message;
  }
  throw new Error('nothing was thrown');
};

describe('the closest option', () => {
  it('counts inserts, deletes, replacements and swaps of two neighbours as one edit each', () => {
    expect(editDistance('maxAttempts', 'maxAttempts')).toBe(0);
    expect(editDistance('maxAttempt', 'maxAttempts')).toBe(1);
    expect(editDistance('maxAtetmpts', 'maxAttempts')).toBe(1);
    expect(editDistance('statusCode', 'statusCodes')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
  });

  it('is the same name in another case first, then a typo or two, then a name that holds or starts it', () => {
    const known = ['maxAttempts', 'methods', 'statusCodes', 'errorCodes', 'deadlineMs', 'attemptTimeoutMs'];
    expect(closestOption('MAXATTEMPTS', known)).toBe('maxAttempts');
    expect(closestOption('maxAttemps', known)).toBe('maxAttempts');
    expect(closestOption('method', known)).toBe('methods');
    expect(closestOption('httpMethods', known)).toBe('methods');
    expect(closestOption('deadline', known)).toBe('deadlineMs');
    expect(closestOption('timeoutMs', known)).toBe('attemptTimeoutMs');
    expect(closestOption('max', known)).toBe('maxAttempts');
  });

  it('suggests nothing rather than something unrelated', () => {
    expect(closestOption('tracerProvider', ['meterProvider', 'activeSpan', 'budgets'])).toBeUndefined();
    expect(closestOption('size', ['ratio', 'burst'])).toBeUndefined();
    expect(closestOption('ab', ['k', 'windowMs'])).toBeUndefined();
  });
});

describe('every option a call or a route rule refuses is pointed to the policy', () => {
  const request = { method: 'GET', url: 'https://api.example.com/a' };

  it.each([...POLICY_KEYS].filter((key) => !CALL_KEYS.has(key)))('a call’s %s', (key) => {
    const message = messageOf(() => createRetryPolicy().begin(request, { [key]: false } as never));
    expect(message).toMatch(
      new RegExp(`^jitterbug: unknown option "jitterbug\\.${key}" for a single call: `),
    );
    expect(message).toMatch(/(in a policy's options|in the options of a policy)/);
  });

  it.each([...POLICY_KEYS].filter((key) => !ROUTE_KEYS.has(key)))('a route rule’s %s', (key) => {
    const message = messageOf(() => createRetryPolicy({ routes: [{ match: '/a', [key]: false }] }));
    expect(message).toMatch(
      new RegExp(`^jitterbug: unknown option "routes\\[0\\]\\.${key}" in a route rule: `),
    );
    expect(message).toContain("in a policy's options");
  });
});

describe('the short wording (production and browser builds)', () => {
  it('names the option and what it must be, without the value or the fix', () => {
    expect(short.mustBe('maxAttempts', 'an integer from 1 to 1000', 0)).toBe(
      'jitterbug: option "maxAttempts" must be an integer from 1 to 1000',
    );
    expect(short.mustBe('options', 'an object', () => {}, 'kyRetry')).toBe(
      'jitterbug: option "options" must be an object',
    );
    expect(short.unknownText('retries', POLICY_KEYS, 3, false)).toBe('jitterbug: unknown option "retries"');
  });
});

describe('which wording a build resolves', () => {
  const root = fileURLToPath(new URL('../../..', import.meta.url));
  /** The message `createRetryPolicy({ retries: 3 })` throws in a bundle made for `platform` with `conditions`. */
  const bundledMessage = async (platform: 'browser' | 'node', conditions: string[]): Promise<string> => {
    const result = await build({
      stdin: {
        contents:
          "import { createRetryPolicy } from '@jitterbug/core'; let message; try { createRetryPolicy({ retries: 3 }); } catch (error) { message = error.message; } export { message };",
        resolveDir: root,
        loader: 'ts',
      },
      bundle: true,
      write: false,
      format: 'esm',
      platform,
      conditions: ['@jitterbug/source', ...conditions],
      logLevel: 'silent',
    });
    const code = Buffer.from(result.outputFiles[0]!.contents).toString('base64');
    return ((await import(`data:text/javascript;base64,${code}`)) as { message: string }).message;
  };
  const FULL =
    'jitterbug: unknown option "retries": jitterbug counts attempts, the first included: maxAttempts: 4';
  const SHORT = 'jitterbug: unknown option "retries"';

  it.each([
    ['node', [], FULL],
    ['node', ['development'], FULL],
    ['node', ['production'], SHORT],
    ['browser', ['development'], FULL],
    ['browser', [], SHORT],
    ['browser', ['production'], SHORT],
  ] as const)('%s %j', async (platform, conditions, expected) => {
    const message = await bundledMessage(platform, [...conditions]);
    if (expected === SHORT) expect(message).toBe(SHORT);
    else expect(message).toContain(expected);
  });
});
