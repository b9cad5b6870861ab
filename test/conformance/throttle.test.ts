/**
 * Adaptive client-side throttling (`throttle: createAdaptiveThrottle()`) through every client: a
 * server that refuses everything with 503 is soon sent almost nothing; the requests refused locally
 * fail with the core's `ThrottledError` (`ERR_JITTERBUG_THROTTLED`, on the error or its cause chain)
 * before anything is sent; once the server accepts again, so does the client. The throttle is the
 * core's: each client only has to ask it and fail the request it refuses with its error.
 * Deterministic: the random source is fixed and the throttle's window is the injected clock's.
 */
import { createAdaptiveThrottle, ThrottledError } from '@jitterbug/core';
import { expect } from 'vitest';
import { featureDrivers } from './drivers/index.ts';
import { describeRuns, errorChain } from './harness.ts';

describeRuns(featureDrivers, (run) => {
  const { scenario, client, expectFinalStatus } = run;

  scenario(
    ['http'],
    'a server refusing most requests: first attempts refused locally with a ThrottledError, nothing sent; it recovers once the server answers',
    async () => {
      let down = true;
      run.server.route('/overloaded', () => (down ? { status: 503 } : { status: 200, body: 'ok' }));
      let now = 0;
      const c = await client({
        maxAttempts: 1,
        // 0.5: a request is refused once more than half of the window's would be (k = 2: once
        // requests − 2·accepts > (requests + 1) / 2).
        random: () => 0.5,
        now: () => now,
        throttle: createAdaptiveThrottle({ k: 2, windowMs: 10_000 }),
      });
      const outcomes: string[] = [];
      for (let i = 0; i < 20; i++) {
        const result = await c.send({ method: 'GET', path: '/overloaded' });
        if (result.outcome.kind !== 'error') {
          expectFinalStatus(result, 503);
          outcomes.push('503');
          continue;
        }
        const refusal = errorChain(result).find((e) => e instanceof ThrottledError);
        expect(refusal).toMatchObject({ code: 'ERR_JITTERBUG_THROTTLED' });
        expect(result.info).toMatchObject({ attempts: 0, reason: 'throttled', outcome: 'failure' });
        outcomes.push('throttled');
      }
      const sent = run.server.seen('/overloaded').length;
      // The first requests reach the server; after that nearly all are refused before sending.
      expect(outcomes.slice(0, 2)).toEqual(['503', '503']);
      expect(outcomes.filter((o) => o === 'throttled').length).toBe(20 - sent);
      expect(sent).toBeLessThanOrEqual(4);

      // The window passes; the server accepts again, and so does the client.
      down = false;
      now += 20_000;
      expectFinalStatus(await c.send({ method: 'GET', path: '/overloaded' }), 200);
    },
  );
});
