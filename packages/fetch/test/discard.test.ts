/** Discarding a retried response: drained within the cap (its connection reusable), else cancelled. */
import { describe, expect, it } from 'vitest';
import { discardBody } from '../src/discard.ts';

/** A response whose body is `chunks` chunks of `size` bytes, counting how many were pulled. */
const countedResponse = (chunks: number, size: number) => {
  const stats = { pulled: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (stats.pulled === chunks) return controller.close();
      stats.pulled++;
      controller.enqueue(new Uint8Array(size));
    },
    cancel() {
      stats.cancelled = true;
    },
  });
  return { response: new Response(body), stats };
};

describe('discardBody', () => {
  it('reads a body within the cap to its end', async () => {
    const { response, stats } = countedResponse(3, 100);
    await discardBody(response, 1000);
    expect(stats).toEqual({ pulled: 3, cancelled: false });
  });

  it('cancels a body past the cap after reading just over the cap', async () => {
    const { response, stats } = countedResponse(10_000, 1024);
    await discardBody(response, 4096);
    await new Promise((r) => setTimeout(r, 0));
    expect(stats.cancelled).toBe(true);
    expect(stats.pulled).toBeLessThanOrEqual(8);
  });

  it('with a cap of 0 cancels at once', async () => {
    const { response, stats } = countedResponse(10, 10);
    await discardBody(response, 0);
    await new Promise((r) => setTimeout(r, 0));
    expect(stats.cancelled).toBe(true);
    expect(stats.pulled).toBeLessThanOrEqual(2);
  });

  it('settles on a body that breaks, a locked body and no body', async () => {
    const broken = new Response(
      new ReadableStream({
        pull(controller) {
          controller.error(new Error('reset'));
        },
      }),
    );
    await expect(discardBody(broken, 10)).resolves.toBeUndefined();
    const locked = new Response('x');
    locked.body?.getReader();
    await expect(discardBody(locked, 10)).resolves.toBeUndefined();
    await expect(discardBody(new Response(null, { status: 204 }), 10)).resolves.toBeUndefined();
  });
});
