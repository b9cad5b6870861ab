import type { Scenario } from '../scenario.ts';
import { expectFinalStatus } from './final-status.ts';

export const perCallOverride: Scenario = {
  id: 'per-call-override',
  title: "one call's own settings: jitterbug: { maxAttempts: 5 }, and jitterbug: false",
  routes: () => ({ '/five': [{ status: 503 }], '/off': [{ status: 503 }] }),
  async run(ctx) {
    const client = ctx.connect();
    const five = await client.send({ method: 'GET', url: ctx.url('/five'), jitterbug: { maxAttempts: 5 } });
    const off = await client.send({ method: 'GET', url: ctx.url('/off'), jitterbug: false });
    return { calls: [five, off] };
  },
  check(ctx) {
    const { expect, result } = ctx;
    expect(result.calls).toHaveLength(2);
    const [five, off] = result.calls;
    expectFinalStatus(ctx, five, 503);
    expectFinalStatus(ctx, off, 503);
    // The policy's own maxAttempts is the default 3: the first call had 5, the second 1.
    expect(ctx.seen('/five')).toHaveLength(5);
    expect(five?.info).toMatchObject({ attempts: 5, reason: 'max-attempts' });
    expect(ctx.seen('/off')).toHaveLength(1);
    expect(off?.info).toMatchObject({ attempts: 1, reason: 'retry-disabled' });
  },
};
