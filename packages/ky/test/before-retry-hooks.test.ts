/**
 * Your own ky `beforeRetry` hooks under kyRetry, set against ky's own retry: ky's tests of the hook
 * (its test/hooks.ts), told in our words, each run on one ky 2 client with ky's own retry and one
 * with kyRetry, against a real loopback server, expecting the same. ky 1 shows no hook of kyRetry's
 * a call's hooks (it has no `init` hook): there your `beforeRetry` hooks see no retry of jitterbug's
 * (the last test; the policy's `beforeRetry` is the way there).
 */
import { createRequestEdits, createRetryPolicy, type RetryInfo } from '@jitterbug/core';
import ky, {
  type BeforeRetryHook,
  HTTPError,
  isHTTPError,
  isNetworkError,
  isTimeoutError,
  type KyInstance,
  type Options,
} from 'ky';
import ky1 from 'ky1';
import { afterEach, describe, expect, it } from 'vitest';
import { getRetryInfo, type KyAdapterOptions, kyRetry } from '../src/index.ts';
import { errorOf, loopback, recordingSleep } from './helpers.ts';

type Fetch = (input: Request | URL | string, init?: RequestInit) => Promise<Response>;

/** A fetch that fails `failures` times as a browser's does when the network is down, then sends. */
const failingFetch = (failures: number): { fetch: Fetch; calls: () => number } => {
  let calls = 0;
  return {
    fetch: async (input, init) => {
      calls++;
      if (calls <= failures) throw new TypeError('Failed to fetch');
      return globalThis.fetch(input, init);
    },
    calls: () => calls,
  };
};

const { server, newAgent } = loopback();
const summaries: RetryInfo[] = [];
const url = (path: string) => server.url + path;

/** A ky 2 instance with your options added through `extend`, retrying up to twice. */
type Client = (options?: Options, fetch?: Fetch) => KyInstance;

const ownRetry: Client = (options = {}, fetch) =>
  ky
    .create({
      retry: { limit: 2, delay: () => 0 },
      dispatcher: newAgent(),
      ...(fetch ? { fetch } : {}),
    } as Options)
    .extend(options);

const withKyRetry: Client = (options = {}, fetch) => {
  const adapter: KyAdapterOptions = fetch ? { fetch } : {};
  const policy = createRetryPolicy({
    maxAttempts: 3,
    sleep: recordingSleep().sleep,
    onFinish: (info) => void summaries.push(info),
  });
  return ky.create({ ...kyRetry(policy, adapter), dispatcher: newAgent() } as Options).extend(options);
};

afterEach(() => {
  summaries.length = 0;
});

