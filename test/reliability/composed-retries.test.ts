/**
 * jitterbug composed with each client's own retry (undici's `interceptors.retry()` and `RetryAgent`,
 * ky's `retry`, axios-retry, fetch-retry) and with a second jitterbug layer, in each order, against a
 * real server on 127.0.0.1 that answers 503 forever, resets every connection, or never answers
 * (issue 32). Every request settles within its deadline, and the server's own log says how many
 * requests each composition sends, which says who decided: jitterbug's outer layer 3 attempts, its
 * inner layer 5, a peer 4 (3 retries); a product (12) is two layers each retrying.
 *
 * The table the READMEs give ("nested layers") is this one: undici's retry and jitterbug, the outer
 * one decides (jitterbug over a `RetryAgent`, which cannot be told to pass on, is refused with a
 * `TypeError`); two jitterbug layers, the outer decides; another library's retry over or under
 * jitterbug nests, as it would over any retrying fetch.
 */
import { attachRetry } from '@jitterbug/axios';
import type { RetryOptions } from '@jitterbug/core';
import { withRetry } from '@jitterbug/fetch';
import { kyRetry } from '@jitterbug/ky';
import { retryInterceptor } from '@jitterbug/undici';
import axios, { type AxiosInstance } from 'axios';
import axiosRetry from 'axios-retry';
import fetchRetry from 'fetch-retry';
import ky from 'ky';
import * as undici8 from 'undici';
import * as undici7 from 'undici7';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedServer, type Step, startScriptedServer } from '../support/scripted-server.ts';
import { withTimeout } from './support.ts';

/** Each attempt's bound, jitterbug's `attemptTimeoutMs` (undici's `headersTimeout` is twice that). */
const ATTEMPT_MS = 600;
/** No real waits; no budget, which would stop a product (12) early. */
const OUTER: RetryOptions = {
  maxAttempts: 3,
  sleep: async () => {},
  budget: false,
  attemptTimeoutMs: ATTEMPT_MS,
};
const INNER: RetryOptions = {
  maxAttempts: 5,
  sleep: async () => {},
  budget: false,
  attemptTimeoutMs: ATTEMPT_MS,
};
/** A peer's retries: 4 requests in all. */
const PEER_RETRIES = 3;
/** Past the slowest composition here (12 stalled attempts), well within the test's own timeout. */
const DEADLINE_MS = 16 * ATTEMPT_MS;

const FAULTS = {
  '503': [{ status: 503, body: 'down' }],
  reset: [{ destroy: 'before-headers' }],
  stall: [{ status: 200, held: true }],
} satisfies Record<string, Step[]>;
type Fault = keyof typeof FAULTS;

/** Per fault: the requests the server saw, and how the call settled (`status N`, or the error's code). */
type Expected = Readonly<Record<Fault, readonly [sent: number, outcome: string]>>;

interface Composition {
  readonly client: string;
  readonly chain: string;
  /** Sends one GET; resolves with `status N` once the body is read. */
  readonly send: (url: string) => Promise<string>;
  readonly expected: Expected;
}

let server: ScriptedServer;
const closers: Array<() => Promise<unknown>> = [];
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(async () => {
  for (const close of closers) await close();
  await server.close();
});

type Undici = typeof undici8;
const agentOf = (u: Undici): undici8.Agent => {
  const agent = new u.Agent({ headersTimeout: 2 * ATTEMPT_MS });
  closers.push(() => agent.destroy());
  return agent;
};
const jitterbug = (options: RetryOptions = OUTER) => retryInterceptor(options) as never;
const undiciRetry = (u: Undici) =>
  u.interceptors.retry({ maxRetries: PEER_RETRIES, minTimeout: 1, maxTimeout: 1 });
const retryAgent = (u: Undici, agent: undici8.Dispatcher) =>
  new u.RetryAgent(agent, { maxRetries: PEER_RETRIES, minTimeout: 1, maxTimeout: 1 });

const status = async (response: { status: number; arrayBuffer(): Promise<unknown> }): Promise<string> => {
  await response.arrayBuffer();
  return `status ${response.status}`;
};

