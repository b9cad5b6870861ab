/**
 * The caller's async context (AsyncLocalStorage, and so OpenTelemetry's active span) in retries.
 * undici runs a response's events in the async context of its connection: the one in which the
 * connection was opened, i.e. whichever request opened it. Everything the interceptor does after
 * an attempt failed (the decision and its hooks, the wait, the next dispatch, a hedged copy) must
 * run in the context of the caller whose request it is, not in that of whoever opened the socket.
 *
 * Each test opens the one connection of an `Agent({ connections: 1 })` from a warm-up request in a
 * context of its own, then sends two callers' requests concurrently over it, each in its own context.
 */
import { AsyncLocalStorage, AsyncResource, createHook } from 'node:async_hooks';
import { createHedging, type RetryPolicyOptions } from '@jitterbug/core';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import * as undici8 from 'undici';
import * as undici7 from 'undici7';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedServer, startScriptedServer } from '../../../test/support/scripted-server.ts';
import { sleep as realSleep } from '../../core/src/sleep.ts';
import { retryInterceptor } from '../src/index.ts';

const als = new AsyncLocalStorage<string>();
let server: ScriptedServer;
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  server = await startScriptedServer();
});
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  expect(await server.waitForIdle(3_000)).toBe(0);
  server.reset();
});
afterAll(() => server.close());

type Dispatch = (opts: { path: string }, handler: object) => boolean;

/**
 * A dispatcher of one connection: jitterbug's interceptor over one that records, for every
 * dispatch jitterbug makes (each attempt and hedged copy), the path and the store it runs in; the
 * policy's hooks record the store they are called in.
 */
const tracedDispatcher = (undici: typeof undici8 | typeof undici7, options: RetryPolicyOptions = {}) => {
  const dispatches: string[] = [];
  const hooks: string[] = [];
  const record =
    (dispatch: Dispatch): Dispatch =>
    (opts, handler) => {
      dispatches.push(`${opts.path} in ${als.getStore()}`);
      return dispatch(opts, handler);
    };
  const agent = new undici.Agent({ connections: 1 });
  closers.push(() => agent.close());
  const dispatcher = (agent as undici8.Agent).compose(
    record as never,
    retryInterceptor({
      random: () => 0.5,
      // A real (short) timer: its callback runs where the wait began, as any timer's does.
      sleep: (_ms, signal) => realSleep(1, signal),
      shouldRetry: (info) => {
        hooks.push(`shouldRetry ${new URL(info.url).pathname} in ${als.getStore()}`);
        return info.defaultRetry;
      },
      onRetry: (event) => {
        hooks.push(`onRetry ${new URL(event.url).pathname} in ${als.getStore()}`);
      },
      onFinish: (info) => {
        hooks.push(`onFinish ${new URL(info.url).pathname} in ${als.getStore()}`);
      },
      ...options,
    }),
  );
  return { dispatcher, dispatches, hooks };
};

const requestText = async (dispatcher: undici8.Dispatcher, path: string): Promise<string> => {
  const res = await undici8.request(server.url + path, { dispatcher });
  return `${res.statusCode} ${await res.body.text()}`;
};

const fetchText = async (dispatcher: undici8.Dispatcher, path: string): Promise<string> => {
  const res = await undici8.fetch(server.url + path, { dispatcher });
  return `${res.status} ${await res.text()}`;
};

/**
 * Opens the connection in the context `warm`, then sends `/a`, `/b` and `/c` at once as callers A,
 * B and C (`/c` is answered at once: a first attempt that succeeds).
 */
const threeCallers = async (send: (path: string) => Promise<string>): Promise<string[]> => {
  expect(await als.run('warm', () => send('/warm'))).toBe('200 ok');
  return Promise.all(
    ['A', 'B', 'C'].map((caller) => als.run(caller, () => send(`/${caller.toLowerCase()}`))),
  );
};

const sortedByPath = (lines: readonly string[]): string[] => [...lines].sort();

