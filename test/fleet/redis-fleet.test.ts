/**
 * The fleet's features across processes: child processes (`fleet-process.ts`) share state through
 * Debian's redis-server, started by the test on 127.0.0.1 and stopped by pid, against an origin on
 * 127.0.0.1 that the test scripts and counts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningRedis, startRedis } from '../support/redis-server.ts';
import { type Origin, runFleet, startOrigin, startProcess } from './fleet.ts';

// Each process is a Node that loads the packages' sources: seconds to start on a loaded machine.
const FLEET_TIMEOUT_MS = 120_000;

let redis: RunningRedis;
let origin: Origin;

beforeAll(async () => {
  redis = await startRedis();
  origin = await startOrigin();
});

afterAll(async () => {
  await origin?.close();
  await redis?.close();
});

describe('a shared retry budget', () => {
  it(
    '4 processes x 20 GETs to an origin that is down send at most 110 requests (98 allowed)',
    async () => {
      origin.requests = 0;
      await runFleet(4, { origin: origin.url, count: 20, budget: true });
      const local = origin.requests;
      origin.requests = 0;
      const reports = await runFleet(4, { origin: origin.url, count: 20, budget: true, redis: redis.url });
      const shared = origin.requests;
      console.info(`4 x 20 GETs to a down origin: ${local} requests with local budgets, ${shared} shared`);
      expect(local).toBeGreaterThan(110);
      expect(shared).toBeLessThanOrEqual(110);
      expect(shared).toBeGreaterThanOrEqual(80);
      // Every request ended: with the 503, or refused by the spent budget after its wait began.
      for (const { results } of reports) {
        expect(results).toHaveLength(20);
        expect(results.every((r) => r === 503 || r === 'FleetBudgetError')).toBe(true);
      }
    },
    FLEET_TIMEOUT_MS,
  );

  it(
    'with redis stopped mid-run a process ends its 20 requests with at most 2 s added',
    async () => {
      origin.requests = 0;
      const config = { origin: origin.url, count: 20, gapMs: 50, budget: true, redis: redis.url };
      const [before] = await runFleet(1, config);
      let stopping: Promise<void> | undefined;
      const run = startProcess(config, (n) => {
        if (n === 5) stopping = redis.stop();
      });
      const after = await run.report;
      await stopping;
      await redis.restart();
      const added = after.elapsedMs - before!.elapsedMs;
      const timeouts = after.calls.filter((c) => c.failure === 'timeout').length;
      console.info(
        `20 requests, redis stopped after the 5th: ${Math.round(before!.elapsedMs)} ms -> ${Math.round(after.elapsedMs)} ms; store calls ${after.calls.map((c) => c.failure ?? 'ok').join(' ')}`,
      );
      expect(after.results).toHaveLength(20);
      expect(added).toBeLessThanOrEqual(2_000);
      // At most one timeout per second of the run: the store is left alone after a failure.
      expect(timeouts).toBeLessThanOrEqual(Math.ceil(after.elapsedMs / 1000) + 1);
      expect(after.calls.every((c) => c.ms < 500)).toBe(true);
    },
    FLEET_TIMEOUT_MS,
  );
});