type Call = (url: string, dispatcher: undici8.Dispatcher) => Promise<string>;
const CALLS: ReadonlyArray<readonly [string, Undici, Call]> = (
  [
    ['undici 8', undici8],
    ['undici 7', undici7 as unknown as Undici],
  ] as const
).flatMap(
  ([name, u]): Array<readonly [string, Undici, Call]> => [
    [
      `${name} request()`,
      u,
      async (url, dispatcher) => {
        const { statusCode, body } = await u.request(url, { dispatcher });
        await body.dump();
        return `status ${statusCode}`;
      },
    ],
    [`${name} fetch()`, u, async (url, dispatcher) => status(await u.fetch(url, { dispatcher }))],
    [
      `Node’s fetch, ${name} agent`,
      u,
      async (url, dispatcher) => status(await fetch(url, { dispatcher } as RequestInit)),
    ],
  ],
);

/** Who decides, as the server counts it. */
const UNDICI_DECIDES: Expected = {
  '503': [PEER_RETRIES + 1, 'UND_ERR_REQ_RETRY'],
  reset: [PEER_RETRIES + 1, 'UND_ERR_SOCKET'],
  // jitterbug's attemptTimeoutMs is the inner layer's: undici's headersTimeout ends it, not retried.
  stall: [1, 'UND_ERR_HEADERS_TIMEOUT'],
};
const JITTERBUG_DECIDES: Expected = {
  '503': [3, 'status 503'],
  reset: [3, 'UND_ERR_SOCKET'],
  stall: [3, 'ERR_JITTERBUG_ATTEMPT_TIMEOUT'],
};
const REFUSED: Expected = { '503': [0, 'TypeError'], reset: [0, 'TypeError'], stall: [0, 'TypeError'] };

const undiciCompositions = CALLS.flatMap(([client, u, call]): Composition[] => [
  {
    client,
    chain: 'compose(retryInterceptor(), interceptors.retry())',
    send: (url) => call(url, agentOf(u).compose(jitterbug(), undiciRetry(u))),
    expected: UNDICI_DECIDES,
  },
  {
    client,
    chain: 'new RetryAgent(agent.compose(retryInterceptor()))',
    send: (url) => call(url, retryAgent(u, agentOf(u).compose(jitterbug()))),
    expected: UNDICI_DECIDES,
  },
  {
    client,
    chain: 'compose(interceptors.retry(), retryInterceptor())',
    send: (url) => call(url, agentOf(u).compose(undiciRetry(u), jitterbug())),
    expected: JITTERBUG_DECIDES,
  },
  {
    client,
    chain: 'new RetryAgent(agent).compose(retryInterceptor())',
    send: (url) => call(url, retryAgent(u, agentOf(u)).compose(jitterbug())),
    expected: REFUSED,
  },
  {
    client,
    chain: 'compose(retryInterceptor(inner), retryInterceptor(outer))',
    send: (url) => call(url, agentOf(u).compose(jitterbug(INNER), jitterbug(OUTER))),
    expected: JITTERBUG_DECIDES,
  },
]);

const kyPeer = { limit: PEER_RETRIES, delay: () => 0 };
/** ky's own retry, set after kyRetry() as a user might (typed apart: TypeScript sees it overwrite). */
const PEER_RETRY: { retry: typeof kyPeer } = { retry: kyPeer };
const viaDispatcher =
  (options: RetryOptions = INNER) =>
  (input: string | URL | Request, init?: RequestInit) =>
    fetch(input, { ...init, dispatcher: agentOf(undici8).compose(jitterbug(options)) } as RequestInit);
const axiosGet = (api: AxiosInstance) => async (url: string) => `status ${(await api.get(url)).status}`;
const withAxiosRetry = (api: AxiosInstance): AxiosInstance => {
  axiosRetry(api, { retries: PEER_RETRIES, retryDelay: () => 0 });
  return api;
};
const attached = (api: AxiosInstance, options: RetryOptions = OUTER): AxiosInstance => {
  attachRetry(api, options);
  return api;
};
const peerFetchRetry = (f: typeof fetch): typeof fetch =>
  fetchRetry(f, { retries: PEER_RETRIES, retryDelay: 0, retryOn: [503] }) as typeof fetch;

