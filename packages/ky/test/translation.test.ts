/** Reading ky 1 and ky 2 hook arguments alike. */
import { describe, expect, it } from 'vitest';
import { beforeRequestArgs, beforeRetryArgs } from '../src/hook-args.ts';

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
