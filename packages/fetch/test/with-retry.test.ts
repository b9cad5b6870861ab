/**
 * withRetry against the scripted loopback server: what the server saw and what the caller got.
 * Waits are recorded and resolved at once; each test's fetch goes through its own undici 7 Agent
 * (Node's fetch takes it as `dispatcher`) so that no test leaves a socket open.
 */

import { Readable } from 'node:stream';
import {
  createBodyBuffering,
  createRetryPolicy,
  type RetryInfo,
  type RetryPolicyOptions,
} from '@jitterbug/core';
import { Agent } from 'undici7';
import { afterAll, afterEach, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { type ScriptedServer, startScriptedServer } from '../../../test/support/scripted-server.ts';
import { sleep as realSleep } from '../../core/src/sleep.ts';
import { getRetryInfo, withRetry } from '../src/index.ts';

const errorOf = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
};

let server: ScriptedServer;
const agents: Agent[] = [];
let waits: number[] = [];

/** Node's fetch through a fresh agent of the test's own. */
const nodeFetch = (): typeof fetch => {
  const agent = new Agent();
  agents.push(agent);
  return (input, init) => fetch(input, { ...init, dispatcher: agent } as RequestInit);
};

const client = (extra: RetryPolicyOptions = {}, inner: typeof fetch = nodeFetch()) => {
  waits = [];
  const recorded = waits;
  return withRetry(
    inner,
    createRetryPolicy({
      random: () => 0.5,
      sleep: (ms, signal) => {
        recorded.push(ms);
        return realSleep(0, signal);
      },
      ...extra,
    }),
  );
};
const url = (path: string) => server.url + path;

beforeAll(async () => {
  server = await startScriptedServer();
});
afterEach(async () => {
  for (const agent of agents.splice(0)) await agent.close();
  expect(await server.waitForIdle(3_000)).toBe(0);
  server.reset();
});
afterAll(() => server.close());

