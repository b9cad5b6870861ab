/**
 * Resuming broken downloads (`resume: createResume()`) on every streaming client (withRetry, ky, undici's
 * `request()` and `fetch()`, Node's `fetch` through the interceptor), over a real range-serving
 * server that resets connections mid-body: when the server can continue the same representation the
 * caller gets exactly its bytes; when it cannot (a changed file, Range ignored, a wrong offset, a
 * weak validator, a content coding) the caller gets an error and never a spliced body; a hostile
 * server that breaks every answer is bounded by `maxAttempts`; aborts release the caller at once;
 * no socket, timer or unhandled rejection is left behind.
 */
import type { RetryInfo, RetryOptions } from '@jitterbug/core';
import { createResume, ResumeError } from '@jitterbug/core';
import { sleep as realSleep } from '@jitterbug/core/adapter';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  content,
  gzipped,
  type RangeServer,
  startRangeServer,
} from '../../packages/fetch/test/support/range-server.ts';
import type { ConformanceClient, ConformanceOutcome } from '../conformance/driver.ts';
import { drivers } from '../conformance/drivers/index.ts';
import { activeResources, captureUnhandled, runPool, settleResources, tinySleep } from './support.ts';

/** "Promptly": far more than an abort needs, far less than the 20 s wait it ends. */
const PROMPT_MS = 1_500;

const FILE = content(400_000);
const TEXT = FILE.toString('latin1');
const OTHER = content(400_000, 3);

/** The `ResumeError` an error is or carries on its cause chain (fetch wraps a body's error). */
const resumeErrorIn = (error: unknown): ResumeError | undefined => {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof ResumeError) return e;
  }
  return undefined;
};

const failure = (outcome: ConformanceOutcome): unknown => {
  if (outcome.kind !== 'error') throw new Error(`expected an error, got a ${outcome.kind}`);
  return outcome.error;
};

// axios reads the whole body before handing the response over: nothing is delivered to resume.
const streaming = drivers.filter((d) => !d.buffersResponses);

