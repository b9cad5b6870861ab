import type { Scenario } from '../scenario.ts';
import { expectFinalStatus, onlyCall } from './final-status.ts';

export const retryAfter429: Scenario = {
  id: 'retry-after-429',
  title: "waits a 429's Retry-After seconds, then retries",
  routes: () => ({
    '/limited': [
      { status: 429, headers: { 'retry-after': '2' }, body: 'slow down' },
      { status: 200, body: 'fine' },
    ],
  }),
  async run(ctx) {
    return { calls: [await ctx.connect().send({ method: 'GET', url: ctx.url('/limited') })] };
  },
  check(ctx) {
    const { expect, result } = ctx;
    const call = onlyCall(ctx);
    expectFinalStatus(ctx, call, 200, 'fine');
    // random() is 0, so the Retry-After's jitter adds nothing: exactly the server's 2 s. A page on
    // another origin reads Retry-After only because the server exposes it (CORS).
    expect(result.waits).toEqual([2000]);
    expect(result.retries.map((r) => [r.status, r.delaySource])).toEqual([[429, 'retry-after']]);
    expect(ctx.seen('/limited')).toHaveLength(2);
    expect(call.info).toMatchObject({ attempts: 2, totalDelayMs: 2000, outcome: 'success' });
  },
};
