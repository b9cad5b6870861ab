import type { Scenario } from '../scenario.ts';
import { expectFinalStatus, onlyCall } from './final-status.ts';

export const status400: Scenario = {
  id: 'status-400',
  title: 'never retries a 400',
  routes: () => ({
    '/bad': [
      { status: 400, body: 'no' },
      { status: 200, body: 'never asked' },
    ],
  }),
  async run(ctx) {
    return { calls: [await ctx.connect().send({ method: 'GET', url: ctx.url('/bad') })] };
  },
  check(ctx) {
    const { expect, result } = ctx;
    const call = onlyCall(ctx);
    expectFinalStatus(ctx, call, 400);
    expect(ctx.seen('/bad')).toHaveLength(1);
    expect(result.waits).toEqual([]);
    expect(call.info).toMatchObject({ attempts: 1, reason: 'status-not-retryable', outcome: 'failure' });
  },
};
