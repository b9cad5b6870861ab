/**
 * Resuming a broken download (`resume: createResume()`) through every client that streams bodies,
 * over a real range-serving server that resets connections mid-body: when the server can continue
 * the same representation at the right byte the caller gets exactly its bytes, one response; when
 * it cannot (a changed file, Range ignored, a wrong offset, another ETag, a weak validator, a content
 * coding) the caller gets an error after exactly the bytes before the break, never a spliced body; a
 * body that keeps breaking is bounded by `maxAttempts`; the caller's abort ends it at once; no socket
 * or timer is left behind. axios reads whole bodies before handing a response over
 * (`buffersResponses`): a break is retried whole there, which the first scenario shows.
 */
import {
  createResume,
  getRetryInfo,
  ResumeError,
  type RetryInfo,
  type RetryPolicyOptions,
} from '@jitterbug/core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import {
  type Answer,
  content,
  gzipped,
  type RangeServer,
  startRangeServer,
} from '../../packages/fetch/test/support/range-server.ts';
import { activeResources, captureUnhandled, runPool, settleResources } from '../reliability/support.ts';
import type { ConformanceResult } from './driver.ts';
import { featureDrivers } from './drivers/index.ts';
import { describeRuns, errorChain } from './harness.ts';

const FILE = content(300_000);
const TEXT = FILE.toString('latin1');
const OTHER = content(300_000, 1);
const DATE = 'Tue, 01 Sep 2026 10:00:00 GMT';

/** The text before the byte `n`: what the caller may have got of a body that broke there. */
const before = (n: number) => TEXT.slice(0, n);

