import type { Scenario } from '../scenario.ts';
import { onlyCall } from './final-status.ts';

export const abortDuringWait: Scenario = {
  id: 'abort-during-wait',
  title: 'an abort during the backoff wait ends the call at once with the reason; nothing sent again',
  routes: () => ({ '/slow-fix': [{ status: 503 }, { status: 200, body: 'too late' }] }),
  async run(ctx) {
    // The wait never ends by itself: only the abort can release the caller.
    const client = ctx.connect({ options: { sleep: ctx.holdingSleep } });
    const controller = new AbortController();
    const reason = new Error('caller gave up');
    const pending = client.send({ method: 'GET', url: ctx.url('/slow-fix'), signal: controller.signal });
    await ctx.waited(1);
    controller.abort(reason);
    const call = await pending;
    return {
      calls: [call],
      notes: { abortedWithReason: call.kind === 'error' && client.isAbort(call.error, reason) },
    };
  },
  check(ctx) {
    const { expect, result } = ctx;
    const call = onlyCall(ctx);
    expect(call.kind).toBe('error');
    expect(result.notes?.abortedWithReason).toBe(true);
    expect(result.waits).toHaveLength(1);
    expect(ctx.seen('/slow-fix')).toHaveLength(1);
    expect(call.info).toMatchObject({ attempts: 1, reason: 'aborted', outcome: 'failure' });
  },
};
