/**
 * Node's global `fetch` (its bundled undici: 7.x in Node 24, 6.x in Node 22) with undici 8 and 7
 * agents, by `{ dispatcher }` and by `setGlobalDispatcher`; and what only undici's own clients show.
 */
import * as undici8 from 'undici';
import * as undici7 from 'undici7';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { type ScriptedServer, startScriptedServer } from '../../../test/support/scripted-server.ts';
import {
  ATTEMPTS_HEADER,
  getRetryInfo,
  type RetryInfo,
  readInfoHeaders,
  retryInterceptor,
  TOTAL_DELAY_HEADER,
} from '../src/index.ts';
import { recordingSleep } from './helpers.ts';

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());
afterEach(() => server.reset());

const fast = () => ({ sleep: recordingSleep().sleep, random: () => 0.5 });

describe('Node’s global fetch', () => {
  test(`motivation: a plain undici 8 Agent fails there ("invalid onRequestStart method"; Node ${process.versions.node}, bundled undici ${process.versions.undici})`, async () => {
    const agent = new undici8.Agent();
    try {
      const error = await fetch(`${server.url}/x`, { dispatcher: agent } as RequestInit).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(TypeError);
      expect((error as { cause?: Error }).cause?.message).toMatch(/invalid onRequestStart method/);
      expect(server.seen('/x')).toHaveLength(0);
    } finally {
      await agent.close();
    }
  });

  test('the same undici 8 Agent composed with retryInterceptor answers, and retries', async () => {
    server.route('/x', [{ status: 503 }, { status: 200, body: 'hello' }]);
    const agent = new undici8.Agent();
    const dispatcher = agent.compose(retryInterceptor(fast()));
    try {
      const res = await fetch(`${server.url}/x`, { dispatcher } as RequestInit);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('hello');
      expect(server.seen('/x')).toHaveLength(2);
    } finally {
      await agent.close();
    }
  });

  const GLOBAL_1 = Symbol.for('undici.globalDispatcher.1');
  const GLOBAL_2 = Symbol.for('undici.globalDispatcher.2');
  const globals = globalThis as unknown as Record<symbol, unknown>;

  test.each([
    ['undici 8', undici8],
    ['undici 7', undici7],
  ] as const)(
    'setGlobalDispatcher (%s): plain fetch() is retried; the previous dispatcher is restored',
    async (_name, undici) => {
      const saved1 = globals[GLOBAL_1];
      const saved2 = globals[GLOBAL_2];
      const agent = new undici.Agent();
      server.route('/g', [{ status: 502 }, { status: 200, body: 'global' }]);
      try {
        (undici.setGlobalDispatcher as (d: unknown) => void)(
          (agent as undici8.Agent).compose(retryInterceptor(fast())),
        );
        const res = await fetch(`${server.url}/g`);
        expect(await res.text()).toBe('global');
        expect(server.seen('/g')).toHaveLength(2);
      } finally {
        globals[GLOBAL_1] = saved1;
        if (saved2 !== undefined || GLOBAL_2 in globals) globals[GLOBAL_2] = saved2;
        await agent.close();
      }
      expect(globals[GLOBAL_1]).toBe(saved1);
    },
  );

  test('fetch’s abort signal during the wait rejects with the reason; nothing more is sent', async () => {
    server.route('/wait', [{ status: 503 }, { status: 200 }]);
    const controller = new AbortController();
    const agent = new undici8.Agent();
    const dispatcher = agent.compose(
      retryInterceptor({
        backoff: { strategy: 'constant', baseMs: 60_000 },
        onRetry: () => setTimeout(() => controller.abort(new Error('enough')), 5),
      }),
    );
    try {
      const error = await fetch(`${server.url}/wait`, {
        dispatcher,
        signal: controller.signal,
      } as RequestInit).catch((e: unknown) => e);
      expect((error as Error).message).toBe('enough');
      await new Promise((r) => setTimeout(r, 30));
      expect(server.seen('/wait')).toHaveLength(1);
    } finally {
      await agent.close();
    }
  });
});

