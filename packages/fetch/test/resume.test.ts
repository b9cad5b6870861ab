/**
 * Resuming a broken download through withRetry (`resume: createResume()`), where fetch itself is the
 * point: the response's summary follows the resumes, a body that is not resumed is the original
 * response's, the caller cancelling the body stops a resume, a call's own `resume`, a `Request`
 * input. What every client does when it resumes (from which byte, with which validator, when it
 * refuses, aborts, `maxAttempts`) is in the conformance suite (`test/conformance/resume.test.ts`).
 */
import { createResume, createRetryPolicy, type RetryInfo, type RetryPolicyOptions } from '@jitterbug/core';
import { Agent } from 'undici7';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sleep as realSleep } from '../../core/src/sleep.ts';
import { getRetryInfo, withRetry } from '../src/index.ts';
import { content, type RangeServer, startRangeServer } from './support/range-server.ts';

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
  it('the response’s summary, read after the body, is the last one: every resume counted', async () => {
    server.serve('/file', { body: FILE, etag: '"v1"' }, [
      { resetAfter: 70_000 },
      { resetAfter: 50_000 },
      { resetAfter: 1 },
      {},
    ]);
    const response = await client({ maxAttempts: 4 })(url('/file'));
    const { bytes, error } = await drain(response);
    expect(error).toBeUndefined();
    expect(bytes.equals(FILE)).toBe(true);
    expect(getRetryInfo(response)).toMatchObject({
      attempts: 4,
      retries: ['resume', 'resume', 'resume'],
      outcome: 'success',
      status: 206,
    });
    expect(getRetryInfo(response)).toBe(finished.at(-1));
  });

  it('not resumed (a weak ETag alone, resume: false, maxAttempts spent): the original response, its break fetch’s TypeError', async () => {
    server.serve('/weak', { body: FILE, etag: 'W/"v1"' }, [{ resetAfter: 100_000 }, {}]);
    server.serve('/off', { body: FILE, etag: '"v1"' }, [{ resetAfter: 100_000 }, {}]);
    for (const [path, options] of [
      ['/weak', {}],
      ['/off', { resume: false }],
    ] as const) {
      const response = await client(options)(url(path));
      // The original response, handed over as it is.
      expect(response.url).toBe(url(path));
      expect((await drain(response)).error).toBeInstanceOf(TypeError);
    }
    server.serve('/breaks', { body: FILE, etag: '"v1"' }, [{ resetAfter: 10_000 }]);
    const { error } = await drain(await client({ maxAttempts: 3 })(url('/breaks')));
    expect(error).toBeInstanceOf(TypeError);
    expect(getRetryInfo(error)).toMatchObject({ attempts: 3, reason: 'max-attempts', outcome: 'failure' });
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
