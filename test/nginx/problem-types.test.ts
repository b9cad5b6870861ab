/**
 * RateLimit problem types (draft-ietf-httpapi-ratelimit-headers, §5) in `application/problem+json`
 * bodies that a real nginx writes itself, through every client over TLS, default jitterbug options
 * with a virtual clock and sleep (`test/conformance/virtual-time.ts`) and no jitter: a wait costs no
 * time and is read back exactly. nginx answers `/quota/` (429 `quota-exceeded`), `/abuse/` (429
 * `abnormal-usage-detected` with `Retry-After: 1`) and `/plain/` (429 `quota-exceeded` served as
 * plain `application/json`) with `return`; `/reports/` proxies to the Node backend and turns the
 * backend's 503 into its own `temporary-reduced-capacity` problem with `Retry-After: 1`
 * (`proxy_intercept_errors` and an `error_page` to a named location, which keeps the request's
 * path in the log), so the backend's next 200 is what the retry gets. Each checked in nginx's
 * access log, and in the backend's record where there is a backend.
 */
import { DEFAULTS } from '@jitterbug/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConformanceOutcome } from '../conformance/driver.ts';
import type { VirtualTime } from '../conformance/virtual-time.ts';
import type { NginxSetup } from '../support/nginx/config.ts';
import { CLIENTS, type ClientName } from '../support/node-clients.ts';
import { ending } from '../support/sent.ts';
import type { Stack } from './stack.ts';
import { startVirtualScenario, type VirtualScenario } from './virtual-scenario.ts';

const TYPES = 'https://iana.org/assignments/http-problem-types#';
const problem = (type: string, title: string): string =>
  JSON.stringify({ type: `${TYPES}${type}`, title, detail: `nginx says: ${title.toLowerCase()}` });
const QUOTA = problem('quota-exceeded', 'Quota exceeded');
const ABUSE = problem('abnormal-usage-detected', 'Abnormal usage detected');
const REDUCED = problem('temporary-reduced-capacity', 'Temporary reduced capacity');
const PROBLEM_JSON = 'application/problem+json';

const setup: NginxSetup = {
  servers: [
    {
      name: 'api',
      listen: ['https', 'h2'],
      locations: [
        { path: '/quota/', to: { status: 429, body: QUOTA, contentType: PROBLEM_JSON } },
        {
          path: '/abuse/',
          to: { status: 429, body: ABUSE, contentType: PROBLEM_JSON },
          headers: { 'Retry-After': '1' },
        },
        { path: '/plain/', to: { status: 429, body: QUOTA, contentType: 'application/json' } },
        { path: '/reports/', to: { proxy: 'backend' }, errorPages: { 503: '@reduced-capacity' } },
        {
          path: '@reduced-capacity',
          to: { status: 503, body: REDUCED, contentType: PROBLEM_JSON },
          headers: { 'Retry-After': '1' },
        },
      ],
    },
  ],
};

const { maxAttempts } = DEFAULTS;

/** The body the caller got with a failed answer: fetch and undici hand the response over, ky and axios their error. */
const bodyOf = (name: ClientName, outcome: ConformanceOutcome): unknown => {
  if (outcome.kind === 'response') return JSON.parse(outcome.body);
  if (outcome.kind !== 'http-error') throw new Error(`no answer: ${String(outcome.error)}`);
  // ky 2 reads an HTTPError's body into `data` (parsed for a JSON type); axios into `response.data`.
  const error = outcome.error as { data?: unknown; response?: { data?: unknown } };
  const data = name === 'ky' ? error.data : error.response?.data;
  return typeof data === 'string' ? JSON.parse(data) : data;
};

describe.each(CLIENTS)('nginx answering with RateLimit problem types, %s', (name: ClientName) => {
  let stack: Stack;
  let time: VirtualTime;
  let send: VirtualScenario['send'];
  let stop: VirtualScenario['stop'];
  beforeEach(async () => {
    ({ stack, time, send, stop } = await startVirtualScenario(setup, name, Date.UTC(2026, 11, 2, 9, 0, 0)));
  });
  afterEach(() => stop());

  /** nginx's lines for `path`: status, and what the backend answered it (nothing for nginx's own answers). */
  const logged = async (path: string) =>
    (await stack.nginx.accessLog.settled())
      .filter((l) => l.uri === path)
      .map((l) => [l.status, l.upstreamStatus] as const);

  it('a 429 of type quota-exceeded is sent once, and the caller gets the whole problem', async () => {
    const sent = { method: 'GET', path: '/quota/daily' };
    const result = await send(sent);
    expect(ending({ request: sent, result })).toBe('429 quota-exceeded');
    expect(result.info).toMatchObject({ attempts: 1, retries: [], outcome: 'failure' });
    expect(bodyOf(name, result.outcome)).toEqual(JSON.parse(QUOTA));
    if (result.outcome.kind === 'response')
      expect(result.outcome.headers.get('content-type')).toBe(PROBLEM_JSON);
    expect(time.waits).toEqual([]);
    expect(await logged('/quota/daily')).toEqual([[429, undefined]]);
  });

  it('a 429 of type abnormal-usage-detected is sent once, its Retry-After: 1 notwithstanding', async () => {
    const sent = { method: 'GET', path: '/abuse/scrape' };
    const result = await send(sent);
    expect(ending({ request: sent, result })).toBe('429 abnormal-usage');
    expect(result.info).toMatchObject({ attempts: 1, retries: [] });
    expect(bodyOf(name, result.outcome)).toEqual(JSON.parse(ABUSE));
    expect(time.waits).toEqual([]);
    expect(await logged('/abuse/scrape')).toEqual([[429, undefined]]);
  });

  it('a 503 of type temporary-reduced-capacity with Retry-After: 1 is sent again a second later: 200 in 2', async () => {
    stack.backend.route('/reports/q4', [{ status: 503 }, { status: 200, body: 'report' }]);
    const sent = { method: 'GET', path: '/reports/q4' };
    const result = await send(sent);
    expect(ending({ request: sent, result })).toBe('200');
    expect(result.outcome.kind === 'response' && result.outcome.body).toBe('report');
    expect(result.info).toMatchObject({ attempts: 2, retries: ['reduced-capacity'], outcome: 'success' });
    expect(time.waits).toEqual([1000]);
    // nginx answered the backend's 503 with its problem, then passed the backend's 200 on.
    expect(await logged('/reports/q4')).toEqual([
      [503, 503],
      [200, 200],
    ]);
    expect(stack.backend.seen('/reports/q4')).toHaveLength(2);
  });

  it('the same quota-exceeded body as plain application/json is not read: retried as a 429', async () => {
    const sent = { method: 'GET', path: '/plain/daily' };
    const result = await send(sent);
    expect(ending({ request: sent, result })).toBe('429 max-attempts');
    expect(result.info).toMatchObject({
      attempts: maxAttempts,
      retries: Array(maxAttempts - 1).fill('status'),
    });
    expect(bodyOf(name, result.outcome)).toEqual(JSON.parse(QUOTA));
    // A 429 that gives no delay jitterbug can read waits at least 1 s (the backoff, unjittered, is less).
    expect(time.waits).toEqual(Array(maxAttempts - 1).fill(1000));
    expect(await logged('/plain/daily')).toEqual(Array(maxAttempts).fill([429, undefined]));
  });
});