describe.each([
  ['ky’s own retry', ownRetry],
  ['kyRetry', withKyRetry],
] as const)('ky 2, %s', (name, client) => {
  const jitterbug = name === 'kyRetry';

  it('is not called before the first attempt', async () => {
    server.route('/first', [{ status: 200, body: 'ok' }]);
    let calls = 0;
    const api = client({ hooks: { beforeRetry: [() => void calls++] } });
    expect(await api.get(url('/first')).text()).toBe('ok');
    expect(calls).toBe(0);
  });

  it('is called before each retry with ky’s HTTPError and the retry count; headers it sets are sent', async () => {
    server.route('/counted', [{ status: 408 }, { status: 503 }, { status: 200, body: 'ok' }]);
    const shown: { error: unknown; retryCount: number; url: string; method: unknown }[] = [];
    const api = client({
      hooks: {
        beforeRetry: [
          ({ request, options, error, retryCount }) => {
            shown.push({ error, retryCount, url: request.url, method: options.method });
            request.headers.set('x-retry', String(retryCount));
          },
        ],
      },
    });
    expect(await api.get(url('/counted')).text()).toBe('ok');
    expect(shown.map((s) => s.retryCount)).toEqual([1, 2]);
    for (const s of shown) {
      expect(s.error).toBeInstanceOf(HTTPError);
      expect(isHTTPError(s.error)).toBe(true);
      expect(s).toMatchObject({ url: url('/counted'), method: 'GET' });
    }
    expect(shown.map((s) => (s.error as HTTPError).response.status)).toEqual([408, 503]);
    expect(server.seen('/counted').map((r) => r.headers['x-retry'])).toEqual([undefined, '1', '2']);
  });

  it('is called for a network failure with ky’s NetworkError, which has no response', async () => {
    server.route('/net', [{ status: 200, body: 'unicorn' }]);
    const failing = failingFetch(1);
    const shown: unknown[] = [];
    const api = client(
      {
        hooks: {
          beforeRetry: [
            ({ error, retryCount }) => {
              shown.push(error, retryCount, failing.calls());
            },
          ],
        },
      },
      failing.fetch,
    );
    expect(await api.get(url('/net')).text()).toBe('unicorn');
    expect(isNetworkError(shown[0])).toBe(true);
    expect((shown[0] as { response?: unknown }).response).toBeUndefined();
    expect(shown.slice(1)).toEqual([1, 1]);
    expect(failing.calls()).toBe(2);
  });

  describe('error.data, as ky fills it', () => {
    let paths = 0;
    const data = async (
      parseJson: Options['parseJson'],
      headers = { 'content-type': 'application/json' },
    ) => {
      const path = `/data-${paths++}`;
      server.route(path, [
        { status: 502, headers, body: 'text' },
        { status: 200, body: 'ok' },
      ]);
      const shown: HTTPError[] = [];
      const api = client({
        ...(parseJson ? { parseJson } : {}),
        hooks: { beforeRetry: [({ error }) => void shown.push(error as HTTPError)] },
      });
      expect(await api.get(url(path)).text()).toBe('ok');
      expect(shown).toHaveLength(1);
      return shown[0]!;
    };

    it('JSON parsed with parseJson, the message and the response ky gives', async () => {
      const error = await data((text) => ({ awesome: text === 'text' }));
      expect(error.data).toEqual({ awesome: true });
      expect(error.message).toBe(`Request failed with status code 502 Bad Gateway: GET ${url('/data-0')}`);
      expect(error.response).toBeInstanceOf(Response);
    });

    it('an async parseJson awaited; a rejecting one leaves data undefined', async () => {
      expect((await data(async () => ({ awesome: true }))).data).toEqual({ awesome: true });
      expect(
        (
          await data(async () => {
            throw new Error('custom parse failure');
          })
        ).data,
      ).toBeUndefined();
    });

    it('a body that is not JSON is its text', async () => {
      expect((await data(undefined, { 'content-type': 'text/plain' })).data).toBe('text');
    });
  });

  it('ky.stop: no more retries, and the call resolves with undefined, as ky resolves it', async () => {
    server.route('/stop', [{ status: 408 }, { status: 200 }]);
    const counts: number[] = [];
    const api = client({
      hooks: {
        beforeRetry: [
          ({ retryCount }) => {
            counts.push(retryCount);
            return ky.stop;
          },
        ],
      },
    });
    expect(await api.get(url('/stop'))).toBeUndefined();
    expect(counts).toEqual([1]);
    expect(server.seen('/stop')).toHaveLength(1);
    if (jitterbug) expect(summaries).toMatchObject([{ attempts: 1, reason: 'should-retry', status: 408 }]);
  });

  it('a Request returned is sent as the next attempt, whole (another URL, its body), and later hooks are skipped', async () => {
    server.route('/origin', [{ status: 500 }]);
    server.route('/mirror', [{ status: 200, body: 'success' }]);
    let later = 0;
    const api = client({
      hooks: {
        beforeRetry: [
          ({ request }) => {
            const moved = new Request(url('/mirror'), request);
            moved.headers.set('x-first-hook', 'true');
            return moved;
          },
          () => void later++,
        ],
      },
    });
    expect(await api.put(url('/origin'), { json: { n: 1 } }).text()).toBe('success');
    expect(later).toBe(0);
    expect(server.seen('/origin')).toHaveLength(1);
    const [moved] = server.seen('/mirror');
    expect(moved).toMatchObject({ method: 'PUT', headers: { 'x-first-hook': 'true' } });
    expect(moved!.body.toString()).toBe('{"n":1}');
  });

  it('a Response returned is the result: nothing more is sent', async () => {
    server.route('/fallback', [{ status: 500 }]);
    const api = client({ hooks: { beforeRetry: [() => new Response('fallback', { status: 200 })] } });
    const response = await api.get(url('/fallback'));
    expect(await response.text()).toBe('fallback');
    expect(server.seen('/fallback')).toHaveLength(1);
    if (jitterbug) expect(getRetryInfo(response)).toMatchObject({ attempts: 1, reason: 'success' });
  });

  it('a failed Response returned ends as ky’s HTTPError, not retried; beforeError sees one retry', async () => {
    server.route('/fallback-error', [{ status: 500 }]);
    const seen: number[] = [];
    const api = client({
      hooks: {
        beforeRetry: [() => new Response('fallback error', { status: 500 })],
        beforeError: [
          ({ error, retryCount }) => {
            seen.push(retryCount);
            return error;
          },
        ],
      },
    });
    const error = await errorOf(api.get(url('/fallback-error')));
    expect(isHTTPError(error)).toBe(true);
    expect((error as HTTPError).data).toBe('fallback error');
    expect(seen).toEqual([1]);
    expect(server.seen('/fallback-error')).toHaveLength(1);
  });

  it('a hook that throws fails the call with its error, unchanged, and beforeError hooks do not see it', async () => {
    const thrown = new Error('oops');
    let beforeError = 0;
    const failWith = (path: string, hook: BeforeRetryHook): Promise<unknown> => {
      server.route(path, [{ status: 408 }, { status: 200 }]);
      const beforeErrorHook = (state: { error: Error }) => {
        beforeError++;
        return new Error(state.error.message);
      };
      return errorOf(
        client({ hooks: { beforeRetry: [hook], beforeError: [beforeErrorHook] } }).get(url(path)),
      );
    };
    const sync = await failWith('/throws', () => {
      throw thrown;
    });
    const async = await failWith('/rejects', async () => Promise.reject(thrown));
    const notAnError = await failWith('/throws-string', () => {
      throw 'oops';
    });
    expect(sync).toBe(thrown);
    expect(async).toBe(thrown);
    expect(notAnError).toBe('oops');
    expect(beforeError).toBe(0);
    for (const path of ['/throws', '/rejects', '/throws-string']) expect(server.seen(path)).toHaveLength(1);
    if (jitterbug) expect(getRetryInfo(thrown)).toMatchObject({ reason: 'hook-failed', error: thrown });
  });

  it('a hook that throws the error it was shown: the call fails with it, through beforeError hooks', async () => {
    server.route('/rethrow', [{ status: 408 }]);
    const seen: number[] = [];
    const api = client({
      hooks: {
        beforeRetry: [
          ({ error }) => {
            throw error;
          },
        ],
        beforeError: [
          ({ error, retryCount }) => {
            seen.push(retryCount);
            error.message = 'modified by beforeError';
            return error;
          },
        ],
      },
    });
    const error = await errorOf(api.get(url('/rethrow')));
    expect(isHTTPError(error)).toBe(true);
    expect((error as Error).message).toBe('modified by beforeError');
    expect(seen).toEqual([0]);
  });

  it('a network error thrown again reaches beforeError hooks as ky’s NetworkError', async () => {
    const api = client(
      {
        hooks: {
          beforeRetry: [
            ({ error }) => {
              throw error;
            },
          ],
          beforeError: [
            ({ error }) => {
              error.message = 'network, modified by beforeError';
              return error;
            },
          ],
        },
      },
      failingFetch(5).fetch,
    );
    const error = await errorOf(api.get(url('/never')));
    expect(isNetworkError(error)).toBe(true);
    expect((error as Error).message).toBe('network, modified by beforeError');
  });

  it('beforeError hooks see the retries made', async () => {
    server.route('/down', [{ status: 500 }]);
    const seen: number[] = [];
    const api = client({
      hooks: {
        beforeError: [
          ({ error, retryCount }) => {
            seen.push(retryCount);
            return error;
          },
        ],
      },
    });
    expect(await errorOf(api.get(url('/down')))).toBeInstanceOf(HTTPError);
    expect(seen).toEqual([2]);
    expect(server.seen('/down')).toHaveLength(3);
  });

  it('ky’s totalTimeout ends a hook that takes too long: ky’s TimeoutError, nothing more sent', async () => {
    server.route('/slow-hook', [{ status: 500 }, { status: 200 }]);
    let calls = 0;
    const api = client({
      totalTimeout: 300,
      hooks: {
        beforeRetry: [
          async () => {
            calls++;
            await new Promise((resolve) => setTimeout(resolve, 600));
          },
        ],
      },
    });
    expect(isTimeoutError(await errorOf(api.get(url('/slow-hook'))))).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(calls).toBe(1);
    expect(server.seen('/slow-hook')).toHaveLength(1);
  });
});

