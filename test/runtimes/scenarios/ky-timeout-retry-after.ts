import type { Options } from 'ky';
import type { Scenario } from '../scenario.ts';
import { expectFinalStatus } from './final-status.ts';

/** A ky client whose calls have this `timeout`: set by an `init` hook after kyRetry's own. */
const withTimeout = (timeout: number) => ({
  kyHooks: {
    init: [
      (options: Options) => {
        options.timeout = timeout;
      },
    ],
  },
});

export const kyTimeoutRetryAfter: Scenario = {
  id: 'ky-timeout-retry-after',
  title:
    "ky's timeout is the run's deadline: a Retry-After longer than it ends at once with ky's HTTPError (reason deadline), a shorter one is waited for",
  clients: ['ky'],
  routes: () => ({
    '/longer': [
      { status: 503, headers: { 'retry-after': '2' } },
      { status: 200, body: 'too late' },
    ],
    '/shorter': [
      { status: 503, headers: { 'retry-after': '1' } },
      { status: 200, body: 'fine' },
    ],
  }),
  async run(ctx) {
    // ky's timer is real: 1 s against a Retry-After of 2 s, 5 s against one of 1 s (the waits are
    // the suite's, recorded and not slept).
    const longer = await ctx.connect(withTimeout(1_000)).send({ method: 'GET', url: ctx.url('/longer') });
    const shorter = await ctx.connect(withTimeout(5_000)).send({ method: 'GET', url: ctx.url('/shorter') });
    return { calls: [longer, shorter] };
  },
  check(ctx) {
    const { expect, result } = ctx;
    expect(result.calls).toHaveLength(2);
    const [longer, shorter] = result.calls;
    expectFinalStatus(ctx, longer, 503);
    expect(longer?.info).toMatchObject({ attempts: 1, reason: 'deadline', totalDelayMs: 0 });
    expect(ctx.seen('/longer')).toHaveLength(1);
    expectFinalStatus(ctx, shorter, 200, 'fine');
    expect(ctx.seen('/shorter')).toHaveLength(2);
    expect(result.waits).toEqual([1000]);
  },
};