/** Two layers that each retry: every attempt of the outer one is a run of the inner one. */
const nested = (
  outer: number,
  inner: number,
  outcome: Record<Fault, string>,
  stall = outer * inner,
): Expected => ({
  '503': [outer * inner, outcome['503']],
  reset: [outer * inner, outcome.reset],
  stall: [stall, outcome.stall],
});
const FETCH_OUTCOMES = {
  '503': 'status 503',
  reset: 'UND_ERR_SOCKET',
  stall: 'ERR_JITTERBUG_ATTEMPT_TIMEOUT',
};

/** ky throws its HTTPError for the last 503, as it does for any error status. */
const KY_JITTERBUG_DECIDES: Expected = { ...JITTERBUG_DECIDES, '503': [3, 'HTTPError'] };
/** axios-retry retries each of jitterbug's failed runs (axios rejects a 503 by its `validateStatus`). */
const AXIOS_RETRY_NESTED = nested(PEER_RETRIES + 1, 3, {
  '503': 'ERR_BAD_RESPONSE',
  reset: 'ECONNRESET',
  stall: 'ERR_JITTERBUG_ATTEMPT_TIMEOUT',
});

const otherCompositions: Composition[] = [
  {
    client: 'withRetry',
    chain: 'withRetry(withRetry(fetch))',
    send: async (url) => status(await withRetry(withRetry(fetch, INNER), OUTER)(url)),
    expected: JITTERBUG_DECIDES,
  },
  {
    client: 'withRetry',
    chain: 'withRetry over Node’s fetch, dispatcher composed with retryInterceptor()',
    send: async (url) => status(await withRetry(viaDispatcher(), OUTER)(url)),
    expected: JITTERBUG_DECIDES,
  },
  {
    client: 'withRetry',
    chain: 'fetchRetry(withRetry(fetch))',
    send: async (url) => status(await peerFetchRetry(withRetry(fetch, OUTER))(url)),
    expected: nested(PEER_RETRIES + 1, 3, FETCH_OUTCOMES),
  },
  {
    client: 'withRetry',
    chain: 'withRetry(fetchRetry(fetch))',
    // jitterbug's attemptTimeoutMs bounds fetch-retry's whole call, its 4 requests (so longer here),
    // and ends it on a stall: fetch-retry does not retry an abort.
    send: async (url) =>
      status(await withRetry(peerFetchRetry(fetch), { ...OUTER, attemptTimeoutMs: 4 * ATTEMPT_MS })(url)),
    expected: nested(3, PEER_RETRIES + 1, FETCH_OUTCOMES, 3),
  },
  {
    client: 'ky',
    chain: 'kyRetry(options, { fetch: withRetry(fetch) })',
    send: async (url) => status(await ky.create(kyRetry(OUTER, { fetch: withRetry(fetch, INNER) })).get(url)),
    expected: KY_JITTERBUG_DECIDES,
  },
  {
    client: 'ky',
    chain: 'kyRetry(options, { fetch }), fetch through a retryInterceptor() dispatcher',
    send: async (url) => status(await ky.create(kyRetry(OUTER, { fetch: viaDispatcher() })).get(url)),
    expected: KY_JITTERBUG_DECIDES,
  },
  {
    client: 'ky',
    chain: '{ retry, ...kyRetry() }: kyRetry turns ky’s retry off',
    send: async (url) => status(await ky.create({ ...PEER_RETRY, ...kyRetry(OUTER) }).get(url)),
    expected: KY_JITTERBUG_DECIDES,
  },
  {
    client: 'ky',
    chain: '{ ...kyRetry(), retry }: refused',
    send: async (url) => status(await ky.create({ ...kyRetry(OUTER), ...PEER_RETRY }).get(url)),
    expected: REFUSED,
  },
  {
    client: 'ky',
    chain: 'ky’s retry over withRetry(fetch)',
    send: async (url) => status(await ky.create({ fetch: withRetry(fetch, OUTER), retry: kyPeer }).get(url)),
    // ky does not retry jitterbug's AttemptTimeoutError (not a network error to ky).
    expected: nested(PEER_RETRIES + 1, 3, { ...FETCH_OUTCOMES, '503': 'HTTPError' }, 3),
  },
  {
    client: 'ky',
    chain: 'ky’s retry over Node’s fetch, dispatcher composed with retryInterceptor()',
    send: async (url) => status(await ky.create({ fetch: viaDispatcher(OUTER), retry: kyPeer }).get(url)),
    // Through fetch, the attempt timeout is fetch's TypeError, which ky retries.
    expected: nested(PEER_RETRIES + 1, 3, { ...FETCH_OUTCOMES, '503': 'HTTPError' }),
  },
  {
    client: 'axios',
    chain: 'attachRetry, then axiosRetry',
    send: (url) => axiosGet(withAxiosRetry(attached(axios.create())))(url),
    expected: AXIOS_RETRY_NESTED,
  },
  {
    client: 'axios',
    chain: 'axiosRetry, then attachRetry',
    send: (url) => axiosGet(attached(withAxiosRetry(axios.create())))(url),
    expected: AXIOS_RETRY_NESTED,
  },
  {
    client: 'axios',
    chain: 'attachRetry, fetch adapter through a retryInterceptor() dispatcher',
    send: (url) =>
      axiosGet(
        attached(
          axios.create({
            adapter: 'fetch',
            fetchOptions: { dispatcher: agentOf(undici8).compose(jitterbug(INNER)) } as RequestInit,
          }),
        ),
      )(url),
    expected: {
      '503': [3, 'ERR_BAD_RESPONSE'],
      reset: [3, 'UND_ERR_SOCKET'],
      stall: [3, 'ERR_JITTERBUG_ATTEMPT_TIMEOUT'],
    },
  },
  {
    client: 'axios',
    chain: 'axiosRetry, fetch adapter through a retryInterceptor() dispatcher',
    send: (url) =>
      axiosGet(
        withAxiosRetry(
          axios.create({
            adapter: 'fetch',
            fetchOptions: { dispatcher: agentOf(undici8).compose(jitterbug(OUTER)) } as RequestInit,
          }),
        ),
      )(url),
    expected: nested(PEER_RETRIES + 1, 3, {
      '503': 'ERR_BAD_RESPONSE',
      reset: 'UND_ERR_SOCKET',
      stall: 'ERR_JITTERBUG_ATTEMPT_TIMEOUT',
    }),
  },
];

