import type { Scenario } from '../scenario.ts';
import { expectFinalStatus, onlyCall } from './final-status.ts';

export const postNotRetried: Scenario = {
  id: 'post-not-retried',
  title: 'never retries a POST without an Idempotency-Key on 503',
  routes: () => ({ '/pay': [{ status: 503, body: 'busy' }, { status: 200 }] }),
  async run(ctx) {
    const client = ctx.connect();
    const body = { kind: 'text', value: 'charge $10' } as const;
    return { calls: [await client.send({ method: 'POST', url: ctx.url('/pay'), body })] };
  },
  check(ctx) {
    const { expect, result } = ctx;
    const call = onlyCall(ctx);
    expectFinalStatus(ctx, call, 503);
    expect(ctx.seen('/pay').map((r) => [r.method, r.body.toString()])).toEqual([['POST', 'charge $10']]);
    expect(result.waits).toEqual([]);
    expect(call.info).toMatchObject({ attempts: 1, reason: 'method-not-idempotent' });
  },
};