describe.each(streaming.map((d) => [d.name, d] as const))('resuming downloads: %s', (_name, driver) => {
  let server: RangeServer;
  const clients: ConformanceClient[] = [];
  let unhandled: ReturnType<typeof captureUnhandled>;
  let finished: RetryInfo[] = [];
  const client = async (options: RetryOptions = {}): Promise<ConformanceClient> => {
    finished = [];
    const c = await driver.create(server.url, {
      resume: createResume(),
      random: () => 0.5,
      sleep: tinySleep().sleep,
      ...options,
      onFinish: (summary) => {
        finished.push(summary);
      },
    });
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    server = await startRangeServer();
    unhandled = captureUnhandled();
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close();
    expect(await server.waitForIdle(3_000)).toBe(0);
    server.reset();
  });
  afterAll(async () => {
    unhandled.dispose();
    expect(unhandled.reasons.map(String)).toEqual([]);
    await server.close();
  });

  it('resets after K bytes, three times: the caller gets exactly the representation; nothing left behind', async () => {
    const before = activeResources();
    server.serve('/file', { body: FILE, etag: '"v1"' }, [
      { resetAfter: 100_000 },
      { resetAfter: 64_000 },
      { resetAfter: 3 },
      {},
    ]);
    const c = await client({ maxAttempts: 4 });
    const { outcome } = await c.send({ method: 'GET', path: '/file' });
    expect(outcome).toMatchObject({ kind: 'response', status: 200 });
    if (outcome.kind === 'response') expect(outcome.body === TEXT).toBe(true);
    expect(server.seen('/file').map((e) => e.range)).toEqual([
      undefined,
      'bytes=100000-',
      'bytes=164000-',
      'bytes=164003-',
    ]);
    expect(finished.at(-1)).toMatchObject({
      attempts: 4,
      retries: ['resume', 'resume', 'resume'],
      outcome: 'success',
    });
    for (const closing of clients.splice(0)) await closing.close();
    expect(await settleResources(before)).toEqual({});
  });

  it('with only Last-Modified: resumed with the date in If-Range', async () => {
    const date = 'Wed, 02 Sep 2026 08:00:00 GMT';
    server.serve('/dated', { body: FILE, lastModified: date }, [{ resetAfter: 200_000 }, {}]);
    const { outcome } = await (await client()).send({ method: 'GET', path: '/dated' });
    expect(outcome.kind === 'response' && outcome.body === TEXT).toBe(true);
    expect(server.seen('/dated')[1]).toMatchObject({ status: 206, ifRange: date });
  });

  it('not resumed: a weak ETag alone, Content-Encoding: gzip, resume: false (the break is the caller’s)', async () => {
    server.serve('/weak', { body: FILE, etag: 'W/"v1"' }, [{ resetAfter: 100_000 }, {}]);
    server.serve('/zipped', gzipped(FILE, '"z1"'), [{ resetAfter: 1_000 }, {}]);
    server.serve('/off', { body: FILE, etag: '"v1"' }, [{ resetAfter: 100_000 }, {}]);
    const on = await client();
    for (const path of ['/weak', '/zipped']) {
      const error = failure((await on.send({ method: 'GET', path })).outcome);
      expect(resumeErrorIn(error)).toBeUndefined();
      expect(server.seen(path)).toHaveLength(1);
    }
    const off = await client({ resume: false });
    failure((await off.send({ method: 'GET', path: '/off' })).outcome);
    expect(server.seen('/off')).toHaveLength(1);
  });

  it.each([
    ['a 200 with a new ETag (the file changed)', { serve: { body: OTHER, etag: '"v2"' } }, /Range|changed/],
    ['a 206 with another ETag', { rangeEtag: '"v2"' }, /representation changed/],
    ['a 200 whole body (Range ignored)', { ignoreRange: true }, /whole body again/],
    ['a 206 at the wrong offset', { shiftBy: 1_000 }, /does not start at byte/],
  ] as const)('%s: the caller gets a ResumeError, never a spliced body', async (_label, answer, message) => {
    server.serve('/bad', { body: FILE, etag: '"v1"' }, [{ resetAfter: 150_000 }, answer]);
    const { outcome } = await (await client()).send({ method: 'GET', path: '/bad' });
    expect(resumeErrorIn(failure(outcome))?.message).toMatch(message);
    expect(server.seen('/bad')).toHaveLength(2);
    expect(finished.at(-1)).toMatchObject({ attempts: 2, outcome: 'failure' });
  });

  it('a hostile server that breaks every answer early is bounded by maxAttempts and never hangs', async () => {
    server.serve('/hostile', { body: FILE, etag: '"v1"' }, [{ resetAfter: 0 }]);
    const { outcome } = await (await client({ maxAttempts: 5 })).send({ method: 'GET', path: '/hostile' });
    failure(outcome);
    expect(server.seen('/hostile')).toHaveLength(5);
    expect(finished.at(-1)).toMatchObject({ attempts: 5, reason: 'max-attempts' });
  });

  it('the caller’s abort during a 20 s resume wait releases it at once with the reason; no timer left', async () => {
    const before = activeResources();
    server.serve('/wait', { body: FILE, etag: '"v1"' }, [{ resetAfter: 100_000 }, {}]);
    const c = await client({
      sleep: (ms, signal) => realSleep(ms, signal),
      backoff: { strategy: 'constant', baseMs: 20_000 },
    });
    const controller = new AbortController();
    const reason = new Error('caller gave up during the resume wait');
    const pending = c.send({ method: 'GET', path: '/wait', signal: controller.signal });
    while (finished.length < 1) await realSleep(5);
    while ((server.seen('/wait')[0]?.cut ?? false) === false) await realSleep(5);
    await realSleep(30);
    const abortedAt = Date.now();
    controller.abort(reason);
    const { outcome } = await pending;
    expect(Date.now() - abortedAt).toBeLessThan(PROMPT_MS);
    const error = failure(outcome);
    expect(error === reason || (error as { cause?: unknown }).cause === reason).toBe(true);
    expect(server.seen('/wait')).toHaveLength(1);
    expect(finished.at(-1)).toMatchObject({ reason: 'aborted' });
    for (const closing of clients.splice(0)) await closing.close();
    expect(await settleResources(before)).toEqual({});
  });

  it('20 downloads at once, each broken twice at its own bytes: every body exact', async () => {
    for (let i = 0; i < 20; i++) {
      server.serve(`/many/${i}`, { body: FILE, etag: `"m${i}"` }, [
        { resetAfter: 10_000 + i * 9_001 },
        { resetAfter: 50_000 + i * 777 },
        {},
      ]);
    }
    const c = await client({ budget: false });
    const bodies: string[] = [];
    await runPool(20, 20, async (i) => {
      const { outcome } = await c.send({ method: 'GET', path: `/many/${i}` });
      bodies[i] = outcome.kind === 'response' ? outcome.body : `failed: ${String(failure(outcome))}`;
    });
    expect(bodies.every((body) => body === TEXT)).toBe(true);
    expect(server.exchanges.filter((e) => e.status === 206)).toHaveLength(40);
  });
});