/** The error's own code, else the innermost cause's (fetch and ky wrap what failed), else its name. */
const codeOf = (error: unknown): { code: string; message: string } => {
  let e = error as { code?: unknown; name?: string; message?: string; cause?: unknown };
  let code = typeof e.code === 'string' ? e.code : undefined;
  while (e.cause !== undefined && typeof e.cause === 'object' && e.cause !== null) {
    e = e.cause as typeof e;
    if (typeof e.code === 'string') code = e.code;
  }
  return { code: code ?? e.name ?? String(e), message: String(e.message) };
};

const FIX = 'new RetryAgent(new Agent().compose(retryInterceptor(options)))';

let paths = 0;
describe.concurrent.each([...undiciCompositions, ...otherCompositions])(
  '$client: $chain',
  ({ send, expected }) => {
    it.each(Object.keys(FAULTS) as Fault[])('%s: settles; the server sees who decided', async (fault) => {
      const path = `/composed-${paths++}`;
      server.route(path, FAULTS[fault]);
      const [sent, outcome] = expected[fault];
      const settled = await withTimeout(
        send(`${server.url}${path}`).then(
          (ok) => ({ outcome: ok, message: '' }),
          (error: unknown) => {
            const { code, message } = codeOf(error);
            return { outcome: code, message };
          },
        ),
        DEADLINE_MS,
        () => `pending after ${DEADLINE_MS} ms, ${server.seen(path).length} requests sent`,
      );
      expect({ outcome: settled.outcome, sent: server.seen(path).length }).toEqual({ outcome, sent });
      if (outcome === 'TypeError' && sent === 0 && !settled.message.includes('kyRetry')) {
        expect(settled.message).toContain(FIX);
      }
    });
  },
);
