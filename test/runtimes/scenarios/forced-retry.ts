import ky from 'ky';
import type { Scenario } from '../scenario.ts';
import { expectFinalStatus, onlyCall } from './final-status.ts';

const json = (value: unknown) => ({
  status: 200,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(value),
});

export const forcedRetry: Scenario = {
  id: 'forced-retry',
  title:
    'ky.retry() from an afterResponse hook on a 200 whose body says RATE_LIMIT: retried, the second answer used',
  clients: ['ky'],
  routes: () => ({ '/quota': [json({ error: { code: 'RATE_LIMIT' } }), json({ ok: true })] }),
  async run(ctx) {
    const client = ctx.connect({
      kyHooks: {
        afterResponse: [
          async ({ response }) => {
            const body = (await response.clone().json()) as { error?: { code?: string } };
            return body.error?.code === 'RATE_LIMIT' ? ky.retry() : undefined;
          },
        ],
      },
    });
    return { calls: [await client.send({ method: 'GET', url: ctx.url('/quota') })] };
  },
  check(ctx) {
    const { expect, result } = ctx;
    const call = onlyCall(ctx);
    expectFinalStatus(ctx, call, 200, '{"ok":true}');
    expect(ctx.seen('/quota')).toHaveLength(2);
    expect(result.waits).toHaveLength(1);
    expect(call.info).toMatchObject({ attempts: 2, retries: ['forced'], outcome: 'success' });
  },
};
