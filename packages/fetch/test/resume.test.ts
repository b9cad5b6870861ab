/**
 * Resuming a broken download through withRetry (`resume: createResume()`), over a real range-serving server:
 * the caller's body goes on seamlessly after resets, and fails with a `ResumeError` — never mixing
 * bytes — when the server cannot continue the same representation at the right byte.
 */
import {
  createResume,
  createRetryPolicy,
  ResumeError,
  type RetryInfo,
  type RetryPolicyOptions,
} from '@jitterbug/core';
import { sleep as realSleep } from '@jitterbug/core/adapter';
import { Agent } from 'undici7';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { getRetryInfo, withRetry } from '../src/index.ts';
import { content, gzipped, type RangeServer, startRangeServer } from './support/range-server.ts';

let server: RangeServer;
const agents: Agent[] = [];
let finished: RetryInfo[] = [];
const client = (options: RetryPolicyOptions = {}) => {
  const agent = new Agent();
  agents.push(agent);
  const inner: typeof fetch = (input, init) => fetch(input, { ...init, dispatcher: agent } as RequestInit);
  finished = [];
  return withRetry(
    inner,
    createRetryPolicy({
      random: () => 0.5,
      sleep: async () => {},
      resume: createResume(),
      onFinish: (info) => {
        finished.push(info);
      },
      ...options,
    }),
  );
};
const url = (path: string) => server.url + path;

/** Reads a body to its end or its error: the bytes the caller got, and the error, if any. */
const drain = async (response: Response): Promise<{ bytes: Buffer; error: unknown }> => {
  const chunks: Uint8Array[] = [];
  const reader = response.body!.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { bytes: Buffer.concat(chunks), error: undefined };
      chunks.push(value);
    }
  } catch (error) {
    return { bytes: Buffer.concat(chunks), error };
  }
};

const FILE = content(300_000);
const OTHER = content(300_000, 1);
const DATE = 'Tue, 01 Sep 2026 10:00:00 GMT';

beforeAll(async () => {
  server = await startRangeServer();
});
afterEach(async () => {
  for (const agent of agents.splice(0)) await agent.close();
  expect(await server.waitForIdle(3_000)).toBe(0);
  server.reset();
});
afterAll(() => server.close());

