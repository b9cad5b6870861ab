/**
 * A token that expires for every request in flight, through every client: a real server answers 401
 * to the expired token and 200 to any token issued since. With the migration guides' own recipe
 * (`shouldRetry` forcing the 401, `beforeRetry` setting a token the caller's coalesced refresh made)
 * each request is sent at most twice and ends 200, the budget untouched by those retries (once per
 * request); a server that refuses every token still ends every request, bounded by `maxAttempts`
 * and the budget.
 */
import { expect } from 'vitest';
import type { ConformanceResult } from './driver.ts';
import { featureDrivers } from './drivers/index.ts';
import { describeRuns, statusOf } from './harness.ts';

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
    'a server that refuses every token, with the recipe: bounded by maxAttempts and the budget',
    async () => {
      const tokens = api({ refuseAll: true });
      const c = await client({
        shouldRetry: ({ status }) => (status === 401 ? true : undefined),
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
});
