import type { CheckContext, Scenario } from '../scenario.ts';
import { expectFinalStatus, onlyCall } from './final-status.ts';

/**
 * A GET with no header of the caller's needs no CORS preflight. axios' fetch adapter sets
 * `User-Agent: axios/<version>` on every request: Chromium drops it (the browser's own stays),
 * Firefox sends it, so there each of axios' calls is asked about first, and fails as a network
 * error where the server does not allow `user-agent` (the scripted server allows it).
 */
const checkPreflight = (ctx: CheckContext): void => {
  const { expect, runtime, client } = ctx;
  const asked = ctx.preflights('/items/1');
  if (runtime !== 'firefox' || client !== 'axios-fetch') {
    expect(asked).toEqual([]);
    return;
  }
  expect(asked.length).toBeGreaterThan(0);
  expect(asked[0]?.headers).toEqual(['user-agent']);
  ctx.report(
    `CORS: firefox/axios-fetch preflights a plain GET (Access-Control-Request-Headers: ${asked[0]?.headers.join(', ')}): ` +
      `axios' fetch adapter (since axios 1.16, axios/axios#10772) sets User-Agent, which Firefox sends and Chromium drops; ` +
      `a server that does not allow it fails every call with "Network Error" (axios' way out: headers { 'User-Agent': false })`,
  );
};

export const retry503: Scenario = {
  id: 'retry-503',
  title: 'retries a GET answered 503, 503, then 200',
  routes: () => ({
    '/items/1': [
      { status: 503, body: 'busy' },
      { status: 503, body: 'busy' },
      { status: 200, body: 'hello' },
    ],
  }),
  async run(ctx) {
    return { calls: [await ctx.connect().send({ method: 'GET', url: ctx.url('/items/1') })] };
  },
  check(ctx) {
    const { expect, result, runtime } = ctx;
    const call = onlyCall(ctx);
    expectFinalStatus(ctx, call, 200, 'hello');
    expect(ctx.seen('/items/1').map((r) => r.method)).toEqual(['GET', 'GET', 'GET']);
    expect(result.waits).toHaveLength(2);
    expect(call.info).toMatchObject({ attempts: 3, retries: ['status', 'status'], outcome: 'success' });
    if (runtime === 'chromium' || runtime === 'firefox') checkPreflight(ctx);
  },
};
