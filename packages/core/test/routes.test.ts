import { createRetryBudget, createRetryPolicy, type RetryEvent } from '@jitterbug/core';
import { describe, expect, it } from 'vitest';
import { decideOn } from './decisions.ts';
import { decided, fixed } from './helpers.ts';

const url = (path: string) => `https://api.example.com${path}`;

describe('routes', () => {
  it('"METHOD /path" matches the method and the path', () => {
    const policy = createRetryPolicy({ routes: [{ match: 'POST /payments/*', maxAttempts: 7 }] });
    expect(policy.resolve('POST', url('/payments/42')).maxAttempts).toBe(7);
    expect(policy.resolve('GET', url('/payments/42')).maxAttempts).toBe(3);
    expect(policy.resolve('POST', url('/orders/42')).maxAttempts).toBe(3);
    expect(policy.resolve('POST', url('/payments/42')).route).toBe('POST /payments/*');
    expect(policy.resolve('GET', url('/other')).route).toBeUndefined();
  });

  it('"/path" matches any method; the query string is ignored', () => {
    const policy = createRetryPolicy({ routes: [{ match: '/reports/:id', maxAttempts: 5 }] });
    for (const method of ['GET', 'DELETE', 'POST']) {
      expect(policy.resolve(method, url('/reports/9?full=1')).maxAttempts).toBe(5);
    }
    expect(policy.resolve('GET', url('/reports/9/pdf')).maxAttempts).toBe(3);
  });

  it('"GET|HEAD /path" matches any listed method, in any case', () => {
    const policy = createRetryPolicy({ routes: [{ match: 'get|Head /cache/*', maxAttempts: 9 }] });
    expect(policy.resolve('GET', url('/cache/a')).maxAttempts).toBe(9);
    expect(policy.resolve('HEAD', url('/cache/a')).maxAttempts).toBe(9);
    expect(policy.resolve('PUT', url('/cache/a')).maxAttempts).toBe(3);
  });

  it('begin() upper-cases the method before matching', () => {
    const policy = createRetryPolicy({ routes: [{ match: 'POST /p', maxAttempts: 4 }] });
    expect(policy.begin({ method: 'post', url: url('/p') }).options.maxAttempts).toBe(4);
  });

  it('a relative URL is matched by its path', () => {
    const policy = createRetryPolicy({ routes: [{ match: '/rel/*', maxAttempts: 4 }] });
    expect(policy.resolve('GET', '/rel/x').maxAttempts).toBe(4);
  });

  it.skipIf(typeof globalThis.URLPattern === 'undefined')('accepts a URLPattern', () => {
    const policy = createRetryPolicy({
      routes: [
        { match: new URLPattern({ hostname: 'uploads.example.com', pathname: '/files/*' }), maxAttempts: 6 },
      ],
    });
    expect(policy.resolve('PUT', 'https://uploads.example.com/files/a').maxAttempts).toBe(6);
    expect(policy.resolve('PUT', 'https://api.example.com/files/a').maxAttempts).toBe(3);
    expect(policy.resolve('PUT', 'https://uploads.example.com/files/a').route).toBe('routes[0]');
  });

  it('accepts a predicate on method and URL', () => {
    const seen: { method: string; url: URL }[] = [];
    const policy = createRetryPolicy({
      routes: [
        {
          match: (request) => {
            seen.push(request);
            return request.url.searchParams.has('slow');
          },
          name: 'slow',
          maxAttempts: 2,
        },
      ],
    });
    expect(policy.resolve('GET', url('/a?slow=1')).maxAttempts).toBe(2);
    expect(policy.resolve('GET', url('/a')).maxAttempts).toBe(3);
    expect(seen[0]?.method).toBe('GET');
    expect(seen[0]?.url).toBeInstanceOf(URL);
    expect(policy.resolve('GET', url('/a?slow=1')).route).toBe('slow');
  });

  it('a predicate must return exactly true', () => {
    const policy = createRetryPolicy({
      routes: [{ match: (() => 1) as unknown as () => boolean, maxAttempts: 2 }],
    });
    expect(policy.resolve('GET', url('/')).maxAttempts).toBe(3);
  });

  it('the first matching rule wins', () => {
    const policy = createRetryPolicy({
      routes: [
        { match: '/a/special', maxAttempts: 1 },
        { match: '/a/*', maxAttempts: 2 },
        { match: '/*', maxAttempts: 4 },
      ],
    });
    expect(policy.resolve('GET', url('/a/special')).maxAttempts).toBe(1);
    expect(policy.resolve('GET', url('/a/other')).maxAttempts).toBe(2);
    expect(policy.resolve('GET', url('/b')).maxAttempts).toBe(4);
  });

  it('retry: false disables retries for matching requests', () => {
    const giveUps: string[] = [];
    const policy = createRetryPolicy({
      onGiveUp: (e) => giveUps.push(`${e.reason} ${e.route}`),
      routes: [{ match: '/no-retry/*', retry: false }],
    });
    const run = policy.begin({ method: 'GET', url: url('/no-retry/x') });
    expect(decided(decideOn(run, { status: 503 }))).toMatchObject({ retry: false, reason: 'route-disabled' });
    expect(giveUps).toEqual(['route-disabled /no-retry/*']);
    expect(decided(decideOn(policy.begin({ method: 'GET', url: url('/yes') }), { status: 503 })).retry).toBe(
      true,
    );
  });

  it('overrides only the fields given; the rest come from the base options', () => {
    const onRetry = (_e: RetryEvent) => {};
    const policy = createRetryPolicy({
      maxAttempts: 5,
      statusCodes: [503],
      deadlineMs: 9000,
      onRetry,
      random: fixed(0.25),
      routes: [{ match: 'POST /pay', methods: ['POST'], backoff: { strategy: 'constant', baseMs: 10 } }],
    });
    const route = policy.resolve('POST', url('/pay'));
    expect(route.maxAttempts).toBe(5);
    expect([...route.statusCodes]).toEqual([503]);
    expect(route.deadlineMs).toBe(9000);
    expect(route.onRetry).toBe(onRetry);
    expect(route.random).toBe(policy.options.random);
    expect(route.feature.budget).toBe(policy.options.feature.budget);
    expect([...route.methods]).toEqual(['POST']);
    expect(route.backoff).toMatchObject({ baseMs: 10, capMs: 20_000 });
    expect(route.retry).toBe(true);
  });

  it('a route may have its own budget or none', () => {
    const own = createRetryBudget({ burst: 3 });
    const policy = createRetryPolicy({
      routes: [
        { match: '/own', budget: own },
        { match: '/none', budget: false },
      ],
    });
    expect(policy.resolve('GET', url('/own')).feature.budget).toBe(own);
    expect(policy.resolve('GET', url('/none')).feature.budget).toBeUndefined();
  });

  it('the route name appears in events and the summary', () => {
    const routes: (string | undefined)[] = [];
    const policy = createRetryPolicy({
      onRetry: (e) => routes.push(e.route),
      onFinish: (s) => routes.push(s.route),
      routes: [{ match: '/named', name: 'named-route' }],
    });
    const run = policy.begin({ method: 'GET', url: url('/named') });
    decided(decideOn(run, { status: 503 }));
    decided(decideOn(run, { status: 200 }));
    expect(routes).toEqual(['named-route', 'named-route']);
  });
});