describe('reading attempts and total delay', () => {
  test('onFinish gets the summary with method and URL, for every client', async () => {
    server.route('/f', [{ status: 503 }, { status: 200, body: 'ok' }]);
    const summaries: RetryInfo[] = [];
    const agent = new undici8.Agent();
    const dispatcher = agent.compose(retryInterceptor({ ...fast(), onFinish: (s) => summaries.push(s) }));
    try {
      await (await fetch(`${server.url}/f`, { dispatcher } as RequestInit)).text();
      await (await undici8.fetch(`${server.url}/f`, { dispatcher })).text();
      await (await undici8.request(`${server.url}/f`, { dispatcher })).body.text();
    } finally {
      await agent.close();
    }
    expect(summaries.map((s) => [s.method, s.url, s.attempts])).toEqual([
      ['GET', `${server.url}/f`, 2],
      ['GET', `${server.url}/f`, 1],
      ['GET', `${server.url}/f`, 1],
    ]);
  });

  test('undici 8 request(): getRetryInfo(res) (its headers object carries it); errors: getRetryInfo(error), fetch too', async () => {
    server.route('/r', [{ status: 500 }, { status: 200 }]);
    server.route('/e', [{ destroy: 'before-headers' }]);
    const { sleep, delays } = recordingSleep();
    const agent = new undici8.Agent();
    const dispatcher = agent.compose(retryInterceptor({ sleep, random: () => 0.5 }));
    try {
      const res = await undici8.request(`${server.url}/r`, { dispatcher });
      await res.body.text();
      expect(getRetryInfo(res)).toMatchObject({ attempts: 2, totalDelayMs: delays[0] });
      expect(getRetryInfo(res.headers)).toBe(getRetryInfo(res));
      const error = await undici8.request(`${server.url}/e`, { dispatcher }).catch((e: unknown) => e);
      expect(getRetryInfo(error)).toMatchObject({ attempts: 3, reason: 'max-attempts' });
      const fetchError: unknown = await undici8
        .fetch(`${server.url}/e`, { dispatcher })
        .catch((e: unknown) => e);
      expect(fetchError).toBeInstanceOf(TypeError);
      expect(getRetryInfo(fetchError)).toBe(getRetryInfo((fetchError as { cause?: unknown }).cause));
      expect(getRetryInfo(fetchError)).toMatchObject({
        attempts: 3,
        reason: 'max-attempts',
      });
    } finally {
      await agent.close();
    }
  });

  test('undici 7 request(): getRetryInfo(error) on a rejection; the headers object is undici 7’s own', async () => {
    server.route('/r7', [{ status: 500 }, { status: 200 }]);
    server.route('/e7', [{ destroy: 'before-headers' }]);
    const agent = new undici7.Agent();
    const dispatcher = agent.compose(retryInterceptor(fast()));
    try {
      const res = await undici7.request(`${server.url}/r7`, { dispatcher });
      await res.body.text();
      expect(res.statusCode).toBe(200);
      expect(getRetryInfo(res)).toBeUndefined();
      const error = await undici7.request(`${server.url}/e7`, { dispatcher }).catch((e: unknown) => e);
      expect(getRetryInfo(error)).toMatchObject({ attempts: 3, reason: 'max-attempts' });
    } finally {
      await agent.close();
    }
  });

  test.each([
    ['undici 8 fetch', (url: string, dispatcher: unknown) => undici8.fetch(url, { dispatcher } as never)],
    ['undici 7 fetch', (url: string, dispatcher: unknown) => undici7.fetch(url, { dispatcher } as never)],
    ['global fetch', (url: string, dispatcher: unknown) => fetch(url, { dispatcher } as RequestInit)],
  ] as const)('infoHeaders: %s reads x-jitterbug-* headers', async (_name, run) => {
    server.route('/h', [{ status: 503 }, { status: 503 }, { status: 200, body: 'ok' }]);
    const { sleep, delays } = recordingSleep();
    for (const undici of [undici8, undici7]) {
      server.reset();
      server.route('/h', [{ status: 503 }, { status: 503 }, { status: 200, body: 'ok' }]);
      delays.length = 0;
      const agent = new undici.Agent();
      const dispatcher = (agent as undici8.Agent).compose(
        retryInterceptor({ sleep, random: () => 0.5 }, { infoHeaders: true }),
      );
      try {
        const res = (await run(`${server.url}/h`, dispatcher)) as Response;
        await res.text();
        expect(res.headers.get(ATTEMPTS_HEADER)).toBe('3');
        expect(res.headers.get(TOTAL_DELAY_HEADER)).toBe(String(Math.round(delays[0]! + delays[1]!)));
        expect(readInfoHeaders(res.headers)).toEqual({
          attempts: 3,
          totalDelayMs: Math.round(delays[0]! + delays[1]!),
        });
        expect(res.headers.get('content-type')).toBe('text/plain');
      } finally {
        await agent.close();
      }
    }
  });

  test('without infoHeaders the response headers are exactly the server’s', async () => {
    const agent = new undici8.Agent();
    const dispatcher = agent.compose(retryInterceptor(fast()));
    try {
      const res = await undici8.request(`${server.url}/plain`, { dispatcher });
      await res.body.text();
      expect(Object.keys(res.headers).filter((k) => k.startsWith('x-jitterbug'))).toEqual([]);
      expect(readInfoHeaders(res.headers)).toBeUndefined();
    } finally {
      await agent.close();
    }
  });
});

describe('bodies only undici’s own clients send', () => {
  test('undici FormData through request() is replayed in full', async () => {
    server.route('/form', [{ status: 503 }, { status: 200 }]);
    const agent = new undici8.Agent();
    const dispatcher = agent.compose(retryInterceptor(fast()));
    try {
      const form = new undici8.FormData();
      form.append('name', 'jitterbug');
      const res = await undici8.request(`${server.url}/form`, { dispatcher, method: 'PUT', body: form });
      await res.body.text();
      const seen = server.seen('/form');
      expect(seen).toHaveLength(2);
      expect(seen.every((s) => s.bodyComplete && s.body.toString().includes('jitterbug'))).toBe(true);
    } finally {
      await agent.close();
    }
  });

  test('fetch with knownLengthBodyMaxBytes: 0 treats its body as the stream it is, and does not retry it', async () => {
    server.route('/k', [{ status: 503 }, { status: 200 }]);
    const agent = new undici8.Agent();
    const dispatcher = agent.compose(retryInterceptor(fast(), { knownLengthBodyMaxBytes: 0 }));
    try {
      const res = await undici8.fetch(`${server.url}/k`, { dispatcher, method: 'PUT', body: 'text' });
      expect(res.status).toBe(503);
      await res.text();
      expect(server.seen('/k')).toHaveLength(1);
    } finally {
      await agent.close();
    }
  });

  test('a fetch body longer than knownLengthBodyMaxBytes is sent once, whole', async () => {
    server.route('/big', [{ status: 503 }, { status: 200 }]);
    const agent = new undici8.Agent();
    const dispatcher = agent.compose(retryInterceptor(fast(), { knownLengthBodyMaxBytes: 10 }));
    const body = 'x'.repeat(100);
    try {
      const res = await undici8.fetch(`${server.url}/big`, { dispatcher, method: 'PUT', body });
      expect(res.status).toBe(503);
      await res.text();
      expect(server.seen('/big').map((s) => s.body.toString())).toEqual([body]);
    } finally {
      await agent.close();
    }
  });
});
