/**
 * Resuming a broken download through the interceptor (`resume: createResume()`), where undici's
 * handlers are the point, for undici 8 and 7 `request()`, undici's `fetch()` and Node's global
 * `fetch` (legacy handlers): a reader slower than the server holds the resumed body back (the
 * handler passes undici's pause on), undici 8's `request()` finds the last summary on the headers
 * object it was handed, and a request's own `resume`. What every client does when it resumes (from
 * which byte, with which validator, when it refuses, aborts, `maxAttempts`) is in the conformance
 * suite (`test/conformance/resume.test.ts`).
 */
import {
  createResume,
  createRetryPolicy,
  getRetryInfo,
  type RetryInfo,
  type RetryPolicyOptions,
} from '@jitterbug/core';
import * as undici8 from 'undici';
import * as undici7 from 'undici7';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sleep as realSleep } from '../../core/src/sleep.ts';
import { content, type RangeServer, startRangeServer } from '../../fetch/test/support/range-server.ts';
import { jitterbugOptions, retryInterceptor } from '../src/index.ts';

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

const FILE = content(300_000);

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

  it('a reader slower than the server: each reset resumed from the byte it broke at, the exact bytes, one response', async () => {
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
});

describe('undici 8 request(): a request’s own settings', () => {
  it('jitterbugOptions({ resume: createResume() }) turns resuming on where the policy’s is off', async () => {
    server.serve('/on', { body: FILE, etag: '"v1"' }, [{ resetAfter: 100_000 }, {}]);
    const agent = new undici8.Agent();
    try {
      const dispatcher = agent.compose(
        retryInterceptor(createRetryPolicy({ resume: false, sleep: async () => {} })),
      );
      const on = await viaRequest(undici8)(`${server.url}/on`, dispatcher, {
        extra: jitterbugOptions({ resume: createResume() }),
      });
      expect((await on.read()).bytes.equals(FILE)).toBe(true);
      expect(server.seen('/on').map((e) => e.range)).toEqual([undefined, 'bytes=100000-']);
    } finally {
      await agent.close();
      server.reset();
    }
  });
});