describe('withRetry', () => {
  it('keeps the signature of the fetch it wraps', () => {
    const wrapped = withRetry(fetch);
    expectTypeOf(wrapped).parameter(0).toEqualTypeOf<string | URL | Request>();
    expectTypeOf(wrapped).returns.toEqualTypeOf<Promise<Response>>();
    const custom = withRetry(async (_input: string, _init?: { method?: string }) => new Response('x'));
    expectTypeOf(custom).parameter(0).toEqualTypeOf<string>();
  });

  it('refuses a fetch that is not a function, and invalid options, with a TypeError', () => {
    expect(() => withRetry(undefined as never)).toThrow(TypeError);
    expect(() => withRetry(fetch, { maxAttempts: 0 })).toThrow(/"maxAttempts"/);
  });

  it('re-sends every replayable body unchanged: string, bytes, ArrayBuffer, Blob, FormData, URLSearchParams', async () => {
    const bytes = Uint8Array.from({ length: 64 }, (_, i) => i);
    const form = new FormData();
    form.set('field', 'value');
    const bodies: [string, BodyInit][] = [
      ['/string', 'text'],
      ['/bytes', bytes],
      ['/buffer', bytes.buffer],
      ['/blob', new Blob(['blob'])],
      ['/form-data', form],
      ['/params', new URLSearchParams({ a: '1' })],
    ];
    const send = client();
    for (const [path, body] of bodies) {
      server.route(path, [{ status: 503 }, { status: 200 }]);
      const response = await send(url(path), { method: 'PUT', body });
      expect(response.status).toBe(200);
      // fetch encodes FormData anew for every attempt, with a boundary of its own each time.
      const [first, second] = server
        .seen(path)
        .map((r) => r.body.toString('latin1').replaceAll(/-+formdata-[\w-]+/g, '--boundary'));
      expect(second).toBe(first);
      expect(first!.length).toBeGreaterThan(0);
    }
  });

  it('a Request without a body is sent as it is on every attempt', async () => {
    server.route('/req', [{ status: 503 }, { status: 200, body: 'ok' }]);
    const response = await client()(new Request(url('/req'), { headers: { 'x-mark': '1' } }));
    expect(await response.text()).toBe('ok');
    expect(server.seen('/req').map((r) => r.headers['x-mark'])).toEqual(['1', '1']);
  });

  it('a Request carrying a body is a stream: sent once, unless it fits the bodyBuffering limit', async () => {
    server.route('/req-body', [{ status: 503 }, { status: 200 }]);
    const once = await client()(new Request(url('/req-body'), { method: 'PUT', body: 'payload' }));
    expect(once.status).toBe(503);
    expect(getRetryInfo(once)).toMatchObject({ reason: 'body-not-replayable' });
    expect(server.seen('/req-body')).toHaveLength(1);
    server.reset();
    server.route('/req-body', [{ status: 503 }, { status: 200 }]);
    const twice = await client({ bodyBuffering: createBodyBuffering({ maxBytes: 1024 }) })(
      new Request(url('/req-body'), { method: 'PUT', body: 'payload' }),
    );
    expect(twice.status).toBe(200);
    expect(server.seen('/req-body').map((r) => r.body.toString())).toEqual(['payload', 'payload']);
  });

  it.each(['node', 'web'] as const)(
    'a %s stream body read ahead: the caller’s abort releases it at once with its reason, closes the stream, sends nothing',
    async (kind) => {
      server.route('/stalled-upload', [{ status: 200 }]);
      let closed = false;
      let pushed = false;
      let stalled: () => void = () => {};
      const reached = new Promise<void>((resolve) => {
        stalled = resolve;
      });
      // One chunk, then nothing ever again: the read ahead waits for a read that never comes.
      const node = new Readable({
        read() {
          if (pushed) return;
          pushed = true;
          this.push('first');
          stalled();
        },
      });
      node.on('close', () => {
        closed = true;
      });
      const body =
        kind === 'node'
          ? node
          : new ReadableStream<Uint8Array>({
              start: (controller) => {
                controller.enqueue(new TextEncoder().encode('first'));
                stalled();
              },
              cancel: () => {
                closed = true;
              },
            });
      const finished: RetryInfo[] = [];
      const controller = new AbortController();
      const reason = new Error('caller gave up');
      void reached.then(() => setTimeout(() => controller.abort(reason), 5));
      const sent = errorOf(
        client({ bodyBuffering: createBodyBuffering({ maxBytes: 1024 }), onFinish: (i) => finished.push(i) })(
          url('/stalled-upload'),
          {
            method: 'PUT',
            body: body as unknown as BodyInit,
            duplex: 'half',
            signal: controller.signal,
          } as RequestInit,
        ),
      );
      expect(await sent).toBe(reason);
      expect(finished).toMatchObject([{ attempts: 0, reason: 'aborted', outcome: 'failure' }]);
      await realSleep(20);
      expect(closed).toBe(true);
      expect(server.seen('/stalled-upload')).toHaveLength(0);
    },
  );

  it("a call's own overrides: jitterbug: { maxAttempts } and jitterbug: false", async () => {
    server.route('/down', [{ status: 503 }]);
    const send = client({ maxAttempts: 2 });
    await send(url('/down'), { jitterbug: { maxAttempts: 4 } });
    expect(server.seen('/down')).toHaveLength(4);
    server.reset();
    server.route('/down', [{ status: 503 }]);
    const response = await send(url('/down'), { jitterbug: false });
    expect(server.seen('/down')).toHaveLength(1);
    expect(getRetryInfo(response)).toMatchObject({ reason: 'retry-disabled' });
    const error = await errorOf(send(url('/down'), { jitterbug: { backoff: { capMs: -1 } } }));
    expect((error as Error).message).toContain('"jitterbug.backoff.capMs"');
  });

  it('waits Retry-After, and reports the attempts on the response', async () => {
    server.route('/limited', [{ status: 429, headers: { 'retry-after': '2' } }, { status: 200 }]);
    const response = await client({ random: () => 0 })(url('/limited'));
    expect(waits).toEqual([2000]);
    expect(getRetryInfo(response)).toMatchObject({ attempts: 2, retries: ['status'], totalDelayMs: 2000 });
  });

  it('attemptTimeoutMs: slow headers end the attempt; after the last one the caller gets AttemptTimeoutError', async () => {
    server.route('/slow', [{ status: 200, body: 'late', delayMs: 1_000 }]);
    const error = await errorOf(client({ attemptTimeoutMs: 50, maxAttempts: 2 })(url('/slow')));
    expect(error).toMatchObject({ name: 'AttemptTimeoutError', code: 'ERR_JITTERBUG_ATTEMPT_TIMEOUT' });
    expect(getRetryInfo(error)).toMatchObject({ attempts: 2, reason: 'max-attempts' });
  });

  it('the caller’s abort: at once during a wait, with its reason; before sending, nothing is sent', async () => {
    server.route('/abort', [{ status: 503 }, { status: 200 }]);
    const finished: RetryInfo[] = [];
    const send = withRetry(nodeFetch(), {
      retryAfter: false,
      backoff: { strategy: 'constant', baseMs: 30_000 },
      onFinish: (i) => finished.push(i),
    });
    const controller = new AbortController();
    const reason = new Error('left');
    const pending = errorOf(send(url('/abort'), { signal: controller.signal }));
    while (server.responses.length === 0) await realSleep(5);
    await realSleep(20);
    controller.abort(reason);
    expect(await pending).toBe(reason);
    expect(finished).toMatchObject([{ attempts: 1, reason: 'aborted' }]);
    expect(await errorOf(send(url('/never'), { signal: AbortSignal.abort(reason) }))).toBe(reason);
    expect(server.seen('/never')).toHaveLength(0);
  });

  it('a large retried body is cancelled after discardBodyMaxBytes, not downloaded', async () => {
    const size = 16 * 1024 * 1024;
    server.route('/huge', [
      { status: 503, bodyBytes: size },
      { status: 200, body: 'small' },
    ]);
    const response = await client({ discardBodyMaxBytes: 1024 })(url('/huge'));
    expect(await response.text()).toBe('small');
    const first = server.responses.find((r) => r.path === '/huge')!;
    expect(first.finished).toBe(false);
    expect(first.bytesWritten).toBeLessThan(size / 4);
  });

  it('a 2xx whose body says "error" can be retried: isFailure reads a clone of the response', async () => {
    server.route('/rate', [
      { status: 200, body: '{"error":{"code":"RATE_LIMIT"}}' },
      { status: 200, body: '{"ok":true}' },
    ]);
    const response = await client({
      isFailure: async ({ response }) => {
        if (!(response instanceof Response)) return undefined;
        const body = (await response.clone().json()) as { error?: { code?: string } };
        return body.error?.code === 'RATE_LIMIT';
      },
    })(url('/rate'));
    expect(await response.json()).toEqual({ ok: true });
    expect(getRetryInfo(response)).toMatchObject({ attempts: 2, retries: ['forced'] });
  });

  it('a hook that rejects fails the call with its error; the response is dropped; the run ends as hook-failed', async () => {
    server.route('/boom', [{ status: 503 }, { status: 200 }]);
    const boom = new Error('hook failed');
    const finished: RetryInfo[] = [];
    const send = client({ onRetry: () => Promise.reject(boom), onFinish: (i) => finished.push(i) });
    const error = await errorOf(send(url('/boom')));
    expect(error).toBe(boom);
    expect(server.seen('/boom')).toHaveLength(1);
    expect(getRetryInfo(error)).toMatchObject({ reason: 'hook-failed', status: 503, attempts: 1 });
    expect(finished).toHaveLength(1);
  });

  it('a request fetch refuses before any attempt (an invalid header on a POST) ends its run: the TypeError carries the summary', async () => {
    const finished: RetryInfo[] = [];
    const send = client({ onFinish: (i) => finished.push(i) });
    const error = await errorOf(send(url('/never'), { method: 'POST', headers: { 'bad header': 'x' } }));
    expect(error).toBeInstanceOf(TypeError);
    expect(getRetryInfo(error)).toMatchObject({
      reason: 'error-not-retryable',
      attempts: 0,
      outcome: 'failure',
    });
    expect(finished).toHaveLength(1);
    expect(server.seen('/never')).toHaveLength(0);
  });
});

