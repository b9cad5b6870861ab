import type { Scenario } from '../scenario.ts';
import { expectFinalStatus, onlyCall } from './final-status.ts';
import { healingClient, healingRoutes } from './network-failure.ts';

const BODY = { sku: 'a-1', quantity: 3 };

export const networkFailurePut: Scenario = {
  id: 'network-failure-put',
  title:
    'a PUT with a JSON body whose connection is destroyed before any response byte is retried with the same body',
  routes: () => healingRoutes('/item', 'stored'),
  async run(ctx) {
    const body = { kind: 'json', value: BODY } as const;
    return { calls: [await healingClient(ctx).send({ method: 'PUT', url: ctx.url('/item'), body })] };
  },
  check(ctx) {
    const { expect } = ctx;
    const call = onlyCall(ctx);
    expectFinalStatus(ctx, call, 200, 'stored');
    expect(call.info).toMatchObject({ attempts: 2, retries: ['error'], outcome: 'success' });
    // ky replays a body by cloning its Request: the last attempt sends the original, which must
    // still be whole then (nothing on the way may have used it up).
    const seen = ctx.seen('/item');
    expect(seen.length).toBeGreaterThanOrEqual(2);
    for (const request of seen)
      expect([request.method, JSON.parse(request.body.toString())]).toEqual(['PUT', BODY]);
  },
};
