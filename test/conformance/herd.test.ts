/**
 * A rate-limit herd through every client, with the default options: 50 GETs at once to one origin
 * whose token bucket lets 10 requests a second through with a burst of 5 and refuses the rest
 * (`429`), told when to come back by `Retry-After: 1`, or by the rate-limit fields alone
 * (`RateLimit`/`RateLimit-Policy`, `X-RateLimit-*`). Every request must end 200, and the server
 * answer at most 60 429s: the first wave's 45 cannot be avoided, the herd they make must not come
 * back all at once. In virtual time (`virtual-time.ts`): the bucket refills by the policy's clock,
 * and the jitter is seeded, so every run is the same.
 */
import { type RetryPolicyOptions, seededRandom } from '@jitterbug/core';
import { expect } from 'vitest';
import type { ConformanceResult } from './driver.ts';
import { featureDrivers } from './drivers/index.ts';
import { describeRuns, statusOf } from './harness.ts';
import { virtualTime } from './virtual-time.ts';

const NOW = Date.UTC(2026, 11, 2, 9, 0, 0);
const REQUESTS = 50;
const RATE_PER_S = 10;
const BURST = 5;

/** How the bucket tells a refused request when to come back. */
type Signal = 'retry-after' | 'ratelimit' | 'x-ratelimit';

/**
 * A token bucket (`BURST` deep, `RATE_PER_S` a second) by `now`, answering every request with a
 * 200 or a 429, and on every answer the fields `signal` names.
 */
const bucket = (now: () => number, signal: Signal) => {
  let tokens = BURST;
  let last = now();
  return () => {
    const t = now();
    tokens = Math.min(BURST, tokens + ((t - last) * RATE_PER_S) / 1000);
    last = t;
    const ok = tokens >= 1;
    if (ok) tokens -= 1;
    // Seconds until the next token, in whole seconds as the fields carry them.
    const resetS = ok ? 0 : Math.ceil(((1 - tokens) * 1000) / RATE_PER_S / 1000);
    const remaining = String(Math.floor(tokens));
    const headers: Record<string, string> =
      signal === 'retry-after'
        ? ok
          ? {}
          : { 'retry-after': String(resetS) }
        : signal === 'ratelimit'
          ? {
              'ratelimit-policy': `"default";q=${RATE_PER_S};w=1`,
              ratelimit: `"default";r=${remaining};t=${Math.max(resetS, 1)}`,
            }
          : {
              'x-ratelimit-limit': String(RATE_PER_S),
              'x-ratelimit-remaining': remaining,
              'x-ratelimit-reset': String(Math.max(resetS, 1)),
            };
    return ok ? { status: 200, headers, body: 'ok' } : { status: 429, headers };
  };
};

describeRuns(featureDrivers, (run) => {
  const { scenario } = run;

  /** The burst through a client with the default options (and `extra`): what each request ended with. */
  const burst = async (signal: Signal, extra: RetryPolicyOptions = {}) => {
    const vt = virtualTime(NOW);
    run.server.route('/items', bucket(vt.now, signal));
    const c = await run.create(run.server.url, {
      now: vt.now,
      sleep: vt.sleep,
      random: seededRandom(7),
      ...extra,
    });
    run.clients.push(c);
    const release = vt.hold();
    const sent: Promise<ConformanceResult>[] = [];
    for (let i = 0; i < REQUESTS; i++) sent.push(vt.track(c.send({ method: 'GET', path: '/items' })));
    release();
    const results = await Promise.all(sent);
    const statuses = run.server.responses.map((r) => (r.step as { status: number }).status);
    return {
      results,
      ok: results.filter((r) => statusOf(r) === 200).length,
      refusals: statuses.filter((s) => s === 429).length,
      lastMs: Math.max(...results.map((r) => r.info?.elapsedMs ?? 0)),
    };
  };

  for (const signal of ['retry-after', 'ratelimit', 'x-ratelimit'] as const) {
    scenario(
      ['http'],
      `50 GETs at once at a 10/s bucket (burst 5) told by ${signal}: every one ends 200, at most 60 429s`,
      async () => {
        const { ok, refusals, lastMs, results } = await burst(signal);
        console.info(
          `${run.driver.name}, ${signal}: ${ok}/${REQUESTS} ended 200, ${refusals} × 429, the last after ${Math.round(lastMs)} ms; ${JSON.stringify(
            Object.fromEntries(
              [...new Set(results.map((r) => r.info?.reason))].map((reason) => [
                reason,
                results.filter((r) => r.info?.reason === reason).length,
              ]),
            ),
          )}`,
        );
        expect(ok).toBe(REQUESTS);
        expect(refusals).toBeLessThanOrEqual(60);
      },
    );
  }
});