describe('a fetch that fails without an error code (browsers, Deno, workerd)', () => {
  /** Throws what a browser's fetch throws for a lost connection, `failures` times, then fetches. */
  const failing = (failures: number) => {
    let calls = 0;
    const inner = nodeFetch();
    const fetchLike = (async (input: RequestInfo | URL, init?: RequestInit) => {
      calls++;
      if (calls <= failures) throw new TypeError('Failed to fetch');
      return inner(input, init);
    }) as typeof fetch;
    return { fetchLike, calls: () => calls };
  };

  it('retries a GET as a network error (ERR_NETWORK)', async () => {
    server.route('/net', [{ status: 200, body: 'ok' }]);
    const f = failing(2);
    const response = await client({}, f.fetchLike)(url('/net'));
    expect(await response.text()).toBe('ok');
    expect(f.calls()).toBe(3);
  });

  it('never retries a POST without an idempotency key on it; hands the TypeError over', async () => {
    const f = failing(5);
    const error = await errorOf(client({}, f.fetchLike)(url('/pay'), { method: 'POST', body: 'x' }));
    expect(error).toBeInstanceOf(TypeError);
    expect(f.calls()).toBe(1);
    expect(getRetryInfo(error)).toMatchObject({ reason: 'method-not-idempotent' });
  });

  it('does not retry the caller’s own malformed request (fetch refuses it with a TypeError too)', async () => {
    const error = await errorOf(client()(url('/x'), { headers: { 'bad header': 'x' } }));
    expect(error).toBeInstanceOf(TypeError);
    expect(getRetryInfo(error)).toMatchObject({ attempts: 1, reason: 'error-not-retryable' });
  });
});