describeRuns(featureDrivers, (run) => {
  const { driver, scenario, clients, expectFinalStatus } = run;
  let range: RangeServer;
  let finished: RetryInfo[] = [];
  let unhandled: ReturnType<typeof captureUnhandled>;
  beforeAll(async () => {
    range = await startRangeServer();
    unhandled = captureUnhandled();
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close();
    expect(await range.waitForIdle(3_000)).toBe(0);
    range.reset();
  });
  afterAll(async () => {
    unhandled.dispose();
    expect(unhandled.reasons.map(String)).toEqual([]);
    await range.close();
  });

  /** A client of the range server that resumes, its summaries in `finished`. */
  const resuming = (extra: RetryPolicyOptions = {}) => {
    finished = [];
    return run.clientAt(range.url, {
      resume: createResume(),
      onFinish: (summary) => {
        finished.push(summary);
      },
      ...extra,
    });
  };
  const get = async (path: string, extra: RetryPolicyOptions = {}, signal?: AbortSignal) =>
    (await resuming(extra)).send({ method: 'GET', path, ...(signal ? { signal } : {}) });
  /** A scenario for the clients that hand a response over before its body is read. */
  const streamed = (name: string, test: () => Promise<void>): void => {
    if (!driver.buffersResponses) scenario(['http'], name, test);
  };
  /** The body as the caller read it, up to its error: the error, and what arrived before it. */
  const broken = (result: ConformanceResult): { error: unknown; partial: string | undefined } => {
    if (result.outcome.kind !== 'error') throw new Error(`expected an error, got a ${result.outcome.kind}`);
    return { error: result.outcome.error, partial: result.outcome.partial };
  };
  const resumeErrorIn = (result: ConformanceResult): ResumeError | undefined =>
    errorChain(result).find((e): e is ResumeError => e instanceof ResumeError);
  const abortedWith = (result: ConformanceResult, reason: unknown): boolean =>
    driver.isAbort(broken(result).error, reason);

  scenario(
    ['http'],
    'a GET whose body breaks after the response was handed over is continued from the byte it broke at (axios: sent again whole)',
    async () => {
      // The first answer breaks after 400 of its 1000 bytes; then the rest, or the whole (axios).
      run.server.route('/download', (request) =>
        request.nth === 0
          ? { destroy: 'mid-body', sentBytes: 400, declaredBytes: 1000, headers: { etag: '"v1"' } }
          : request.headers.range === 'bytes=400-' && request.headers['if-range'] === '"v1"'
            ? {
                status: 206,
                headers: { etag: '"v1"', 'content-range': 'bytes 400-999/1000' },
                body: 'b'.repeat(600),
              }
            : { status: 200, headers: { etag: '"v1"' }, body: 'b'.repeat(1000) },
      );
      const result = await (await run.client({ resume: createResume() })).send({
        method: 'GET',
        path: '/download',
      });
      expectFinalStatus(result, 200);
      if (result.outcome.kind === 'response') expect(result.outcome.body).toBe('b'.repeat(1000));
      const ranges = run.server.seen('/download').map((r) => r.headers.range);
      // axios reads the whole body before handing the response over: a break is retried whole.
      expect(ranges).toEqual(driver.buffersResponses ? [undefined, undefined] : [undefined, 'bytes=400-']);
    },
  );

  streamed(
    'several resets: each resumed from the byte it broke at; one response, exactly the representation; nothing left behind',
    async () => {
      const resources = activeResources();
      range.serve('/file', { body: FILE, etag: '"v1"' }, [
        { resetAfter: 100_000 },
        { resetAfter: 64_000 },
        { resetAfter: 1 },
        {},
      ]);
      const result = await get('/file', { maxAttempts: 4 });
      expect(result.outcome).toMatchObject({ kind: 'response', status: 200 });
      if (result.outcome.kind === 'response') {
        expect(result.outcome.body === TEXT).toBe(true);
        expect(result.outcome.headers.get('etag')).toBe('"v1"');
      }
      expect(range.seen('/file').map((e) => [e.status, e.range, e.ifRange])).toEqual([
        [200, undefined, undefined],
        [206, 'bytes=100000-', '"v1"'],
        [206, 'bytes=164000-', '"v1"'],
        [206, 'bytes=164001-', '"v1"'],
      ]);
      // onFinish runs when the run first hands the response over, then again after each resume.
      expect(finished.map((f) => f.attempts)).toEqual([1, 2, 3, 4]);
      expect(finished.at(-1)).toMatchObject({
        retries: ['resume', 'resume', 'resume'],
        outcome: 'success',
        status: 206,
      });
      for (const c of clients.splice(0)) await c.close();
      expect(await settleResources(resources)).toEqual({});
    },
  );

  streamed('with only Last-Modified: resumed, If-Range carries the date', async () => {
    range.serve('/dated', { body: FILE, lastModified: DATE }, [{ resetAfter: 100_000 }, {}]);
    const result = await get('/dated');
    expect(result.outcome.kind === 'response' && result.outcome.body === TEXT).toBe(true);
    expect(range.seen('/dated')[1]).toMatchObject({ status: 206, range: 'bytes=100000-', ifRange: DATE });
  });

  streamed(
    'not resumed: a weak ETag alone, Content-Encoding: gzip, resume: false; the break is the caller’s error, as without resume',
    async () => {
      range.serve('/weak', { body: FILE, etag: 'W/"v1"' }, [{ resetAfter: 100_000 }, {}]);
      range.serve('/zipped', gzipped(FILE, '"z1"'), [{ resetAfter: 1_000 }, {}]);
      range.serve('/off', { body: FILE, etag: '"v1"' }, [{ resetAfter: 100_000 }, {}]);
      for (const [path, extra] of [
        ['/weak', {}],
        ['/zipped', {}],
        ['/off', { resume: false }],
      ] as const) {
        const result = await get(path, extra);
        const { partial } = broken(result);
        expect(resumeErrorIn(result), path).toBeUndefined();
        // Ranges count a content coding's bytes, not the decoded ones: only the plain bodies compare.
        if (path !== '/zipped') expect(partial === before(100_000), path).toBe(true);
        expect(range.seen(path), path).toHaveLength(1);
      }
    },
  );

  const refusals: readonly [
    string,
    { body: Buffer; etag: string },
    Answer,
    RegExp,
    (number | undefined)[],
  ][] = [
    [
      'a 200 with a new ETag (the file changed)',
      { body: FILE, etag: '"v1"' },
      { serve: { body: OTHER, etag: '"v2"' } },
      /Range|changed/,
      [200, 200],
    ],
    [
      'a 206 with another ETag',
      { body: FILE, etag: '"v1"' },
      { rangeEtag: '"v2"' },
      /representation changed/,
      [200, 206],
    ],
    [
      'a 206 with another bare (unquoted) ETag: asd, then erwsd',
      { body: FILE, etag: 'asd' },
      { rangeEtag: 'erwsd' },
      /representation changed \(ETag erwsd, was asd\)/,
      [200, 206],
    ],
    [
      'a 200 with the whole body (Range ignored)',
      { body: FILE, etag: '"v1"' },
      { ignoreRange: true },
      /whole body again/,
      [200, 200],
    ],
    [
      'a 206 at the wrong offset',
      { body: FILE, etag: '"v1"' },
      { shiftBy: 10 },
      /does not start at byte 100000/,
      [200, 206],
    ],
  ];
  for (const [label, representation, answer, message, statuses] of refusals) {
    streamed(
      `${label}: the body ends with a ResumeError after exactly the bytes before the break, nothing spliced`,
      async () => {
        range.serve('/bad', representation, [{ resetAfter: 100_000 }, answer]);
        const result = await get('/bad');
        expect(broken(result).partial === before(100_000)).toBe(true);
        const error = resumeErrorIn(result);
        expect(error).toMatchObject({ code: 'ERR_JITTERBUG_RESUME' });
        expect(error?.message).toMatch(message);
        expect(range.seen('/bad').map((e) => e.status)).toEqual(statuses);
        expect(range.seen('/bad').map((e) => e.ifRange)).toEqual([undefined, representation.etag]);
        expect(finished.at(-1)).toMatchObject({
          attempts: 2,
          outcome: 'failure',
          reason: 'error-not-retryable',
        });
        // The error carries the run's summary, as the caller reads it.
        expect(getRetryInfo(error!)).toBe(finished.at(-1));
        expect(finished.at(-1)?.error).toBe(error);
      },
    );
  }

  streamed(
    'a 206 for bytes 3-4 of 5 carrying 70 (undici #4970): the body ends with the client’s error before any byte past the 5 declared',
    async () => {
      range.serve('/long', { body: Buffer.from('abcde'), etag: '"v1"' }, [
        { resetAfter: 3 },
        { extraBytes: 68 },
      ]);
      const result = await get('/long');
      const { error, partial } = broken(result);
      expect(driver.overlongBodyDeclared?.(error)).toBe(5);
      expect(partial?.length).toBeLessThanOrEqual(5);
      expect('abcde'.startsWith(partial ?? 'missing')).toBe(true);
      expect(range.seen('/long').map((e) => [e.status, e.range])).toEqual([
        [200, undefined],
        [206, 'bytes=3-'],
      ]);
    },
  );

  streamed(
    'a 503 to the request for the rest is retried like any status; a 412 ends the body with a ResumeError',
    async () => {
      range.serve('/busy', { body: FILE, etag: '"v1"' }, [{ resetAfter: 100_000 }, { status: 503 }, {}]);
      const busy = await get('/busy');
      expect(busy.outcome.kind === 'response' && busy.outcome.body === TEXT).toBe(true);
      expect(finished.at(-1)).toMatchObject({ attempts: 3, retries: ['resume', 'status'] });
      range.serve('/refused', { body: FILE, etag: '"v1"' }, [{ resetAfter: 100_000 }, { status: 412 }]);
      const refused = await get('/refused');
      expect(broken(refused).partial === before(100_000)).toBe(true);
      const error = resumeErrorIn(refused);
      expect(error).toBeInstanceOf(ResumeError);
      expect(finished.at(-1)).toMatchObject({ status: 412, reason: 'status-not-retryable' });
      expect(getRetryInfo(error!)).toMatchObject({ status: 412, reason: 'status-not-retryable' });
    },
  );

  streamed(
    'a body that keeps breaking is bounded by maxAttempts and ends with the last break (after the bytes it had); one that breaks before any byte too',
    async () => {
      range.serve('/breaks', { body: FILE, etag: '"v1"' }, [{ resetAfter: 10_000 }]);
      const breaks = await get('/breaks', { maxAttempts: 3 });
      expect(resumeErrorIn(breaks)).toBeUndefined();
      expect(broken(breaks).partial === before(30_000)).toBe(true);
      expect(range.seen('/breaks')).toHaveLength(3);
      expect(finished.at(-1)).toMatchObject({ attempts: 3, reason: 'max-attempts', outcome: 'failure' });
      range.serve('/hostile', { body: FILE, etag: '"v1"' }, [{ resetAfter: 0 }]);
      const hostile = await get('/hostile', { maxAttempts: 5 });
      expect(broken(hostile).partial).toBe('');
      expect(range.seen('/hostile')).toHaveLength(5);
      expect(finished.at(-1)).toMatchObject({ attempts: 5, reason: 'max-attempts' });
    },
  );

  streamed(
    'the caller’s abort during the wait before a resume ends the body at once with its reason; no timer left',
    async () => {
      const resources = activeResources();
      range.serve('/wait', { body: FILE, etag: '"v1"' }, [{ resetAfter: 100_000 }, {}]);
      // A wait only the signal ends: without the abort the body would never go on.
      const waits: number[] = [];
      const endless = (ms: number, signal?: AbortSignal) =>
        new Promise<void>((_resolve, reject) => {
          waits.push(ms);
          if (signal?.aborted) reject(signal.reason);
          signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
        });
      const controller = new AbortController();
      const reason = new Error('caller gave up during the resume wait');
      const pending = get('/wait', { sleep: endless }, controller.signal);
      await expect.poll(() => waits.length).toBe(1);
      controller.abort(reason);
      const result = await pending;
      expect(abortedWith(result, reason)).toBe(true);
      expect(broken(result).partial === before(100_000)).toBe(true);
      expect(range.seen('/wait')).toHaveLength(1);
      expect(finished.at(-1)).toMatchObject({ reason: 'aborted', outcome: 'failure' });
      for (const c of clients.splice(0)) await c.close();
      expect(await settleResources(resources)).toEqual({});
    },
  );

  streamed('the caller’s abort during the request for the rest ends the body with its reason', async () => {
    range.serve('/slow', { body: FILE, etag: '"v1"' }, [{ resetAfter: 100_000 }, { held: true }]);
    const controller = new AbortController();
    const reason = new Error('caller left while the rest was asked for');
    const pending = get('/slow', {}, controller.signal);
    await expect.poll(() => range.seen('/slow').length).toBe(2);
    controller.abort(reason);
    expect(abortedWith(await pending, reason)).toBe(true);
    expect(finished.at(-1)).toMatchObject({ reason: 'aborted', attempts: 2 });
    // The request for the rest is aborted: its connection closes before any answer.
    await expect.poll(() => range.seen('/slow')[1]!.cut).toBe(true);
    range.release();
  });

  streamed('20 downloads at once, each broken twice at its own bytes: every body exact', async () => {
    for (let i = 0; i < 20; i++) {
      range.serve(`/many/${i}`, { body: FILE, etag: `"m${i}"` }, [
        { resetAfter: 10_000 + i * 9_001 },
        { resetAfter: 50_000 + i * 777 },
        {},
      ]);
    }
    const c = await resuming({ budget: false });
    const bodies: boolean[] = [];
    await runPool(20, 20, async (i) => {
      const { outcome } = await c.send({ method: 'GET', path: `/many/${i}` });
      bodies[i] = outcome.kind === 'response' && outcome.body === TEXT;
    });
    expect(bodies).toEqual(Array(20).fill(true));
    expect(range.exchanges.filter((e) => e.status === 206)).toHaveLength(40);
  });
});