describe('the caller’s async context in retries', () => {
  it.each([
    ['undici 8 request()', undici8, requestText],
    ['undici 8 fetch()', undici8, fetchText],
    ['undici 7 request()', undici7, requestText],
  ] as const)(
    '%s: two callers on one connection, a 503 each: every retry and hook runs in its caller’s store',
    async (_name, undici, send) => {
      server.route('/a', [{ status: 503 }, { status: 200, body: 'a' }]);
      server.route('/b', [{ status: 503 }, { status: 200, body: 'b' }]);
      const { dispatcher, dispatches, hooks } = tracedDispatcher(undici);
      const results = await threeCallers((path) => send(dispatcher as undici8.Dispatcher, path));
      expect(results).toEqual(['200 a', '200 b', '200 ok']);
      // One connection for all six requests: each caller's events came in the warm-up's context.
      expect(server.openSockets()).toBe(1);
      expect(sortedByPath(dispatches)).toEqual([
        '/a in A',
        '/a in A',
        '/b in B',
        '/b in B',
        '/c in C',
        '/warm in warm',
      ]);
      // shouldRetry asked about the failures: the 503s (not the 200s, which are never sent again).
      expect(sortedByPath(hooks.filter((h) => !h.includes('/warm')))).toEqual([
        'onFinish /a in A',
        'onFinish /b in B',
        'onFinish /c in C',
        'onRetry /a in A',
        'onRetry /b in B',
        'shouldRetry /a in A',
        'shouldRetry /b in B',
      ]);
    },
  );

  it('an error before the response (a lost connection): the retry runs in its caller’s store', async () => {
    server.route('/a', [{ destroy: 'before-headers' }, { status: 200, body: 'a' }]);
    server.route('/b', [{ status: 200, body: 'b' }]);
    const { dispatcher, dispatches, hooks } = tracedDispatcher(undici8);
    // A's first attempt loses the warm-up's connection; the others go on the one that replaces it.
    const results = await threeCallers((path) => requestText(dispatcher, path));
    expect(results).toEqual(['200 a', '200 b', '200 ok']);
    expect(sortedByPath(dispatches)).toEqual(['/a in A', '/a in A', '/b in B', '/c in C', '/warm in warm']);
    expect(sortedByPath(hooks.filter((h) => !h.includes('/warm')))).toEqual([
      'onFinish /a in A',
      'onFinish /b in B',
      'onFinish /c in C',
      'onRetry /a in A',
      'shouldRetry /a in A',
    ]);
  });

  it('a hedged copy of a retry is dispatched in its caller’s store', async () => {
    // A's retry is slow, so a copy of it is dispatched after 20 ms, from a timer the retry set. On
    // the one connection the copy waits behind the retry, which answers first: the copy is dropped.
    // The server's 200 ms timer starts after the hedge timer, in this process: it fires after it.
    server.route('/a', [{ status: 503 }, { status: 200, body: 'slow', delayMs: 200 }]);
    // Only the retry is hedged, however slow the machine: a percentile delay hedges nothing until 20
    // latencies are known, and the warm-up and A's first attempt bring the 18 given here to 20. Its
    // median is then 20 ms, whatever those two took.
    const hedge = createHedging({ delayMs: 'p50' });
    for (let i = 0; i < 18; i++) hedge.latencies.record(20);
    const { dispatcher, dispatches } = tracedDispatcher(undici8, { hedge });
    expect(await als.run('warm', () => requestText(dispatcher, '/warm'))).toBe('200 ok');
    expect(await als.run('A', () => requestText(dispatcher, '/a'))).toBe('200 slow');
    expect(dispatches).toEqual(['/warm in warm', '/a in A', '/a in A', '/a in A']);
    expect(server.seen('/a')).toHaveLength(2);
  });
});