describe('resume: createResume()', () => {
  it('several resets: each resumed from the byte it broke at, the caller gets the exact representation', async () => {
    server.serve('/file', { body: FILE, etag: '"v1"' }, [
      { resetAfter: 70_000 },
      { resetAfter: 50_000 },
      { resetAfter: 1 },
      {},
    ]);
    const response = await client({ maxAttempts: 4 })(url('/file'));
    expect(response.status).toBe(200);
    expect(response.headers.get('etag')).toBe('"v1"');
    const { bytes, error } = await drain(response);
    expect(error).toBeUndefined();
    expect(bytes.equals(FILE)).toBe(true);
    expect(server.seen('/file').map((e) => [e.status, e.range, e.ifRange])).toEqual([
      [200, undefined, undefined],
      [206, 'bytes=70000-', '"v1"'],
      [206, 'bytes=120000-', '"v1"'],
      [206, 'bytes=120001-', '"v1"'],
    ]);
    expect(getRetryInfo(response)).toMatchObject({
      attempts: 4,
      retries: ['resume', 'resume', 'resume'],
      outcome: 'success',
      status: 206,
    });
    // onFinish runs when the run first hands the response over, then again after each resume.
    expect(finished.map((f) => f.attempts)).toEqual([1, 2, 3, 4]);
  });

  it('with only Last-Modified: If-Range carries the date', async () => {
    server.serve('/dated', { body: FILE, lastModified: DATE }, [{ resetAfter: 100_000 }, {}]);
    const { bytes, error } = await drain(await client()(url('/dated')));
    expect(error).toBeUndefined();
    expect(bytes.equals(FILE)).toBe(true);
    expect(server.seen('/dated')[1]).toMatchObject({ status: 206, range: 'bytes=100000-', ifRange: DATE });
  });

  it('a weak ETag alone: not resumed, the break is the caller’s error as without resume', async () => {
    server.serve('/weak', { body: FILE, etag: 'W/"v1"' }, [{ resetAfter: 100_000 }, {}]);
    const response = await client()(url('/weak'));
    // The original response, handed over as it is.
    expect(response.url).toBe(url('/weak'));
    const { bytes, error } = await drain(response);
    expect(error).toBeInstanceOf(TypeError);
    expect(bytes.equals(FILE.subarray(0, 100_000))).toBe(true);
    expect(server.seen('/weak')).toHaveLength(1);
  });

  it('a changed representation (200 with a new ETag): the body fails with ResumeError, nothing spliced', async () => {
    server.serve('/changed', { body: FILE, etag: '"v1"' }, [
      { resetAfter: 100_000 },
      { serve: { body: OTHER, etag: '"v2"' } },
    ]);
    const response = await client()(url('/changed'));
    const { bytes, error } = await drain(response);
    expect(error).toBeInstanceOf(ResumeError);
    expect((error as ResumeError).code).toBe('ERR_JITTERBUG_RESUME');
    expect(bytes.equals(FILE.subarray(0, 100_000))).toBe(true);
    expect(server.seen('/changed').map((e) => e.status)).toEqual([200, 200]);
    expect(getRetryInfo(error)).toMatchObject({
      attempts: 2,
      outcome: 'failure',
      reason: 'error-not-retryable',
      error,
    });
  });

  it('a 206 with another ETag: ResumeError, nothing spliced', async () => {
    server.serve('/lying', { body: FILE, etag: '"v1"' }, [{ resetAfter: 100_000 }, { rangeEtag: '"v2"' }]);
    const { bytes, error } = await drain(await client()(url('/lying')));
    expect(error).toBeInstanceOf(ResumeError);
    expect((error as Error).message).toMatch(/representation changed/);
    expect(bytes.equals(FILE.subarray(0, 100_000))).toBe(true);
  });

  it('a 206 with another bare (unquoted) ETag: ResumeError, nothing spliced', async () => {
    server.serve('/bare', { body: FILE, etag: 'asd' }, [{ resetAfter: 100_000 }, { rangeEtag: 'erwsd' }]);
    const { bytes, error } = await drain(await client()(url('/bare')));
    expect(error).toBeInstanceOf(ResumeError);
    expect((error as Error).message).toMatch(/representation changed \(ETag erwsd, was asd\)/);
    expect(bytes.equals(FILE.subarray(0, 100_000))).toBe(true);
    expect(server.seen('/bare').map((e) => e.ifRange)).toEqual([undefined, 'asd']);
  });

  it('a 206 that runs past its range (undici #4970): ResumeError, no byte past the declared length', async () => {
    const small = Buffer.from('abcde');
    server.serve('/long', { body: small, etag: '"v1"' }, [{ resetAfter: 3 }, { extraBytes: 68 }]);
    const { bytes, error } = await drain(await client()(url('/long')));
    expect(error).toBeInstanceOf(ResumeError);
    expect((error as Error).message).toMatch(/ran past the 5 bytes declared/);
    expect(bytes.length).toBeLessThanOrEqual(5);
    expect(small.subarray(0, bytes.length).equals(bytes)).toBe(true);
  });

  it('a server that ignores Range (200 with the whole body): ResumeError, nothing spliced', async () => {
    server.serve('/norange', { body: FILE, etag: '"v1"' }, [{ resetAfter: 100_000 }, { ignoreRange: true }]);
    const { bytes, error } = await drain(await client()(url('/norange')));
    expect(error).toBeInstanceOf(ResumeError);
    expect(bytes.equals(FILE.subarray(0, 100_000))).toBe(true);
    expect(server.seen('/norange').map((e) => e.status)).toEqual([200, 200]);
  });

  it('a 206 at the wrong offset: ResumeError, nothing spliced', async () => {
    server.serve('/shifted', { body: FILE, etag: '"v1"' }, [{ resetAfter: 100_000 }, { shiftBy: 10 }]);
    const { bytes, error } = await drain(await client()(url('/shifted')));
    expect(error).toBeInstanceOf(ResumeError);
    expect((error as Error).message).toMatch(/does not start at byte 100000/);
    expect(bytes.equals(FILE.subarray(0, 100_000))).toBe(true);
  });

  it('a 503 to the request for the rest is retried like any status; a 412 ends the body', async () => {
    server.serve('/busy', { body: FILE, etag: '"v1"' }, [{ resetAfter: 100_000 }, { status: 503 }, {}]);
    const resumed = await client()(url('/busy'));
    const ok = await drain(resumed);
    expect(ok.error).toBeUndefined();
    expect(ok.bytes.equals(FILE)).toBe(true);
    expect(getRetryInfo(resumed)).toMatchObject({ attempts: 3, retries: ['resume', 'status'] });

    server.serve('/refused', { body: FILE, etag: '"v1"' }, [{ resetAfter: 100_000 }, { status: 412 }]);
    const { error } = await drain(await client()(url('/refused')));
    expect(error).toBeInstanceOf(ResumeError);
    expect(getRetryInfo(error)).toMatchObject({ status: 412, reason: 'status-not-retryable' });
  });

  it('within maxAttempts: a body that keeps breaking ends with the last break', async () => {
    server.serve('/breaks', { body: FILE, etag: '"v1"' }, [{ resetAfter: 10_000 }]);
    const { bytes, error } = await drain(await client({ maxAttempts: 3 })(url('/breaks')));
    expect(error).toBeInstanceOf(TypeError);
    expect(bytes.equals(FILE.subarray(0, 30_000))).toBe(true);
    expect(server.seen('/breaks')).toHaveLength(3);
    expect(getRetryInfo(error)).toMatchObject({ attempts: 3, reason: 'max-attempts', outcome: 'failure' });
  });

  it('Content-Encoding: gzip is not resumed (ranges count the encoded bytes)', async () => {
    server.serve('/zipped', gzipped(FILE, '"z1"'), [{ resetAfter: 1_000 }, {}]);
    const { error } = await drain(await client()(url('/zipped')));
    expect(error).toBeInstanceOf(TypeError);
    expect(server.seen('/zipped')).toHaveLength(1);
  });

  it('the caller’s abort during a resume wait ends the body at once with its reason', async () => {
    server.serve('/wait', { body: FILE, etag: '"v1"' }, [{ resetAfter: 100_000 }, {}]);
    const controller = new AbortController();
    const reason = new Error('left');
    // A wait only the signal ends: without the abort the body would never go on.
    const never = (_ms: number, signal?: AbortSignal) =>
      new Promise<void>((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason)));
    const response = await client({ sleep: never })(url('/wait'), { signal: controller.signal });
    const pending = drain(response);
    while (server.seen('/wait')[0]?.bytesWritten !== 100_000) await realSleep(5);
    await realSleep(50);
    controller.abort(reason);
    const { bytes, error } = await pending;
    expect(error).toBe(reason);
    expect(bytes.equals(FILE.subarray(0, 100_000))).toBe(true);
    expect(server.seen('/wait')).toHaveLength(1);
    expect(finished.at(-1)).toMatchObject({ reason: 'aborted', outcome: 'failure' });
  });

  it('the caller’s abort during the request for the rest ends the body with its reason', async () => {
    server.serve('/slow', { body: FILE, etag: '"v1"' }, [{ resetAfter: 100_000 }, { held: true }]);
    const controller = new AbortController();
    const reason = new Error('left');
    const response = await client()(url('/slow'), { signal: controller.signal });
    const pending = drain(response);
    while (server.seen('/slow').length < 2) await realSleep(5);
    controller.abort(reason);
    const { error } = await pending;
    expect(error).toBe(reason);
    expect(finished.at(-1)).toMatchObject({ reason: 'aborted', attempts: 2 });
    while (!server.seen('/slow')[1]!.cut) await realSleep(5);
    server.release();
  });

  it('the caller cancelling the body during a resume sends nothing more', async () => {
    server.serve('/cancel', { body: FILE, etag: '"v1"' }, [{ resetAfter: 100_000 }, { held: true }]);
    const response = await client()(url('/cancel'));
    const reader = response.body!.getReader();
    let read = 0;
    const reading = (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        read += value.byteLength;
      }
    })();
    while (server.seen('/cancel').length < 2) await realSleep(5);
    await reader.cancel(new Error('enough'));
    await reading;
    expect(read).toBe(100_000);
    // The request for the rest is aborted: its connection closes before any answer.
    while (!server.seen('/cancel')[1]!.cut) await realSleep(5);
    server.release();
    await realSleep(20);
    expect(server.seen('/cancel')).toHaveLength(2);
    expect(server.seen('/cancel')[1]!.status).toBeUndefined();
  });

  it('resume: false keeps today’s behaviour: the original response, its break the caller’s error', async () => {
    server.serve('/off', { body: FILE, etag: '"v1"' }, [{ resetAfter: 100_000 }, {}]);
    const response = await client({ resume: false })(url('/off'));
    expect(response.url).toBe(url('/off'));
    const { error } = await drain(response);
    expect(error).toBeInstanceOf(TypeError);
    expect(server.seen('/off')).toHaveLength(1);
  });

  it('a call’s own jitterbug: { resume: createResume() } turns it on for that call', async () => {
    server.serve('/mine', { body: FILE, etag: '"v1"' }, [{ resetAfter: 100_000 }, {}]);
    const send = client({ resume: false });
    const { bytes, error } = await drain(await send(url('/mine'), { jitterbug: { resume: createResume() } }));
    expect(error).toBeUndefined();
    expect(bytes.equals(FILE)).toBe(true);
  });

  it('a whole body that does not break is the same bytes; a Request input keeps its headers', async () => {
    server.serve('/whole', { body: FILE, etag: '"v1"' }, [{ resetAfter: 5_000 }, {}]);
    const response = await client()(new Request(url('/whole'), { headers: { 'x-mine': '1' } }));
    expect(Buffer.from(await response.arrayBuffer()).equals(FILE)).toBe(true);
    expect(server.seen('/whole')[1]).toMatchObject({ range: 'bytes=5000-', ifRange: '"v1"' });
    expect(server.seen('/whole')[1]!.headers['x-mine']).toBe('1');
  });
});
