/**
 * Hedged requests through withRetry, over a real server whose first answer is slow: the copy that
 * answers first wins, the other is cancelled, and only requests that may be sent twice are hedged.
 */
import { createHedging, createRetryPolicy, type RetryPolicyOptions } from '@jitterbug/core';
import { sleep as realSleep } from '@jitterbug/core/adapter';
import { Agent } from 'undici7';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedServer, startScriptedServer } from '../../../test/support/scripted-server.ts';
import { getRetryInfo, withRetry } from '../src/index.ts';

let server: ScriptedServer;
const agents: Agent[] = [];
const client = (options: RetryPolicyOptions) => {
  const agent = new Agent();
  agents.push(agent);
  const inner: typeof fetch = (input, init) => fetch(input, { ...init, dispatcher: agent } as RequestInit);
  return withRetry(inner, createRetryPolicy({ random: () => 0.5, sleep: async () => {}, ...options }));
};
const url = (path: string) => server.url + path;
const slowThenFast = (path: string, slow: object = { status: 200, body: 'slow', delayMs: 3_000 }) =>
  server.route(path, [slow as never, { status: 200, body: 'fast' }]);

beforeAll(async () => {
  server = await startScriptedServer();
});
afterEach(async () => {
  for (const agent of agents.splice(0)) await agent.close();
  expect(await server.waitForIdle(3_000)).toBe(0);
  server.reset();
});
afterAll(() => server.close());