describe('where the caller’s context is taken from', () => {
  it('undici’s request() handler carries it; for fetch() the request captures its own', async () => {
    let made = 0;
    const hook = createHook({
      init: (_id, type) => {
        if (type === 'JitterbugRequest') made++;
      },
    }).enable();
    try {
      const { dispatcher } = tracedDispatcher(undici8);
      expect(await als.run('A', () => requestText(dispatcher, '/warm'))).toBe('200 ok');
      expect(made).toBe(0);
      expect(await als.run('B', () => fetchText(dispatcher, '/warm'))).toBe('200 ok');
      expect(made).toBe(1);
    } finally {
      hook.disable();
    }
  });

  // A decision (4e67ac0), not an accident: a handler that is an AsyncResource is the request's scope,
  // as undici's request() handler is, so a user's made in one context and dispatched in another has
  // its retries run in the context it was made in; any other handler, in the one it was dispatched in.
  it.each([
    ['an AsyncResource: the context it was made in', true, 'H'],
    ['a plain object: the context it was dispatched in', false, 'D'],
  ] as const)('a handler made in H and dispatched in D, %s', async (_name, resource, scope) => {
    server.route('/a', [{ status: 503 }, { status: 200, body: 'a' }]);
    const { dispatcher, dispatches, hooks } = tracedDispatcher(undici8);
    expect(await als.run('warm', () => requestText(dispatcher, '/warm'))).toBe('200 ok');
    let done!: (text: string) => void;
    let failed!: (error: Error) => void;
    const answered = new Promise<string>((resolve, reject) => {
      done = resolve;
      failed = reject;
    });
    const chunks: Buffer[] = [];
    const callbacks = {
      onRequestStart: () => {},
      onResponseStart: () => {},
      onResponseData: (_controller: unknown, chunk: Buffer) => {
        chunks.push(chunk);
      },
      onResponseEnd: () => done(Buffer.concat(chunks).toString()),
      onResponseError: (_controller: unknown, error: Error) => failed(error),
    };
    const handler = als.run('H', () =>
      resource ? Object.assign(new AsyncResource('UserHandler'), callbacks) : { ...callbacks },
    );
    als.run('D', () => dispatcher.dispatch({ origin: server.url, path: '/a', method: 'GET' }, handler));
    expect(await answered).toBe('a');
    // The first attempt is dispatched at once, in D; the retry after the decision, in the scope.
    expect(dispatches.slice(1)).toEqual(['/a in D', `/a in ${scope}`]);
    expect(hooks.filter((h) => !h.includes('/warm'))).toEqual([
      `shouldRetry /a in ${scope}`,
      `onRetry /a in ${scope}`,
      `onFinish /a in ${scope}`,
    ]);
  });
});

describe('the caller’s span in retries, with OpenTelemetry', () => {
  let instrumentation: UndiciInstrumentation;
  let exporter: InMemorySpanExporter;
  let provider: TracerProvider;
  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  });
  afterAll(() => {
    context.disable();
  });
  afterEach(async () => {
    instrumentation.disable();
    await provider.shutdown();
  });

  /** Each span's name and its parent's (`-` for a root), with the path of an attempt's span. */
  const tree = (spans: readonly ReadableSpan[]): string[] => {
    const names = new Map(spans.map((s) => [s.spanContext().spanId, s.name]));
    return spans
      .map((s) => {
        const path = s.attributes['url.path'];
        const name = path === undefined ? s.name : `${s.name} ${String(path)}`;
        const parent = s.parentSpanContext ? (names.get(s.parentSpanContext.spanId) ?? '?') : '-';
        return `${name} < ${parent}`;
      })
      .sort();
  };

  it.each([
    ['request()', requestText],
    ['fetch()', fetchText],
  ] as const)('undici 8 %s: each attempt’s span is a child of its caller’s span', async (_name, send) => {
    exporter = new InMemorySpanExporter();
    provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    instrumentation = new UndiciInstrumentation();
    instrumentation.setTracerProvider(provider);
    const tracer = provider.getTracer('test');
    const inSpan = (name: string, path: string): Promise<string> =>
      tracer.startActiveSpan(name, async (span) => {
        try {
          return await send(dispatcher, path);
        } finally {
          span.end();
        }
      });

    server.route('/a', [{ status: 503 }, { status: 200, body: 'a' }]);
    server.route('/b', [{ status: 503 }, { status: 200, body: 'b' }]);
    const { dispatcher } = tracedDispatcher(undici8);
    expect(await inSpan('warm-up', '/warm')).toBe('200 ok');
    const results = await Promise.all([inSpan('caller A', '/a'), inSpan('caller B', '/b')]);
    expect(results).toEqual(['200 a', '200 b']);
    expect(server.openSockets()).toBe(1);
    expect(trace.getActiveSpan()).toBeUndefined();
    expect(tree(exporter.getFinishedSpans())).toEqual([
      'GET /a < caller A',
      'GET /a < caller A',
      'GET /b < caller B',
      'GET /b < caller B',
      'GET /warm < warm-up',
      'caller A < -',
      'caller B < -',
      'warm-up < -',
    ]);
  });
});
