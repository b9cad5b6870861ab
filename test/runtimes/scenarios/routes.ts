import type { Scenario } from '../scenario.ts';
import { expectFinalStatus } from './final-status.ts';

export const routes: Scenario = {
  id: 'routes',
  title: 'route rules: retry: false on one, maxAttempts 5 on another, the default elsewhere',
  routes: () => ({
    '/once/1': [{ status: 503 }, { status: 200 }],
    '/reports/7': [{ status: 503 }],
    '/other': [{ status: 503 }],
  }),
  async run(ctx) {
    const client = ctx.connect({
      options: {
        routes: [
          { match: ctx.path('/once/*'), retry: false },
          { match: `GET ${ctx.path('/reports/:id')}`, maxAttempts: 5, name: 'reports' },
        ],
      },
    });
    const calls = [];
    for (const path of ['/once/1', '/reports/7', '/other']) {
      calls.push(await client.send({ method: 'GET', url: ctx.url(path) }));
    }
    return { calls };
  },
  check(ctx) {
    const { expect, result } = ctx;
    expect(result.calls).toHaveLength(3);
    const [once, reports, other] = result.calls;
    for (const call of result.calls) expectFinalStatus(ctx, call, 503);
    expect(ctx.seen('/once/1')).toHaveLength(1);
    // A rule without a name is reported by its pattern.
    expect(once?.info).toMatchObject({ attempts: 1, reason: 'route-disabled', route: ctx.path('/once/*') });
    expect(ctx.seen('/reports/7')).toHaveLength(5);
    expect(reports?.info).toMatchObject({ attempts: 5, reason: 'max-attempts', route: 'reports' });
    expect(ctx.seen('/other')).toHaveLength(3);
    expect(other?.info).toMatchObject({ attempts: 3, reason: 'max-attempts', route: null });
  },
};
