/**
 * The origin-wide pacer (`pacer: createPacer()`) through every client: the core decides when a
 * request to a paced origin may go; each client only has to wait for that turn before it sends, and
 * fail the request the pacer refuses with the core's `PacerError`, or end the wait on the caller's
 * signal. In virtual time (`virtual-time.ts`): the server logs the time each request was sent, and
 * the waits are exact.
 */
import { createPacer, PacerError, type RetryPolicyOptions } from '@jitterbug/core';
import { expect } from 'vitest';
import type { ConformanceResult } from './driver.ts';
import { featureDrivers } from './drivers/index.ts';
import { describeRuns, errorChain } from './harness.ts';
import { type VirtualTime, virtualTime } from './virtual-time.ts';

const NOW = Date.UTC(2026, 10, 26, 9, 0, 0);

describeRuns(featureDrivers, (run) => {
  const { scenario, client, expectFinalStatus } = run;
  /** A client in virtual time, with the pacer (or `pacer: false`). */
  const paced = async (extra: RetryPolicyOptions = {}) => {
    const vt = virtualTime(NOW);
    const c = await client({ now: vt.now, sleep: vt.sleep, pacer: createPacer(), ...extra });
    return { vt, c };
  };
  /** Logs, for each request to `path`, its `x-n` header and the virtual time it arrived. */
  const logArrivals = (vt: VirtualTime, path: string) => {
    const arrivals: { n: string | undefined; at: number }[] = [];
    run.server.route(path, (request) => {
      arrivals.push({ n: request.headers['x-n'] as string | undefined, at: vt.now() });
      return { status: 200, body: 'ok' };
    });
    return arrivals;
  };
  const numbered = (path: string, n: number) => ({ method: 'GET', path, headers: { 'x-n': String(n) } });

  scenario(
    ['http'],
    'a 429 with Retry-After holds the next requests to the origin until then, then sends them one at a time, in order',
    async () => {
      const { vt, c } = await paced({ maxAttempts: 1 });
      run.server.route('/limited', [{ status: 429, headers: { 'retry-after': '2' } }]);
      const arrivals = logArrivals(vt, '/next');
      expectFinalStatus(await vt.track(c.send({ method: 'GET', path: '/limited' })), 429);
      expect(vt.waits).toEqual([]);
      const results = await Promise.all(
        Array.from({ length: 5 }, (_, i) => vt.track(c.send(numbered('/next', i)))),
      );
      for (const result of results) expectFinalStatus(result, 200);
      expect(arrivals.map((a) => a.n)).toEqual(['0', '1', '2', '3', '4']);
      // The first at the end of the 2 s the server asked for, and not all at once.
      expect(arrivals[0]!.at - NOW).toBeCloseTo(2_000, 2);
      for (let i = 1; i < arrivals.length; i++) expect(arrivals[i]!.at).toBeGreaterThan(arrivals[i - 1]!.at);
      // Each request was held for exactly the time it waited, and counted it.
      for (const [i, result] of results.entries()) {
        expect(result.info?.attempts).toBe(1);
        expect(result.info?.totalDelayMs).toBeCloseTo(arrivals[i]!.at - NOW, 2);
      }
    },
  );

  /** Fields an answer advertises, and when the requests that follow it are sent (ms after it). */
  const quotas: readonly [string, Record<string, string>, number[]][] = [
    // Four more in the next two seconds: one every 500 ms.
    ['RateLimit', { ratelimit: '"default";r=4;t=2' }, [0, 500, 1_000, 1_500]],
    // Never faster than the policy's long-run quota (q / w), whatever r / t says.
    [
      'RateLimit-Policy',
      { 'ratelimit-policy': '"default";q=60;w=60', ratelimit: '"default";r=50;t=5' },
      [0, 1_000, 2_000, 3_000],
    ],
    [
      'X-RateLimit-Remaining',
      { 'x-ratelimit-remaining': '3', 'x-ratelimit-reset': '6' },
      [0, 2_000, 4_000, 6_000],
    ],
  ];

  scenario(
    ['http'],
    'the quota the server advertises (RateLimit, RateLimit-Policy, X-RateLimit-*) paces the requests before any 429',
    async () => {
      for (const [name, fields, sentAt] of quotas) {
        const { vt, c } = await paced();
        const path = `/${name.toLowerCase()}`;
        run.server.route(path, [{ status: 200, headers: fields }]);
        const arrivals = logArrivals(vt, `${path}/next`);
        expectFinalStatus(await vt.track(c.send({ method: 'GET', path })), 200);
        const results = await Promise.all(
          Array.from({ length: 4 }, (_, i) => vt.track(c.send(numbered(`${path}/next`, i)))),
        );
        for (const result of results) expectFinalStatus(result, 200);
        expect(
          arrivals.map((a) => [a.n, a.at - NOW]),
          name,
        ).toEqual(sentAt.map((t, i) => [String(i), t]));
      }
    },
  );

  scenario(
    ['http'],
    'a wait longer than retryAfter.maxMs fails the request at once with a PacerError; nothing is sent',
    async () => {
      const { vt, c } = await paced({ retryAfter: { maxMs: 5_000 } });
      run.server.route('/limited', [{ status: 429, headers: { 'retry-after': '120' } }]);
      const limited = await vt.track(c.send({ method: 'GET', path: '/limited' }));
      expectFinalStatus(limited, 429);
      expect(limited.info?.reason).toBe('retry-after-too-long');
      const refused = await vt.track(c.send({ method: 'GET', path: '/other' }));
      expect(errorChain(refused).some((e) => e instanceof PacerError)).toBe(true);
      expect(run.server.seen('/other')).toHaveLength(0);
      expect(vt.waits).toEqual([]);
      expect(refused.info).toMatchObject({ attempts: 0, reason: 'retry-after-too-long', outcome: 'failure' });
    },
  );

  scenario(
    ['http'],
    'the caller’s signal ends a hold at once, with its reason; nothing is sent',
    async () => {
      const { vt, c } = await paced({ maxAttempts: 1 });
      run.server.route('/limited', [{ status: 429, headers: { 'retry-after': '30' } }]);
      expectFinalStatus(await vt.track(c.send({ method: 'GET', path: '/limited' })), 429);
      // The clock stands still: the request waits until the caller gives up.
      vt.hold();
      const controller = new AbortController();
      const reason = new Error('caller left while held');
      const pending = c.send({ method: 'GET', path: '/other', signal: controller.signal });
      await expect.poll(() => vt.waits.length).toBeGreaterThan(0);
      const result = await run.abortPromptly(pending, controller, reason);
      expect(run.server.seen('/other')).toHaveLength(0);
      expect(result.info).toMatchObject({ attempts: 0, reason: 'aborted' });
    },
  );

  /**
   * 20 GETs to a server that answers `429 Retry-After: 1` for its first second: 4 sent at once, 16
   * more once the client has had the first 429. The statuses the server answered, in order.
   */
  const burst = async (pacer: false | undefined): Promise<number[]> => {
    const vt = virtualTime(NOW);
    let limitedUntil: number | undefined;
    run.server.route('/burst', () => {
      limitedUntil ??= vt.now() + 1_000;
      return vt.now() < limitedUntil
        ? { status: 429, headers: { 'retry-after': '1' } }
        : { status: 200, body: 'ok' };
    });
    let limited!: () => void;
    const firstLimited = new Promise<void>((resolve) => {
      limited = resolve;
    });
    // No retry budget: it caps retries in an outage by itself, which is not what is measured here.
    const c = await client({
      now: vt.now,
      sleep: vt.sleep,
      random: () => 0.5,
      budget: false,
      onRetry: () => limited(),
      ...(pacer === false ? { pacer } : { pacer: createPacer() }),
    });
    const release = vt.hold();
    const send = (): Promise<ConformanceResult> => vt.track(c.send({ method: 'GET', path: '/burst' }));
    const first = Array.from({ length: 4 }, send);
    await firstLimited;
    const rest = Array.from({ length: 16 }, send);
    release();
    for (const result of await Promise.all([...first, ...rest])) expectFinalStatus(result, 200);
    return run.server.responses.map((r) => (r.step as { status: number }).status);
  };

  scenario(
    ['http'],
    'a burst: the only 429s are the requests that were out when the first came back; every request then succeeds',
    async () => {
      const statuses = await burst(undefined);
      expect(statuses.filter((s) => s === 429).length).toBeLessThanOrEqual(4);
      expect(statuses.filter((s) => s === 200)).toHaveLength(20);
    },
  );

  scenario(['http'], 'the same burst with pacer: false: one 429 per request', async () => {
    const statuses = await burst(false);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
    expect(statuses.filter((s) => s === 200)).toHaveLength(20);
  });
});
