/**
 * Resuming a broken download through the interceptor (`resume: createResume()`), over a real range-serving
 * server, for undici 8 and 7 `request()`, undici's `fetch()` and Node's global `fetch` (legacy
 * handlers): the caller's body goes on seamlessly after resets (one response, one end), and ends with
 * a `ResumeError` — never mixing bytes — when the server cannot continue the same representation.
 */
import {
  createResume,
  createRetryPolicy,
  getRetryInfo,
  ResumeError,
  type RetryInfo,
  type RetryPolicyOptions,
} from '@jitterbug/core';
import { sleep as realSleep } from '@jitterbug/core/adapter';
import * as undici8 from 'undici';
import * as undici7 from 'undici7';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  content,
  gzipped,
  type RangeServer,
  startRangeServer,
} from '../../fetch/test/support/range-server.ts';
import { jitterbugOptions, retryInterceptor } from '../src/index.ts';
import { endlessSleep } from './helpers.ts';

/** A response as every client gives it: status, headers, the summary where it can be read, the body. */
interface Got {
  readonly status: number;
  readonly header: (name: string) => string | null | undefined;
  /** The summary where the client hands it over (undici 8's `request()`: on the headers object). */
  info(): RetryInfo | undefined;
  /** Reads the body to its end or its error, `pauseMs` between chunks. */
  read(pauseMs?: number): Promise<{ bytes: Buffer; error: unknown }>;
  cancel(): Promise<void>;
}

type Get = (
  url: string,
  dispatcher: unknown,
  init?: { signal?: AbortSignal; extra?: object },
) => Promise<Got>;

const viaRequest =
  (undici: typeof undici8 | typeof undici7): Get =>
  async (url, dispatcher, init = {}) => {
    const res = await (
      undici.request as unknown as (u: string, o: object) => Promise<undici8.Dispatcher.ResponseData>
    )(url, { dispatcher, ...(init.signal ? { signal: init.signal } : {}), ...init.extra });
    return {
      status: res.statusCode,
      header: (name) => {
        const value = res.headers[name];
        return Array.isArray(value) ? value.join(', ') : value;
      },
      info: () => getRetryInfo(res),
      async read(pauseMs = 0) {
        const chunks: Buffer[] = [];
        try {
          for await (const chunk of res.body) {
            chunks.push(chunk as Buffer);
            if (pauseMs) await realSleep(pauseMs);
          }
          return { bytes: Buffer.concat(chunks), error: undefined };
        } catch (error) {
          return { bytes: Buffer.concat(chunks), error };
        }
      },
      cancel: async () => {
        res.body.destroy();
      },
    };
  };

const viaFetch =
  (run: (url: string, init: object) => Promise<Response>): Get =>
  async (url, dispatcher, init = {}) => {
    const res = await run(url, { dispatcher, ...(init.signal ? { signal: init.signal } : {}) });
    const reader = res.body!.getReader();
    return {
      status: res.status,
      header: (name) => res.headers.get(name),
      info: () => undefined,
      async read(pauseMs = 0) {
        const chunks: Uint8Array[] = [];
        try {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) return { bytes: Buffer.concat(chunks), error: undefined };
            chunks.push(value);
            if (pauseMs) await realSleep(pauseMs);
          }
        } catch (error) {
          return { bytes: Buffer.concat(chunks), error };
        }
      },
      cancel: () => reader.cancel(new Error('enough')),
    };
  };

const clients: ReadonlyArray<{ name: string; Agent: typeof undici8.Agent; get: Get; tags: boolean }> = [
  { name: 'undici 8 request()', Agent: undici8.Agent, get: viaRequest(undici8), tags: true },
  { name: 'undici 7 request()', Agent: undici7.Agent as never, get: viaRequest(undici7), tags: false },
  {
    name: 'undici 8 fetch()',
    Agent: undici8.Agent,
    get: viaFetch(undici8.fetch as never),
    tags: false,
  },
  // Node's bundled undici hands the interceptor legacy handlers.
  {
    name: 'global fetch + undici 8 Agent',
    Agent: undici8.Agent,
    get: viaFetch(globalThis.fetch as never),
    tags: false,
  },
];