describe('routes say what they match (issue 33)', () => {
  const attempts = (policy: ReturnType<typeof createRetryPolicy>, path: string, base?: unknown) =>
    policy.resolve('GET', url(path), base as never).maxAttempts;

  it('a path is matched below the base URL the call was written under too, and as a whole', () => {
    const policy = createRetryPolicy({ routes: [{ match: '/health', maxAttempts: 7 }] });
    expect(attempts(policy, '/api/health', url('/api/'))).toBe(7);
    expect(attempts(policy, '/api/health', url('/api'))).toBe(7);
    expect(attempts(policy, '/api/health', '/api/')).toBe(7);
    // ky: its baseUrl, then its prefix resolved against it.
    expect(attempts(policy, '/api/v1/health', [url('/api/'), 'v1/'])).toBe(7);
    expect(attempts(policy, '/api/v1/health', [undefined, url('/api/v1')])).toBe(7);
    // Not under the base, another origin, no base, or a base that is the origin: the path itself.
    expect(attempts(policy, '/apix/health', url('/api'))).toBe(3);
    expect(attempts(policy, '/api/health', 'https://other.example.com/api/')).toBe(3);
    expect(attempts(policy, '/api/health')).toBe(3);
    expect(attempts(policy, '/health', url('/'))).toBe(7);
    const whole = createRetryPolicy({ routes: [{ match: '/api/health', maxAttempts: 5 }] });
    expect(attempts(whole, '/api/health', url('/api/'))).toBe(5);
  });

  it('begin() matches below the request’s base', () => {
    const policy = createRetryPolicy({ routes: [{ match: 'GET /items/:id', maxAttempts: 6 }] });
    const run = policy.begin({ method: 'GET', url: url('/v2/items/1'), base: url('/v2/') });
    expect(run.options.maxAttempts).toBe(6);
  });

  it("a trailing '/*' matches the path without it", () => {
    const policy = createRetryPolicy({ routes: [{ match: '/search/*', maxAttempts: 4 }] });
    expect(attempts(policy, '/search')).toBe(4);
    expect(attempts(policy, '/search/')).toBe(4);
    expect(attempts(policy, '/search/a/b')).toBe(4);
    expect(attempts(policy, '/searches')).toBe(3);
  });

  it('an earlier rule that matches less is no shadow: the later one is taken', () => {
    for (const [first, second] of [
      ['/a/x', '/a/:id'],
      ['GET /api/*', '/api/users'],
      ['GET /x', 'GET|POST /x'],
      ['/books/:id', '/books/:id?'],
      ['/a/:id', '/a/*'],
      ['/f/:p', '/f/:p+'],
      ['/x/:y', '/x{/:y}?'],
      ['/v/(\\d+)', '/v/:name'],
      ['/a/*', '/b/*'],
    ]) {
      expect(() => createRetryPolicy({ routes: [{ match: first! }, { match: second! }] })).not.toThrow();
    }
    // A predicate is never called before a request.
    let called = 0;
    const predicate = () => {
      called++;
      return true;
    };
    expect(() => createRetryPolicy({ routes: [{ match: predicate }, { match: '/a' }] })).not.toThrow();
    expect(called).toBe(0);
  });
});