describe('hedged requests', () => {
  it('a slow first copy: the second, sent after delayMs, answers; the first is cancelled', async () => {
    slowThenFast('/tail');
    const started = Date.now();
    const response = await client({ hedge: createHedging({ delayMs: 50 }) })(url('/tail'));
    expect(await response.text()).toBe('fast');
    // Generous: the slow copy would have held the caller for 3 s.
    expect(Date.now() - started).toBeLessThan(2_500);
    expect(server.seen('/tail')).toHaveLength(2);
    expect(getRetryInfo(response)).toMatchObject({ attempts: 1, hedge: { copies: 1, winner: 2 } });
    const slow = server.responses.find((r) => r.path === '/tail' && (r.step as { delayMs?: number }).delayMs);
    await realSleep(50);
    expect(slow?.finished).toBe(false);
  });

  it('a route rule given createHedging hedges its requests; the base policy does not', async () => {
    slowThenFast('/search/tail');
    slowThenFast('/other/tail', { status: 200, body: 'slow', delayMs: 200 });
    const send = client({ routes: [{ match: 'GET /search/*', hedge: createHedging({ delayMs: 30 }) }] });
    const routed = await send(url('/search/tail'));
    expect(await routed.text()).toBe('fast');
    expect(getRetryInfo(routed)).toMatchObject({ route: 'GET /search/*', hedge: { copies: 1, winner: 2 } });
    const plain = await send(url('/other/tail'));
    expect(await plain.text()).toBe('slow');
    expect(getRetryInfo(plain)?.hedge).toBeUndefined();
    expect(server.seen('/other/tail')).toHaveLength(1);
  });

  it('never hedges a POST without an idempotency key; hedges one with a key', async () => {
    slowThenFast('/pay', { status: 200, body: 'slow', delayMs: 300 });
    const send = client({ hedge: createHedging({ delayMs: 20 }) });
    expect(await (await send(url('/pay'), { method: 'POST', body: 'x' })).text()).toBe('slow');
    expect(server.seen('/pay')).toHaveLength(1);
    server.reset();
    slowThenFast('/pay', { status: 200, body: 'slow', delayMs: 3_000 });
    const keyed = await send(url('/pay'), { method: 'POST', body: 'x', headers: { 'idempotency-key': 'k' } });
    expect(await keyed.text()).toBe('fast');
    expect(server.seen('/pay').map((r) => r.body.toString())).toEqual(['x', 'x']);
  });

  it('a final answer from either copy ends the attempt: a 404 wins, the other copy is cancelled', async () => {
    server.route('/gone', [
      { status: 200, body: 'slow', delayMs: 3_000 },
      { status: 404, body: 'no' },
    ]);
    const response = await client({ hedge: createHedging({ delayMs: 20 }) })(url('/gone'));
    expect(response.status).toBe(404);
    expect(getRetryInfo(response)).toMatchObject({ attempts: 1, reason: 'status-not-retryable' });
  });

  it('a retried failure of one copy waits for the other copy', async () => {
    server.route('/half', [
      { status: 503, delayMs: 100 },
      { status: 200, body: 'ok', delayMs: 200 },
    ]);
    const response = await client({ hedge: createHedging({ delayMs: 20 }) })(url('/half'));
    expect(await response.text()).toBe('ok');
    expect(getRetryInfo(response)).toMatchObject({ attempts: 1, retries: [], hedge: { winner: 2 } });
  });

  it('the hedge budget: at most ten hedges held, `ratio` more per request', async () => {
    const send = client({ hedge: createHedging({ delayMs: 20, ratio: 0 }) });
    for (let i = 0; i < 10; i++) {
      slowThenFast(`/a${i}`, { status: 200, body: 'slow', delayMs: 300 });
      expect(await (await send(url(`/a${i}`))).text()).toBe('fast');
      expect(server.seen(`/a${i}`)).toHaveLength(2);
    }
    slowThenFast('/b', { status: 200, body: 'slow', delayMs: 300 });
    expect(await (await send(url('/b'))).text()).toBe('slow');
    expect(server.seen('/b')).toHaveLength(1);
  });

  it("the latency window learns the request's time to its answer, not the winning copy's own", async () => {
    const agent = new Agent();
    agents.push(agent);
    const policy = createRetryPolicy({ random: () => 0.5, hedge: createHedging({ delayMs: 50 }) });
    const send = withRetry(
      (input: RequestInfo | URL, init?: RequestInit) =>
        fetch(input, { ...init, dispatcher: agent } as RequestInit),
      policy,
    );
    slowThenFast('/saved', { status: 200, body: 'slow', delayMs: 300 });
    expect(await (await send(url('/saved'))).text()).toBe('fast');
    const window = policy.options.hedge ? policy.options.hedge.latencies : undefined;
    expect(window?.count).toBe(1);
    // The fast copy went out after the 50 ms delay: the request took at least that long.
    expect(window?.percentile(50)).toBeGreaterThanOrEqual(50);
  });

  it('a percentile delay hedges only once 20 latencies are known', async () => {
    server.route('/quick', [{ status: 200, body: 'q' }]);
    // Every request refills the hedge budget: quick ones slower than p50 hedge too, and it is not under test.
    const send = client({ hedge: createHedging({ delayMs: 'p50', ratio: 1 }) });
    slowThenFast('/early', { status: 200, body: 'slow', delayMs: 300 });
    expect(await (await send(url('/early'))).text()).toBe('slow');
    for (let i = 0; i < 20; i++) await (await send(url('/quick'))).text();
    slowThenFast('/late');
    expect(await (await send(url('/late'))).text()).toBe('fast');
  });

  it('a fetch that throws (not rejects) a network failure for a hedged copy fails that copy; the first still answers', async () => {
    server.route('/thrower', [{ status: 200, body: 'slow', delayMs: 150 }]);
    const agent = new Agent();
    agents.push(agent);
    let calls = 0;
    const throwing: typeof fetch = (input, init) => {
      calls++;
      if (calls === 2) throw new TypeError('Failed to fetch');
      return fetch(input, { ...init, dispatcher: agent } as RequestInit);
    };
    const send = withRetry(
      throwing,
      createRetryPolicy({ hedge: createHedging({ delayMs: 20 }), budget: false }),
    );
    const response = await send(url('/thrower'));
    expect(await response.text()).toBe('slow');
    expect(calls).toBe(2);
    expect(getRetryInfo(response)).toMatchObject({ attempts: 1, hedge: { copies: 1, winner: 1 } });
  });

  it('a copy that throws what is not a network failure (a bug in a fetch wrapper) fails the request with it', async () => {
    server.route('/buggy', [{ status: 200, body: 'slow', delayMs: 150 }]);
    const agent = new Agent();
    agents.push(agent);
    let calls = 0;
    const bug = new TypeError("Cannot read properties of undefined (reading 'headers')");
    const buggy: typeof fetch = (input, init) => {
      calls++;
      if (calls === 2) throw bug;
      return fetch(input, { ...init, dispatcher: agent } as RequestInit);
    };
    const send = withRetry(
      buggy,
      createRetryPolicy({ hedge: createHedging({ delayMs: 20 }), budget: false }),
    );
    const error = await send(url('/buggy')).catch((e: unknown) => e);
    expect(error).toBe(bug);
    expect(getRetryInfo(error)).toMatchObject({
      reason: 'error-not-retryable',
      hedge: { copies: 1, winner: 2 },
    });
  });

  it('the caller’s abort cancels every copy, with its reason', async () => {
    server.route('/stuck', [{ status: 200, body: 'late', delayMs: 3_000 }]);
    const controller = new AbortController();
    const reason = new Error('left');
    const pending = client({ hedge: createHedging({ delayMs: 20 }) })(url('/stuck'), {
      signal: controller.signal,
    }).catch((e: unknown) => e);
    while (server.seen('/stuck').length < 2) await realSleep(5);
    controller.abort(reason);
    expect(await pending).toBe(reason);
  });

  it('invalid hedging is refused naming the option; options instead of createHedging(); a call cannot hedge', () => {
    expect(() => createRetryPolicy({ hedge: { delayMs: 10 } as never })).toThrow(
      /"hedge" must be false or what createHedging\(\{ delayMs \}\) returns/,
    );
    expect(() => createRetryPolicy({ routes: [{ match: '/x', hedge: { delayMs: 10 } as never }] })).toThrow(
      /"routes\[0\]\.hedge" must be false or what createHedging/,
    );
    expect(() => createRetryPolicy({ hedge: createHedging({ delayMs: -1 }) })).toThrow(/"hedge\.delayMs"/);
    expect(() => createRetryPolicy({ hedge: createHedging({ delayMs: 'p100' as never }) })).toThrow(
      /"hedge\.delayMs"/,
    );
    expect(() => createRetryPolicy({ hedge: createHedging({ delayMs: 10, maxAttempts: 1 }) })).toThrow(
      /"hedge\.maxAttempts"/,
    );
    expect(() =>
      createRetryPolicy().begin({ method: 'GET', url: 'https://x/' }, {
        hedge: createHedging({ delayMs: 5 }),
      } as never),
    ).toThrow(/unknown option "jitterbug\.hedge"/);
  });
});
