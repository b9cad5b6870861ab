import type { Scenario } from '../scenario.ts';
import { expectFinalStatus, onlyCall } from './final-status.ts';
import { describeShape, healingClient, healingRoutes, networkCode } from './network-failure.ts';

export const networkFailureGet: Scenario = {
  id: 'network-failure-get',
  title:
    'a GET whose connection is destroyed before any response byte is retried and succeeds on its second attempt',
  routes: () => healingRoutes('/flaky', 'back'),
  async run(ctx) {
    return { calls: [await healingClient(ctx).send({ method: 'GET', url: ctx.url('/flaky') })] };
  },
  check(ctx) {
    const { expect, result, runtime, client } = ctx;
    const call = onlyCall(ctx);
    expectFinalStatus(ctx, call, 200, 'back');
    expect(call.info).toMatchObject({ attempts: 2, retries: ['error'], outcome: 'success' });
    expect(result.retries).toHaveLength(1);
    expect(result.retries[0]?.error).not.toBeNull();
    const seen = ctx.seen('/flaky');
    expect(seen.every((r) => r.method === 'GET')).toBe(true);
    expect(ctx.seen('/heal')).toHaveLength(1);
    const own = seen.length - 1;
    ctx.report(
      `network failure, GET: ${runtime}/${client} read as ${networkCode(runtime, client)}; ` +
        `the first attempt reached the server ${own} time(s)${own > 1 ? ' (the runtime sent it again by itself)' : ''}; ` +
        `jitterbug saw: ${describeShape(result.retries[0]?.error)}`,
    );
  },
};
