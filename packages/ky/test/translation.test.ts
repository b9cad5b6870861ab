/**
 * Unit tests of the translation layer: reading ky 1 and ky 2 hook arguments, the `retry` option
 * that keeps ky's own retry out of the way, discarding a response body with a cap, and buffering a
 * stream request body.
 */
import { describe, expect, it } from 'vitest';
import { discardBody } from '../src/discard.ts';
import { afterResponseArgs, beforeErrorArgs, beforeRequestArgs, beforeRetryArgs } from '../src/hook-args.ts';
import {
  assertKyRetryIntact,
  KY_RETRY_LIMIT,
  KY_RETRY_METHODS,
  kyNoDelay,
  kyRetryOption,
  kyShouldRetry,
} from '../src/ky-options.ts';
import { bufferRequestBody } from '../src/request-body.ts';

const request = new Request('http://x.test/a');
const options = { context: {} };
const response = new Response('r');

describe('hook arguments', () => {
  it('reads ky 1 positional and ky 2 state arguments alike', () => {
    expect(beforeRequestArgs([request, options, { retryCount: 0 }])).toEqual({ request, options });
    expect(beforeRequestArgs([{ request, options, retryCount: 0 }])).toMatchObject({ request, options });
    expect(afterResponseArgs([request, options, response, { retryCount: 0 }])).toEqual({
      options,
      response,
      ky1: true,
    });
    expect(afterResponseArgs([{ request, options, response, retryCount: 0 }])).toEqual({
      options,
      response,
      ky1: false,
    });
    const error = new Error('e');
    expect(beforeRetryArgs([{ request, options, error, retryCount: 1 }])).toMatchObject({ options, error });
  });

  it('finds the options of a ky 1 beforeError on the HTTPError', () => {
    const httpError = Object.assign(new Error('e'), { name: 'HTTPError', options, response });
    expect(beforeErrorArgs([httpError, { retryCount: 0 }])).toEqual({ options, error: httpError, ky1: true });
    const error = new Error('x');
    expect(beforeErrorArgs([{ request, options, error, retryCount: 0 }])).toEqual({
      options,
      error,
      ky1: false,
    });
  });
});

describe("ky's retry option", () => {
  it('sends every error but HTTPError on to beforeRetry, and waits 0 ms', () => {
    const httpError = Object.assign(new Error('e'), { name: 'HTTPError', response });
    expect(kyShouldRetry({ error: httpError })).toBe(false);
    expect(kyShouldRetry({ error: new TypeError('fetch failed') })).toBe(true);
    expect(kyShouldRetry({ error: Object.assign(new Error('t'), { name: 'TimeoutError' }) })).toBe(true);
    expect(kyNoDelay()).toBe(0);
    const option = kyRetryOption();
    expect(option).toMatchObject({ limit: KY_RETRY_LIMIT, statusCodes: [], afterStatusCodes: [] });
    expect(option.methods).toEqual([...KY_RETRY_METHODS]);
    expect(kyRetryOption().methods).not.toBe(option.methods);
  });

  it('accepts its own option as ky normalises it, and refuses an override', () => {
    expect(() => assertKyRetryIntact({ ...kyRetryOption(), jitter: true, backoffLimit: 5 })).not.toThrow();
    expect(() =>
      assertKyRetryIntact({ ...kyRetryOption(), methods: ['get', ...KY_RETRY_METHODS] }),
    ).not.toThrow();
    expect(() => assertKyRetryIntact({ ...kyRetryOption(), limit: 2 })).toThrow(TypeError);
    expect(() => assertKyRetryIntact({ ...kyRetryOption(), shouldRetry: () => true })).toThrow(/overridden/);
    expect(() => assertKyRetryIntact({ ...kyRetryOption(), methods: ['get'] })).toThrow(TypeError);
    expect(() => assertKyRetryIntact({ ...kyRetryOption(), jitter: (d: number) => d })).toThrow(TypeError);
    expect(() => assertKyRetryIntact(undefined)).toThrow(TypeError);
  });
});

/** A response whose body is `chunks` chunks of `size` bytes, counting how many were pulled. */
const countedResponse = (chunks: number, size: number) => {
  const stats = { pulled: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (stats.pulled === chunks) return controller.close();
      stats.pulled++;
      controller.enqueue(new Uint8Array(size));
    },
    cancel() {
      stats.cancelled = true;
    },
  });
  return { response: new Response(body), stats };
};

describe('discardBody', () => {
  it('reads a body within the cap to its end', async () => {
    const { response, stats } = countedResponse(3, 100);
    await discardBody(response, 1000);
    expect(stats).toEqual({ pulled: 3, cancelled: false });
  });

  it('cancels a body past the cap after reading just over the cap', async () => {
    const { response, stats } = countedResponse(10_000, 1024);
    await discardBody(response, 4096);
    await new Promise((r) => setTimeout(r, 0));
    expect(stats.cancelled).toBe(true);
    expect(stats.pulled).toBeLessThanOrEqual(8);
  });

  it('with a cap of 0 cancels at once', async () => {
    const { response, stats } = countedResponse(10, 10);
    await discardBody(response, 0);
    await new Promise((r) => setTimeout(r, 0));
    expect(stats.cancelled).toBe(true);
    expect(stats.pulled).toBeLessThanOrEqual(2);
  });

  it('settles on a body that breaks, a locked body and no body', async () => {
    const broken = new Response(
      new ReadableStream({
        pull(controller) {
          controller.error(new Error('reset'));
        },
      }),
    );
    await expect(discardBody(broken, 10)).resolves.toBeUndefined();
    const locked = new Response('x');
    locked.body?.getReader();
    await expect(discardBody(locked, 10)).resolves.toBeUndefined();
    await expect(discardBody(new Response(null, { status: 204 }), 10)).resolves.toBeUndefined();
  });
});

const streamOf = (...parts: string[]): ReadableStream<Uint8Array> => {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(encoder.encode(part));
      controller.close();
    },
  });
};

const streamRequest = (...parts: string[]) =>
  new Request('http://x.test/up', {
    method: 'PUT',
    body: streamOf(...parts),
    duplex: 'half',
    headers: { 'x-h': '1' },
  } as RequestInit);

describe('bufferRequestBody', () => {
  it('replaces a stream that fits with its bytes', async () => {
    const prepared = await bufferRequestBody(streamRequest('ab', 'cd'), 10);
    expect(prepared.replayable).toBe(true);
    expect(prepared.request.method).toBe('PUT');
    expect(prepared.request.headers.get('x-h')).toBe('1');
    const copy = prepared.request.clone();
    expect(await prepared.request.text()).toBe('abcd');
    expect(await copy.text()).toBe('abcd');
  });

  it('sends a stream that does not fit once, whole and in order', async () => {
    const prepared = await bufferRequestBody(streamRequest('ab', 'cd', 'ef', 'gh'), 3);
    expect(prepared.replayable).toBe(false);
    expect(await prepared.request.text()).toBe('abcdefgh');
  });

  it('leaves a request without a body alone', async () => {
    const prepared = await bufferRequestBody(request, 10);
    expect(prepared).toEqual({ request, replayable: true });
  });
});
