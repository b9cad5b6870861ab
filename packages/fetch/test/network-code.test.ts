/**
 * Which code-less errors of a fetch are network failures: the runtimes' own words for one, and
 * nothing else (a bug in a fetch wrapper, a malformed request, a blocked port). Through `withRetry`
 * too: a GET is sent again after the first kind, never after the second.
 */
import { describe, expect, it } from 'vitest';
import { getRetryInfo, withRetry } from '../src/index.ts';
import { networkCode } from '../src/network-code.ts';

const typeError = (message: string, cause?: unknown): TypeError =>
  cause === undefined ? new TypeError(message) : new TypeError(message, { cause });

describe('networkCode', () => {
  it.each([
    ['Chromium', typeError('Failed to fetch')],
    ['Chromium, a body that broke', typeError('network error')],
    ['Firefox', typeError('NetworkError when attempting to fetch resource.')],
    ['Safari 17', typeError('Load failed')],
    ['Safari 16', typeError('The Internet connection appears to be offline.')],
    ['React Native, whatwg-fetch', typeError('Network request failed')],
    ['Node and Deno', typeError('fetch failed', new Error('error sending request'))],
    ['undici, a body cut off', typeError('terminated')],
    ['workerd', Object.assign(new Error('Network connection lost.'), { retryable: true })],
  ])('%s: ERR_NETWORK', (_runtime, error) => {
    expect(networkCode(error)).toBe('ERR_NETWORK');
  });

  it.each([
    ['a bug in a fetch wrapper', typeError("Cannot read properties of undefined (reading 'headers')")],
    [
      'fetch called on the wrong this',
      typeError("Failed to execute 'fetch' on 'Window': Illegal invocation"),
    ],
    ['a malformed header', typeError('Headers.append: "bad header" is an invalid header name.')],
    ['a port Node blocks', typeError('fetch failed', new Error('bad port'))],
    ['workerd’s message without its flag', new Error('Network connection lost.')],
    [
      'an error with a code of its own (the core reads it)',
      Object.assign(typeError('fetch failed'), { code: 'ECONNRESET' }),
    ],
    ['not an error', 'Failed to fetch'],
    ['a RangeError', new RangeError('Failed to fetch')],
  ])('%s: not a network failure', (_what, error) => {
    expect(networkCode(error)).toBeUndefined();
  });

  it('withRetry sends a GET again after a network failure, never after another TypeError', async () => {
    const failing = (error: unknown) => {
      let calls = 0;
      const fetchLike = async (_input: string): Promise<Response> => {
        calls++;
        if (calls === 1) throw error;
        return new Response('ok');
      };
      return { fetchLike, calls: () => calls };
    };
    const network = failing(typeError('Failed to fetch'));
    const retried = await withRetry(network.fetchLike, { sleep: async () => {} })(
      'https://api.example.com/x',
    );
    expect(await retried.text()).toBe('ok');
    expect(network.calls()).toBe(2);

    const bug = typeError("Cannot read properties of undefined (reading 'headers')");
    const buggy = failing(bug);
    const error = await withRetry(buggy.fetchLike, { sleep: async () => {} })(
      'https://api.example.com/x',
    ).catch((e: unknown) => e);
    expect(error).toBe(bug);
    expect(buggy.calls()).toBe(1);
    expect(getRetryInfo(error)).toMatchObject({ attempts: 1, reason: 'error-not-retryable' });
  });
});