/** The `ResumeError` an error is, or carries as its cause (fetch wraps the body's error in a TypeError). */
const resumeErrorIn = (error: unknown): ResumeError | undefined => {
  for (let e = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof ResumeError) return e;
  }
  return undefined;
};

/** undici 8's error for a body that does not come to its declared length, or carries it as its cause. */
const lengthErrorIn = (error: unknown): { code: string; received: number; declared: number } | undefined => {
  for (let e = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if ((e as { code?: unknown }).code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH') return e as never;
  }
  return undefined;
};

const FILE = content(300_000);
const OTHER = content(300_000, 1);
const DATE = 'Tue, 01 Sep 2026 10:00:00 GMT';

let server: RangeServer;
beforeAll(async () => {
  server = await startRangeServer();
});
afterAll(() => server.close());

describe.each(clients)('$name', ({ Agent, get, tags }) => {
  const agents: undici8.Agent[] = [];
  let finished: RetryInfo[] = [];
  const open = (options: RetryPolicyOptions = {}) => {
    finished = [];
    const policy = createRetryPolicy({
      random: () => 0.5,
      sleep: async () => {},
      resume: createResume(),
      onFinish: (info) => {
        finished.push(info);
      },
      ...options,
    });
    const agent = new Agent();
    agents.push(agent);
    const dispatcher = agent.compose(retryInterceptor(policy));
    return (path: string, init?: { signal?: AbortSignal; extra?: object }) =>
      get(server.url + path, dispatcher, init);
  };
  afterEach(async () => {
    for (const agent of agents.splice(0)) await agent.close();
    expect(await server.waitForIdle(3_000)).toBe(0);
    server.reset();
  });

  it('several resets: resumed from the byte each broke at; one response, the exact bytes, a slow reader', async () => {
    server.serve('/file', { body: FILE, etag: '"v1"' }, [
      { resetAfter: 70_000 },
      { resetAfter: 50_000 },
      { resetAfter: 1 },
      {},
    ]);
    const res = await open({ maxAttempts: 4 })('/file');
    expect(res.status).toBe(200);
    // A reader slower than the server: backpressure holds across each resume.
    const { bytes, error } = await res.read(1);
    expect(error).toBeUndefined();
    expect(bytes.equals(FILE)).toBe(true);
    expect(server.seen('/file').map((e) => [e.status, e.range, e.ifRange])).toEqual([
      [200, undefined, undefined],
      [206, 'bytes=70000-', '"v1"'],
      [206, 'bytes=120000-', '"v1"'],
      [206, 'bytes=120001-', '"v1"'],
    ]);
    expect(finished.map((f) => f.attempts)).toEqual([1, 2, 3, 4]);
    expect(finished.at(-1)).toMatchObject({ retries: ['resume', 'resume', 'resume'], outcome: 'success' });
    // undici 8's request() reads the summary from the headers object it was handed: re-attached.
    if (tags) expect(res.info()).toBe(finished.at(-1));
  });

  it('with only Last-Modified: If-Range carries the date', async () => {
    server.serve('/dated', { body: FILE, lastModified: DATE }, [{ resetAfter: 100_000 }, {}]);
    const { bytes, error } = await (await open()('/dated')).read();
    expect(error).toBeUndefined();
    expect(bytes.equals(FILE)).toBe(true);
    expect(server.seen('/dated')[1]).toMatchObject({ status: 206, range: 'bytes=100000-', ifRange: DATE });
  });

  it('a weak ETag alone: not resumed, the break is the caller’s error', async () => {
    server.serve('/weak', { body: FILE, etag: 'W/"v1"' }, [{ resetAfter: 100_000 }, {}]);
    const { bytes, error } = await (await open()('/weak')).read();
    expect(error).toBeInstanceOf(Error);
    expect(resumeErrorIn(error)).toBeUndefined();
    expect(bytes.equals(FILE.subarray(0, 100_000))).toBe(true);
    expect(server.seen('/weak')).toHaveLength(1);
  });

  it('a changed representation (200 with a new ETag): ResumeError, nothing spliced', async () => {
    server.serve('/changed', { body: FILE, etag: '"v1"' }, [
      { resetAfter: 100_000 },
      { serve: { body: OTHER, etag: '"v2"' } },
    ]);
    const { bytes, error } = await (await open()('/changed')).read();
    expect(resumeErrorIn(error)?.code).toBe('ERR_JITTERBUG_RESUME');
    expect(bytes.equals(FILE.subarray(0, 100_000))).toBe(true);
    expect(finished.at(-1)).toMatchObject({ attempts: 2, outcome: 'failure', reason: 'error-not-retryable' });
    expect(getRetryInfo(resumeErrorIn(error)!)).toBe(finished.at(-1));
  });

  it('a 206 with another ETag, a 206 at the wrong offset, a server that ignores Range: ResumeError', async () => {
    const send = open();
    server.serve('/lying', { body: FILE, etag: '"v1"' }, [{ resetAfter: 100_000 }, { rangeEtag: '"v2"' }]);
    server.serve('/shifted', { body: FILE, etag: '"v1"' }, [{ resetAfter: 100_000 }, { shiftBy: 10 }]);
    server.serve('/norange', { body: FILE, etag: '"v1"' }, [{ resetAfter: 100_000 }, { ignoreRange: true }]);
    for (const [path, message] of [
      ['/lying', /representation changed/],
      ['/shifted', /does not start at byte 100000/],
      ['/norange', /whole body again/],
    ] as const) {
      const { bytes, error } = await (await send(path)).read();
      expect(resumeErrorIn(error)?.message).toMatch(message);
      expect(bytes.equals(FILE.subarray(0, 100_000))).toBe(true);
      expect(server.seen(path)).toHaveLength(2);
    }
  });

  it('a 206 with another bare (unquoted) ETag (asd, then erwsd): ResumeError, nothing spliced', async () => {
    server.serve('/bare', { body: FILE, etag: 'asd' }, [{ resetAfter: 100_000 }, { rangeEtag: 'erwsd' }]);
    const { bytes, error } = await (await open()('/bare')).read();
    expect(resumeErrorIn(error)?.message).toMatch(/representation changed \(ETag erwsd, was asd\)/);
    expect(bytes.equals(FILE.subarray(0, 100_000))).toBe(true);
    expect(server.seen('/bare').map((e) => e.ifRange)).toEqual([undefined, 'asd']);
  });

  it('a 206 for bytes 3-4 of 5 that carries 70 (undici #4970): the content-length error, no byte past 5', async () => {
    const small = Buffer.from('abcde');
    server.serve('/long', { body: small, etag: '"v1"' }, [{ resetAfter: 3 }, { extraBytes: 68 }]);
    const { bytes, error } = await (await open()('/long')).read();
    expect(lengthErrorIn(error)).toMatchObject({ declared: 5 });
    expect(lengthErrorIn(error)!.received).toBeGreaterThan(5);
    expect(bytes.length).toBeLessThanOrEqual(5);
    expect(small.subarray(0, bytes.length).equals(bytes)).toBe(true);
    expect(server.seen('/long').map((e) => [e.status, e.range])).toEqual([
      [200, undefined],
      [206, 'bytes=3-'],
    ]);
  });

  it('a 503 to the request for the rest is retried; a 412 ends the body', async () => {
    const send = open();
    server.serve('/busy', { body: FILE, etag: '"v1"' }, [{ resetAfter: 100_000 }, { status: 503 }, {}]);
    const ok = await (await send('/busy')).read();
    expect(ok.error).toBeUndefined();
    expect(ok.bytes.equals(FILE)).toBe(true);
    expect(finished.at(-1)).toMatchObject({ attempts: 3, retries: ['resume', 'status'] });

    server.serve('/refused', { body: FILE, etag: '"v1"' }, [{ resetAfter: 100_000 }, { status: 412 }]);
    const { error } = await (await send('/refused')).read();
    expect(resumeErrorIn(error)).toBeDefined();
    expect(finished.at(-1)).toMatchObject({ status: 412, reason: 'status-not-retryable' });
  });

  it('within maxAttempts: a body that keeps breaking ends with the last break', async () => {
    server.serve('/breaks', { body: FILE, etag: '"v1"' }, [{ resetAfter: 10_000 }]);
    const { bytes, error } = await (await open({ maxAttempts: 3 })('/breaks')).read();
    expect(error).toBeInstanceOf(Error);
    expect(resumeErrorIn(error)).toBeUndefined();
    expect(bytes.equals(FILE.subarray(0, 30_000))).toBe(true);
    expect(server.seen('/breaks')).toHaveLength(3);
    expect(finished.at(-1)).toMatchObject({ attempts: 3, reason: 'max-attempts', outcome: 'failure' });
  });

  it('Content-Encoding: gzip is not resumed', async () => {
    server.serve('/zipped', gzipped(FILE, '"z1"'), [{ resetAfter: 1_000 }, {}]);
    const { error } = await (await open()('/zipped')).read();
    expect(error).toBeInstanceOf(Error);
    expect(server.seen('/zipped')).toHaveLength(1);
  });

  it('the caller’s abort during a resume wait ends the body at once with its reason', async () => {
    server.serve('/wait', { body: FILE, etag: '"v1"' }, [{ resetAfter: 100_000 }, {}]);
    const controller = new AbortController();
    const reason = new Error('left');
    const { sleep, delays } = endlessSleep();
    const res = await open({ sleep })('/wait', { signal: controller.signal });
    const pending = res.read();
    while (delays.length === 0) await realSleep(5);
    controller.abort(reason);
    const { bytes, error } = await pending;
    expect(error === reason || (error as { cause?: unknown }).cause === reason).toBe(true);
    expect(bytes.equals(FILE.subarray(0, 100_000))).toBe(true);
    expect(server.seen('/wait')).toHaveLength(1);
    expect(finished.at(-1)).toMatchObject({ reason: 'aborted', outcome: 'failure' });
  });

  it('the caller’s abort during the request for the rest ends the body with its reason', async () => {
    server.serve('/slow', { body: FILE, etag: '"v1"' }, [{ resetAfter: 100_000 }, { held: true }]);
    const controller = new AbortController();
    const reason = new Error('left');
    const res = await open()('/slow', { signal: controller.signal });
    const pending = res.read();
    while (server.seen('/slow').length < 2) await realSleep(5);
    controller.abort(reason);
    const { error } = await pending;
    expect(error === reason || (error as { cause?: unknown }).cause === reason).toBe(true);
    expect(finished.at(-1)).toMatchObject({ reason: 'aborted', attempts: 2 });
    while (!server.seen('/slow')[1]!.cut) await realSleep(5);
  });

  it('resume: false keeps today’s behaviour; a request’s own resume: createResume() turns it on', async () => {
    server.serve('/off', { body: FILE, etag: '"v1"' }, [{ resetAfter: 100_000 }, {}]);
    const send = open({ resume: false });
    const { error } = await (await send('/off')).read();
    expect(error).toBeInstanceOf(Error);
    expect(server.seen('/off')).toHaveLength(1);
    if (!tags) return;
    // request() carries a request's own settings to the interceptor; fetch passes none.
    server.serve('/on', { body: FILE, etag: '"v1"' }, [{ resetAfter: 100_000 }, {}]);
    const on = await (await send('/on', { extra: jitterbugOptions({ resume: createResume() }) })).read();
    expect(on.bytes.equals(FILE)).toBe(true);
  });
});
