/**
 * A token that expires for every request in flight, through every client: a real server answers 401
 * to the expired token and 200 to any token issued since. With `credential:
 * createCredentialRefresh({ refresh })` the requests refused with the expired token share one
 * refresh and are each sent once more, with the fresh token the core sets; with the migration
 * guides' own recipe (`shouldRetry` forcing the 401, `beforeRetry` setting a token the caller's
 * coalesced refresh made) each is sent at most twice as well, the budget untouched by those retries.
 * A server that refuses every token still ends every request, after two attempts (three with the
 * recipe), and a refresh that fails fails the requests waiting for it with its error.
 */
import { createCredentialRefresh, createRequestEdits, type RetryInfo } from '@jitterbug/core';
import { expect } from 'vitest';
import type { ConformanceResult } from './driver.ts';
import { featureDrivers } from './drivers/index.ts';
import { describeRuns, errorChain, statusOf } from './harness.ts';

const EXPIRED = 'Bearer t0';
/** How long a refresh takes: the refused requests keep coming back meanwhile. */
const REFRESH_MS = 20;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describeRuns(featureDrivers, (run) => {
  const { scenario, client } = run;

  /**
   * The API (`/me`): 401 to the expired token (or none), 200 to any token issued since, or 401 to
   * every token with `refuseAll`. And the token service: `issue()` makes the next token.
   */
  const api = ({ refuseAll = false } = {}) => {
    let issued = 0;
    run.server.route('/me', (request) => {
      const token = request.headers.authorization;
      const valid = !refuseAll && token !== undefined && token !== EXPIRED && /^Bearer t\d+$/.test(token);
      return valid ? { status: 200, body: 'me' } : { status: 401, headers: { 'www-authenticate': 'Bearer' } };
    });
    return {
      issued: () => issued,
      issue: async (): Promise<string> => {
        await sleep(REFRESH_MS);
        issued++;
        return `Bearer t${issued}`;
      },
    };
  };

  /** The token service's `issue`, counting its calls. */
  const counted = (tokens: ReturnType<typeof api>) => {
    const refresh = Object.assign(
      () => {
        refresh.calls++;
        return tokens.issue();
      },
      { calls: 0 },
    );
    return refresh;
  };

  const sendAll = (c: Awaited<ReturnType<typeof client>>, n: number): Promise<ConformanceResult[]> =>
    Promise.all(
      Array.from({ length: n }, (_, i) =>
        c.send({ method: 'GET', path: '/me', headers: { authorization: EXPIRED, 'x-n': String(i) } }),
      ),
    );

  /** How many times the server saw each request (by its `x-n`). */
  const sendsPerRequest = (): number[] => {
    const counts = new Map<string, number>();
    for (const r of run.server.seen('/me')) {
      const n = String(r.headers['x-n']);
      counts.set(n, (counts.get(n) ?? 0) + 1);
    }
    return [...counts.values()];
  };

  for (const n of [20, 200]) {
    scenario(
      ['http'],
      `${n} requests in flight when the token expires: one refresh, every one ends 200, each sent at most twice`,
      async () => {
        const refresh = counted(api());
        const finished: RetryInfo[] = [];
        const c = await client({
          credential: createCredentialRefresh({ refresh }),
          onFinish: (info) => void finished.push(info),
        });
        const results = await sendAll(c, n);
        for (const result of results) expect(statusOf(result)).toBe(200);
        expect(refresh.calls).toBe(1);
        const sends = sendsPerRequest();
        expect(sends).toHaveLength(n);
        expect(Math.max(...sends)).toBeLessThanOrEqual(2);
        // Every request retried once, for its credential, and sent with the one token issued.
        expect(finished).toHaveLength(n);
        for (const info of finished)
          expect(info).toMatchObject({ retries: ['credential'], outcome: 'success' });
        const tokensSent = new Set(run.server.seen('/me').map((r) => r.headers.authorization));
        expect([...tokensSent].sort()).toEqual([EXPIRED, 'Bearer t1']);
      },
    );

    scenario(
      ['http'],
      `${n} requests in flight when the token expires, with the migration guide’s recipe (shouldRetry + beforeRetry): every one ends 200, each sent at most twice`,
      async () => {
        const tokens = api();
        // The caller coalesces its refreshes: those asked for while one is under way share it.
        let pending: Promise<string> | undefined;
        const refreshToken = () => {
          pending ??= tokens.issue().finally(() => {
            pending = undefined;
          });
          return pending;
        };
        const c = await client({
          shouldRetry: ({ status }) => (status === 401 ? true : undefined),
          requestEdits: createRequestEdits(),
          beforeRetry: async (next) => {
            if (next.status === 401) next.headers.set('authorization', await refreshToken());
          },
        });
        const results = await sendAll(c, n);
        for (const result of results) expect(statusOf(result)).toBe(200);
        expect(Math.max(...sendsPerRequest())).toBeLessThanOrEqual(2);
        // No retry of theirs took a budget token: none ended budget-exhausted.
        for (const result of results) expect(result.info?.reason ?? 'success').toBe('success');
      },
    );
  }

  scenario(
    ['http'],
    'a server that refuses every token: each request ends at its second attempt, credential-refused, after one refresh',
    async () => {
      const refresh = counted(api({ refuseAll: true }));
      const finished: RetryInfo[] = [];
      const c = await client({
        credential: createCredentialRefresh({ refresh }),
        onFinish: (info) => void finished.push(info),
      });
      const results = await sendAll(c, 20);
      for (const result of results) run.expectFinalStatus(result, 401);
      expect(sendsPerRequest()).toEqual(Array(20).fill(2));
      expect(refresh.calls).toBe(1);
      for (const info of finished) {
        expect(info).toMatchObject({ attempts: 2, reason: 'credential-refused', outcome: 'failure' });
      }
    },
  );

  scenario(
    ['http'],
    'a server that refuses every token, with the recipe: bounded by maxAttempts and the budget',
    async () => {
      const tokens = api({ refuseAll: true });
      const c = await client({
        shouldRetry: ({ status }) => (status === 401 ? true : undefined),
        requestEdits: createRequestEdits(),
        beforeRetry: async (next) => {
          if (next.status === 401) next.headers.set('authorization', await tokens.issue());
        },
      });
      const results = await sendAll(c, 20);
      for (const result of results) run.expectFinalStatus(result, 401);
      const sends = sendsPerRequest();
      expect(sends).toHaveLength(20);
      expect(Math.max(...sends)).toBeLessThanOrEqual(3);
      // The second retry of each is charged: the budget's 10 tokens (and 2 deposited) run out.
      const reasons = results.map((r) => r.info?.reason);
      expect(reasons.filter((r) => r === 'budget-exhausted').length).toBeGreaterThan(0);
      expect(reasons.every((r) => r === 'budget-exhausted' || r === 'max-attempts')).toBe(true);
    },
  );

  scenario(
    ['http'],
    'a refresh that rejects fails the requests waiting for it with its error (hook-failed); the next expiry refreshes again',
    async () => {
      const tokens = api();
      const broken = new Error('the token service is down');
      let refreshes = 0;
      // The first refresh fails once all five requests wait for it (each has decided its retry).
      let waiting = 0;
      let allWaiting!: () => void;
      const five = new Promise<void>((resolve) => {
        allWaiting = resolve;
      });
      const c = await client({
        credential: createCredentialRefresh({
          refresh: async () => {
            refreshes++;
            if (refreshes === 1) {
              await five;
              throw broken;
            }
            return tokens.issue();
          },
        }),
        onRetry: () => {
          if (++waiting === 5) allWaiting();
        },
      });
      const failed = await sendAll(c, 5);
      for (const result of failed) {
        expect(result.outcome.kind).toBe('error');
        expect(errorChain(result)).toContain(broken);
        expect(result.info).toMatchObject({ reason: 'hook-failed', attempts: 1 });
      }
      expect(refreshes).toBe(1);
      const ok = await sendAll(c, 5);
      for (const result of ok) expect(statusOf(result)).toBe(200);
      expect(refreshes).toBe(2);
    },
  );
});
