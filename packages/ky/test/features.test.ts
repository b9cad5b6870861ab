/**
 * What ky users rely on, through kyRetry on ky 2 and ky 1: forced retries from `afterResponse`
 * (`ky.retry()`), a call's own overrides (`jitterbug`), their hooks, a fetch that fails without an
 * error code (as browsers' does), and hooks that answer with promises.
 */
import { createRetryPolicy, type RetryInfo, type RetryPolicyOptions } from '@jitterbug/core';
import type { Options } from 'ky';
import { describe, expect, it } from 'vitest';
import { createForcedRetries, getRetryInfo, type KyAdapterOptions, kyRetry } from '../src/index.ts';
import { errorOf, kys, loopback, recordingSleep } from './helpers.ts';

/** The response an afterResponse hook got: ky 1 passes `(request, options, response)`, ky 2 `{ response }`. */
const afterResponseOf = (args: readonly unknown[]): Response =>
  Object.prototype.toString.call(args[0]) === '[object Request]'
    ? (args[2] as Response)
    : (args[0] as { response: Response }).response;

describe.each(kys)('%s', (name, ky) => {
  const { server, newAgent } = loopback();
  let waits: number[] = [];

  const client = (
    extra: RetryPolicyOptions = {},
    kyOptions: Options = {},
    adapter: KyAdapterOptions = {},
  ) => {
    const recorder = recordingSleep();
    waits = recorder.waits;
    const agent = newAgent();
    // Your own hooks go through extend (a spread `hooks` would replace kyRetry's).
    return ky
      .create({
        ...kyRetry(createRetryPolicy({ random: () => 0.5, sleep: recorder.sleep, ...extra }), adapter),
        dispatcher: agent,
      } as Options)
      .extend(kyOptions);
  };
  const url = (path: string) => server.url + path;

  describe('forced retries: ky.retry() from an afterResponse hook', () => {
    /** An afterResponse hook that forces a retry while the body says RATE_LIMIT. */
    const rateLimitHook = (delay?: number) => ({
      hooks: {
        afterResponse: [
          async (...args: unknown[]) => {
            const response = afterResponseOf(args);
            const body = (await response.clone().json()) as { error?: { code?: string } };
            if (body.error?.code === 'RATE_LIMIT') return ky.retry(delay === undefined ? {} : { delay });
            return undefined;
          },
        ],
      },
    });
    const limited = '{"error":{"code":"RATE_LIMIT"}}';
    const FORCED: KyAdapterOptions = { forcedRetries: createForcedRetries() };

    it('is sent, after the policy delay, counted and reported as forced', async () => {
      server.route('/rl', [
        { status: 200, body: limited },
        { status: 200, body: '{"ok":true}' },
      ]);
      const response = await client({}, rateLimitHook() as Options, FORCED).get(url('/rl'));
      expect(await response.json()).toEqual({ ok: true });
      expect(server.seen('/rl')).toHaveLength(2);
      expect(waits).toEqual([50]); // full jitter, random 0.5, base 100
      expect(getRetryInfo(response)).toMatchObject({ attempts: 2, retries: ['forced'], reason: 'success' });
    });

    it('waits the delay ky.retry({ delay }) gives (once: ky waits it, jitterbug counts it)', async () => {
      server.route('/rl-delay', [
        { status: 200, body: limited },
        { status: 200, body: '{"ok":true}' },
      ]);
      const response = await client({}, rateLimitHook(20) as Options, FORCED).get(url('/rl-delay'));
      expect(waits).toEqual([]);
      expect(getRetryInfo(response)).toMatchObject({ attempts: 2, totalDelayMs: 20 });
    });

    it('stops at maxAttempts: the caller gets ky’s ForceRetryError and the run ends as a failure', async () => {
      server.route('/rl-always', [{ status: 200, body: limited }]);
      const finished: RetryInfo[] = [];
      const error = await errorOf(
        client({ maxAttempts: 2, onFinish: (i) => finished.push(i) }, rateLimitHook() as Options, FORCED).get(
          url('/rl-always'),
        ),
      );
      expect(error).toMatchObject({ name: 'ForceRetryError' });
      expect(server.seen('/rl-always')).toHaveLength(2);
      expect(finished.at(-1)).toMatchObject({ attempts: 2, reason: 'max-attempts', outcome: 'failure' });
      expect(getRetryInfo(error)).toBe(finished.at(-1));
    });

    it('draws on the retry budget', async () => {
      server.route('/rl-budget', [{ status: 200, body: limited }]);
      const error = await errorOf(
        client({ maxAttempts: 5, budget: { burst: 1, ratio: 0 } }, rateLimitHook() as Options, FORCED).get(
          url('/rl-budget'),
        ),
      );
      expect(error).toMatchObject({ name: 'ForceRetryError' });
      expect(server.seen('/rl-budget')).toHaveLength(2);
      expect(getRetryInfo(error)).toMatchObject({ reason: 'budget-exhausted' });
    });

    it('needs forcedRetries: without it ky sends the call once and rejects a forced retry itself', async () => {
      server.route('/rl-off', [
        { status: 200, body: limited },
        { status: 200, body: '{"ok":true}' },
      ]);
      const error = await errorOf(client({}, rateLimitHook() as Options).get(url('/rl-off')));
      expect(error).toMatchObject({ name: 'ForceRetryError' });
      expect(server.seen('/rl-off')).toHaveLength(1);
    });

    it('ky’s own retry limit is 0 without forcedRetries (ky copies no request for a retry of its own)', () => {
      expect(kyRetry().retry).toBe(0);
      expect(kyRetry().hooks.beforeRetry).toBeUndefined();
      expect(kyRetry(createRetryPolicy({ maxAttempts: 4 }), FORCED).retry).toMatchObject({
        limit: 4,
        methods: [],
      });
      for (const value of [true, 'yes', {}]) {
        expect(() => kyRetry({}, { forcedRetries: value as never })).toThrow(
          /option "forcedRetries" must be false or what createForcedRetries\(\) returns/,
        );
      }
      expect(kyRetry({}, { forcedRetries: false }).hooks.beforeRetry).toBeUndefined();
    });
  });

  describe('a call’s own overrides', () => {
    it('jitterbug: { maxAttempts } for one call', async () => {
      server.route('/down', [{ status: 503 }]);
      const api = client({ maxAttempts: 2 });
      await errorOf(api.get(url('/down'), { jitterbug: { maxAttempts: 4 } }));
      expect(server.seen('/down')).toHaveLength(4);
      server.reset();
      server.route('/down', [{ status: 503 }]);
      await errorOf(api.get(url('/down')));
      expect(server.seen('/down')).toHaveLength(2);
    });

    it('jitterbug: false sends the call once', async () => {
      server.route('/once', [{ status: 503 }, { status: 200 }]);
      const error = await errorOf(client().get(url('/once'), { jitterbug: false }));
      expect(server.seen('/once')).toHaveLength(1);
      expect(getRetryInfo(error)).toMatchObject({ reason: 'retry-disabled', attempts: 1 });
    });

    it('invalid overrides reject the call with a TypeError naming the field, and nothing is sent', async () => {
      const error = await errorOf(client().get(url('/bad'), { jitterbug: { maxAttempts: 0 } }));
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toContain('"jitterbug.maxAttempts"');
      expect(server.seen('/bad')).toHaveLength(0);
    });
  });

  describe('ky’s retry option set again after kyRetry()', () => {
    it.each([
      ['a number on the call', { retry: 2 }],
      ['a limit on the instance (ky fills in its own methods)', { retry: { limit: 3 } }],
      ['a limit and methods on the instance', { retry: { limit: 3, methods: ['get'] } }],
    ] as const)(
      '%s: the call rejects with a TypeError naming it, and nothing is sent',
      async (_case, options) => {
        server.route('/twice', [{ status: 503 }]);
        const api = client({}, options as Options);
        const error = await errorOf(api.get(url('/twice')));
        expect(error).toBeInstanceOf(TypeError);
        expect((error as Error).message).toContain('"retry"');
        expect(server.seen('/twice')).toHaveLength(0);
      },
    );

    it('methods alone: accepted where ky keeps its limit at 0 (ky 2), refused where they bring back its default limit (ky 1)', async () => {
      server.route('/methods', [{ status: 503 }, { status: 200, body: 'ok' }]);
      const api = client({ maxAttempts: 2 }, { retry: { methods: ['get'] } } as Options);
      if (name === 'ky 2') {
        expect(await api.get(url('/methods')).text()).toBe('ok');
        expect(server.seen('/methods')).toHaveLength(2);
      } else {
        expect(await errorOf(api.get(url('/methods')))).toBeInstanceOf(TypeError);
        expect(server.seen('/methods')).toHaveLength(0);
      }
    });

    it('with forcedRetries, a limit alone (no methods) is accepted: it caps forced retries', async () => {
      server.route('/limit', [{ status: 503 }, { status: 200, body: 'ok' }]);
      const api = client({}, { retry: { limit: 5 } } as Options, { forcedRetries: createForcedRetries() });
      expect(await api.get(url('/limit')).text()).toBe('ok');
      expect(server.seen('/limit')).toHaveLength(2);
    });

    it('without forcedRetries, a limit without methods is refused: ky would make forced retries no run decides', async () => {
      server.route('/limit-off', [{ status: 200, body: 'ok' }]);
      const api = client({}, { retry: { limit: 5, methods: [] } } as Options);
      const error = await errorOf(api.get(url('/limit-off')));
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toContain(
        'kyRetry(options, { forcedRetries: createForcedRetries() })',
      );
      expect(server.seen('/limit-off')).toHaveLength(0);
    });
  });

  describe('ky’s fetch option set after kyRetry()', () => {
    const spy = () => {
      const calls: string[] = [];
      const fetch = async (input: Request | URL | string, init?: RequestInit): Promise<Response> => {
        calls.push(String(input instanceof Request ? input.url : input));
        return globalThis.fetch(input, init);
      };
      return { fetch, calls };
    };
    const refused = async (call: Promise<unknown>, calls: string[], path: string) => {
      const error = await errorOf(call);
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toContain('"fetch"');
      expect((error as Error).message).toContain('kyRetry(options, { fetch })');
      expect(calls).toEqual([]);
      expect(server.seen(path)).toHaveLength(0);
    };

    it('through extend, in ky.create after the spread, or on a call: refused before anything is sent', async () => {
      server.route('/bypass', [{ status: 503 }, { status: 200 }]);
      const mine = spy();
      const agent = newAgent();
      await refused(client().extend({ fetch: mine.fetch }).get(url('/bypass')), mine.calls, '/bypass');
      const created = ky.create({ ...kyRetry(), dispatcher: agent, fetch: mine.fetch } as Options);
      await refused(created.get(url('/bypass')), mine.calls, '/bypass');
      await refused(client().get(url('/bypass'), { fetch: mine.fetch }), mine.calls, '/bypass');
    });

    it('given to kyRetry it is the one each attempt calls', async () => {
      server.route('/own-fetch', [{ status: 503 }, { status: 200, body: 'ok' }]);
      const mine = spy();
      expect(await client({}, {}, { fetch: mine.fetch }).get(url('/own-fetch')).text()).toBe('ok');
      expect(mine.calls).toHaveLength(2);
    });

    it('another kyRetry() over the first is no bypass: the last one retries, alone', async () => {
      server.route('/twice-wrapped', [{ status: 503 }]);
      const summaries: RetryInfo[] = [];
      const api = client({ maxAttempts: 4 }).extend(
        kyRetry({ maxAttempts: 2, sleep: recordingSleep().sleep, onFinish: (s) => void summaries.push(s) }),
      );
      expect(await errorOf(api.get(url('/twice-wrapped')))).toMatchObject({ name: 'HTTPError' });
      expect(server.seen('/twice-wrapped')).toHaveLength(2);
      expect(summaries).toMatchObject([{ attempts: 2, reason: 'max-attempts' }]);
    });
  });

  describe('your hooks', () => {
    it('beforeRequest and afterResponse run once per call and see only the final response; beforeRetry sees jitterbug’s retries (ky 2) or none (ky 1)', async () => {
      server.route('/hooked', [{ status: 408 }, { status: 503 }, { status: 200, body: 'done' }]);
      const seen = { beforeRequest: 0, afterResponse: [] as number[], beforeRetry: [] as unknown[] };
      const api = client({}, {
        hooks: {
          beforeRequest: [() => void seen.beforeRequest++],
          afterResponse: [(...args: unknown[]) => void seen.afterResponse.push(afterResponseOf(args).status)],
          beforeRetry: [(state: { error: unknown }) => void seen.beforeRetry.push(state.error)],
        },
      } as Options);
      expect(await api.get(url('/hooked')).text()).toBe('done');
      expect(seen).toMatchObject({ beforeRequest: 1, afterResponse: [200] });
      // ky 1 has no init hook: no hook of kyRetry's sees a call's hooks there.
      const statuses = seen.beforeRetry.map((error) => (error as { response: Response }).response.status);
      expect(statuses).toEqual(name === 'ky 2' ? [408, 503] : []);
    });

    it('a final status still ends as ky’s HTTPError, with the response and the summary', async () => {
      server.route('/gone', [{ status: 503 }, { status: 404, body: 'nope' }]);
      const error = await errorOf(client().get(url('/gone')));
      expect(error).toMatchObject({ name: 'HTTPError', response: { status: 404 } });
      expect(getRetryInfo(error)).toMatchObject({ attempts: 2, reason: 'status-not-retryable', status: 404 });
    });
  });

  describe('a fetch that fails without an error code (browsers, Deno, workerd)', () => {
    const failingFetch = (failures: number) => {
      let calls = 0;
      const fetch = async (input: Request | URL | string, init?: RequestInit): Promise<Response> => {
        calls++;
        if (calls <= failures) throw new TypeError('Failed to fetch');
        return globalThis.fetch(input, init);
      };
      return { fetch, calls: () => calls };
    };

    it('a GET is retried like any network error', async () => {
      server.route('/flaky-net', [{ status: 200, body: 'ok' }]);
      const failing = failingFetch(2);
      const response = await client({}, {}, { fetch: failing.fetch }).get(url('/flaky-net'));
      expect(await response.text()).toBe('ok');
      expect(failing.calls()).toBe(3);
      expect(getRetryInfo(response)).toMatchObject({ attempts: 3, retries: ['error', 'error'] });
    });

    it('a POST without a key is not, and the caller gets ky’s network error', async () => {
      const failing = failingFetch(1);
      const error = await errorOf(
        client({}, {}, { fetch: failing.fetch }).post(url('/charge'), { body: 'x' }),
      );
      expect(failing.calls()).toBe(1);
      expect(getRetryInfo(error)).toMatchObject({ reason: 'method-not-idempotent' });
    });

    it('a malformed request is the caller’s to fix: not retried', async () => {
      let calls = 0;
      const fetch = async (): Promise<Response> => {
        calls++;
        throw new TypeError('Failed to fetch');
      };
      // A header value fetch refuses: a second Request made from the same input fails too.
      const error = await errorOf(
        client({}, {}, { fetch })
          .get(url('/x'), { headers: { 'x-ok': 'fine' } })
          .then(() => {
            throw new Error('unexpected');
          }),
      );
      expect(error).toBeDefined();
      expect(calls).toBeGreaterThan(0);
    });
  });

  describe('hooks that answer with promises', () => {
    it('an async shouldRetry that resolves false stops the retry', async () => {
      server.route('/async-no', [{ status: 503 }, { status: 200 }]);
      const error = await errorOf(client({ shouldRetry: async () => false }).get(url('/async-no')));
      expect(server.seen('/async-no')).toHaveLength(1);
      expect(getRetryInfo(error)).toMatchObject({ reason: 'should-retry' });
    });

    it('a shouldRetry that rejects fails the call with its error', async () => {
      server.route('/async-boom', [{ status: 503 }, { status: 200 }]);
      const boom = new Error('hook failed');
      const error = await errorOf(
        client({ shouldRetry: () => Promise.reject(boom) }).get(url('/async-boom')),
      );
      expect(error).toBe(boom);
      expect(server.seen('/async-boom')).toHaveLength(1);
    });

    it('an async onRetry is awaited before the wait', async () => {
      server.route('/async-on-retry', [{ status: 503 }, { status: 200 }]);
      const order: string[] = [];
      const api = client({
        onRetry: async () => {
          await new Promise((resolve) => setTimeout(resolve, 10));
          order.push('onRetry');
        },
        sleep: async () => void order.push('sleep'),
      });
      await api.get(url('/async-on-retry'));
      expect(order).toEqual(['onRetry', 'sleep']);
    });
  });
});