describe('ky 2 under kyRetry, with the policy’s beforeRetry too', () => {
  it('your hooks see the Request the policy’s hook sent elsewhere, with its body and headers, and what they leave is what goes', async () => {
    server.route('/moving', [{ status: 503 }]);
    server.route('/moved', [{ status: 200, body: 'ok' }]);
    const shown: string[] = [];
    const policy = createRetryPolicy({
      maxAttempts: 3,
      methods: ['POST'],
      sleep: recordingSleep().sleep,
      requestEdits: createRequestEdits(),
      beforeRetry: (next) => {
        next.url = url('/moved');
        next.headers.set('x-policy', 'set');
        next.headers.set('x-dropped', 'set');
      },
    });
    const api = ky.create({ ...kyRetry(policy), dispatcher: newAgent() } as Options).extend({
      hooks: {
        beforeRetry: [
          async ({ request }) => {
            shown.push(`${request.method} ${request.url} ${await request.clone().text()}`);
            shown.push(`${request.headers.get('x-policy')} ${request.headers.get('x-dropped')}`);
            request.headers.set('x-hook', 'yes');
            request.headers.delete('x-dropped');
          },
        ],
      },
    });
    expect(await api.post(url('/moving'), { json: { n: 1 } }).text()).toBe('ok');
    expect(shown).toEqual([`POST ${url('/moved')} {"n":1}`, 'set set']);
    expect(server.seen('/moving').map((r) => r.body.toString())).toEqual(['{"n":1}']);
    const [moved] = server.seen('/moved');
    expect(moved).toMatchObject({ method: 'POST', headers: { 'x-hook': 'yes', 'x-policy': 'set' } });
    expect(moved!.headers['x-dropped']).toBeUndefined();
    expect(moved!.body.toString()).toBe('{"n":1}');
  });
});

describe('ky 1 under kyRetry', () => {
  it('shows a call’s hooks to no hook of kyRetry’s: your beforeRetry hooks see no retry of jitterbug’s', async () => {
    server.route('/ky1', [{ status: 503 }, { status: 200, body: 'ok' }]);
    let calls = 0;
    const api = (ky1 as unknown as typeof ky)
      .create({ ...kyRetry({ sleep: recordingSleep().sleep }), dispatcher: newAgent() } as Options)
      .extend({ hooks: { beforeRetry: [() => void calls++] } });
    expect(await api.get(url('/ky1')).text()).toBe('ok');
    expect(calls).toBe(0);
    expect(server.seen('/ky1')).toHaveLength(2);
  });
});
