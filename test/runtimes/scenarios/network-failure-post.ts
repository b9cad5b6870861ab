import type { Scenario } from '../scenario.ts';
import { onlyCall } from './final-status.ts';
import { describeShape } from './network-failure.ts';

export const networkFailurePost: Scenario = {
  id: 'network-failure-post',
  title:
    'a POST without an Idempotency-Key whose connection is destroyed before any response byte is not retried',
  routes: () => ({ '/charge': [{ destroy: 'before-headers' }, { status: 200, body: 'charged twice' }] }),
  async run(ctx) {
    const body = { kind: 'text', value: 'charge $10' } as const;
    return { calls: [await ctx.connect().send({ method: 'POST', url: ctx.url('/charge'), body })] };
  },
  check(ctx) {
    const { expect, result, runtime, client } = ctx;
    const call = onlyCall(ctx);
    expect(call.kind).toBe('error');
    // Read as a network failure (every runtime's, see network-failure-get), and refused by the
    // method rule: nothing is sent again.
    expect(call.info).toMatchObject({
      attempts: 1,
      retries: [],
      outcome: 'failure',
      reason: 'method-not-idempotent',
    });
    expect(result.waits).toEqual([]);
    // The server closes every connection after its answer, so the POST went on a new connection,
    // which no runtime sends again by itself (on a reused one, Chromium, Firefox and Deno do).
    expect(ctx.seen('/charge').map((r) => [r.method, r.body.toString()])).toEqual([['POST', 'charge $10']]);
    ctx.report(
      `network failure, POST: ${runtime}/${client} not retried; the caller got ${describeShape(call.error)}`,
    );
  },
};
