/** Reading ky 1 and ky 2 hook arguments alike, and checking the adapter's own options. */
import { describe, expect, it } from 'vitest';
import { beforeRequestArgs, beforeRetryArgs } from '../src/hook-args.ts';
import { kyRetry } from '../src/ky-retry.ts';

const request = new Request('http://x.test/a');
const options = { context: {} };

describe('hook arguments', () => {
  it('reads ky 1 positional and ky 2 state arguments alike', () => {
    expect(beforeRequestArgs([request, options, { retryCount: 0 }])).toEqual({ request, options });
    expect(beforeRequestArgs([{ request, options, retryCount: 0 }])).toMatchObject({ request, options });
    const error = new Error('e');
    expect(beforeRetryArgs([{ request, options, error, retryCount: 1 }])).toMatchObject({
      request,
      options,
      error,
    });
  });
});

describe('kyRetry adapter options', () => {
  it.each([
    [null, 'jitterbug: option "adapterOptions" must be an object, got null'],
    [{ fetch: 'no' }, 'option "fetch" must be a function'],
    [{ retries: 2 }, 'jitterbug: unknown option "retries" among the settings of kyRetry'],
    [
      { timeout: 5_000 },
      "jitterbug: unknown option \"timeout\" among the settings of kyRetry: a client's own timeout (ky's, axios') bounds the whole call",
    ],
  ])('%j: a TypeError naming it', (options, message) => {
    expect(() => kyRetry({}, options as never)).toThrow(TypeError);
    expect(() => kyRetry({}, options as never)).toThrow(message);
  });

  it('returns only fetch, retry and hooks: ky keeps its own timeout, which then bounds the whole call', () => {
    const options = kyRetry();
    expect(Object.keys(options).sort()).toEqual(['fetch', 'hooks', 'retry']);
    // ky retries nothing while its limit is 0 (a number: the cheapest for ky to merge into each call).
    expect(options.retry).toBe(0);
  });
});
