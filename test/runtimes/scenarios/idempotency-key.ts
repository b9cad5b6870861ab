import type { Scenario } from '../scenario.ts';
import { expectFinalStatus, onlyCall } from './final-status.ts';

const BROWSERS = new Set(['chromium', 'firefox']);

export const idempotencyKey: Scenario = {
  id: 'idempotency-key',
  title: 'retries a POST with an Idempotency-Key: same key, same body every time',
  routes: () => ({
    '/orders': [{ status: 503 }, { status: 503 }, { status: 201, body: 'made' }],
  }),
  async run(ctx) {
    const call = await ctx.connect().send({
      method: 'POST',
      url: ctx.url('/orders'),
      headers: { 'Idempotency-Key': 'k-123' },
      body: { kind: 'json', value: { amount: 42 } },
    });
    return { calls: [call] };
  },
  check(ctx) {
    const { expect, runtime } = ctx;
    const call = onlyCall(ctx);
    expectFinalStatus(ctx, call, 201, 'made');
    const seen = ctx.seen('/orders');
    expect(seen.map((r) => [r.method, r.headers['idempotency-key'], JSON.parse(r.body.toString())])).toEqual([
      ['POST', 'k-123', { amount: 42 }],
      ['POST', 'k-123', { amount: 42 }],
      ['POST', 'k-123', { amount: 42 }],
    ]);
    expect(call.info).toMatchObject({ attempts: 3, outcome: 'success' });
    // A page on another origin: the key is a custom header, so the browser asked first (once,
    // the answer is cached), and the server never counted the preflight as the POST.
    if (BROWSERS.has(runtime)) {
      expect(ctx.preflights('/orders').map((p) => p.method)).toContain('POST');
      expect(ctx.preflights('/orders')[0]?.headers).toContain('idempotency-key');
    }
  },
};
