/**
 * The fleet's pacer at a real rate limiter (issue 35, item 6): nginx's `limit_req` at 10 requests
 * a second (10 at once, `burst=9 nodelay`), refusing the rest with 429 and `Retry-After: 1`, in
 * front of the Node backend that answers 200, over plain HTTP on 127.0.0.1. Fleet processes
 * (`fleet-process.ts`) share their pacer through Debian's redis-server, started by the test. One
 * process meets the limit first; then three start, after it: between them they must meet at most
 * 10 × 429, and every request must end 200.
 *
 * The same run with each process's local pacer, against an nginx of its own, is the figure to
 * compare with: printed, and held only to having met the limit at all (the scenario bites).
 * Counted in nginx's access log, the first process's requests on `/first/`, the others' on `/late/`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack } from '../nginx/stack.ts';
import type { NginxSetup } from '../support/nginx/config.ts';
import { type RunningRedis, startRedis } from '../support/redis-server.ts';
import { countBy } from '../support/sent.ts';
import { runFleet } from './fleet.ts';
import type { FleetProcessConfig } from './fleet-process.ts';

// Two runs of four Node processes that load the packages' sources, each run paced at 10 a second.
const TIMEOUT_MS = 180_000;
const LATE_ALLOWED_429 = 10;

const limit10: NginxSetup = {
  zones: { api: { rate: '10r/s' } },
  servers: [
    {
      name: 'api',
      listen: ['http'],
      locations: [
        {
          path: '/',
          to: { proxy: 'backend' },
          limitReq: { zone: 'api', burst: 9, nodelay: true, status: 429, retryAfterSeconds: 1 },
        },
      ],
    },
  ],
};

interface Run {
  /** nginx's statuses per path prefix (`first`, `late`), e.g. `{ '200': 45, '429': 3 }`. */
  readonly served: Record<'first' | 'late', Record<string, number>>;
  /** What each process's requests ended with, by process. */
  readonly endings: readonly (readonly (number | string)[])[];
  /** How long each process's run took, in s (printed for the record, never asserted). */
  readonly seconds: readonly number[];
}

let redis: RunningRedis;

beforeAll(async () => {
  redis = await startRedis();
});

afterAll(async () => {
  await redis?.close();
});

/** One process sends 20 at once, then three more 15 at once each, against a fresh nginx. */
const meetTheLimit = async (shared: Partial<FleetProcessConfig>): Promise<Run> => {
  const stack = await startStack(limit10);
  try {
    const base = stack.nginx.url('api', 'http');
    const config = { count: 0, concurrent: true, pacer: true, ...shared };
    const first = await runFleet(1, { ...config, origin: `${base}/first/`, count: 20 });
    const late = await runFleet(3, { ...config, origin: `${base}/late/`, count: 15 });
    const log = await stack.nginx.accessLog.settled();
    const served = (prefix: string) =>
      Object.fromEntries(
        countBy(
          log.filter((l) => l.uri.startsWith(prefix)),
          (l) => String(l.status),
        ),
      );
    return {
      served: { first: served('/first/'), late: served('/late/') },
      endings: [...first, ...late].map((r) => r.results),
      seconds: [...first, ...late].map((r) => Math.round(r.elapsedMs / 100) / 10),
    };
  } finally {
    await stack.stop();
  }
};

const ended = (run: Run): Record<string, number> => Object.fromEntries(countBy(run.endings.flat(), String));

describe("a shared pacer at nginx's limit_req", () => {
  it(
    `10 r/s, Retry-After 1: three processes that start after a fourth met it see at most ${LATE_ALLOWED_429} x 429, all ending 200`,
    async () => {
      const local = await meetTheLimit({});
      // A store timeout of 500 ms, as in redis-fleet.test.ts: a process that starts 15 requests at
      // once on this shared machine lags its own event loop by tens of ms, which redisStore's 10 ms
      // would count against the store (its fall-back is the test of redis stopped, there).
      const shared = await meetTheLimit({ redis: redis.url, timeoutMs: 500 });
      console.info(
        `nginx limit_req 10 r/s: the first process was served ${JSON.stringify(shared.served.first)}, the three late ones ${JSON.stringify(shared.served.late)} with a shared pacer; with local pacers ${JSON.stringify(local.served.first)} and ${JSON.stringify(local.served.late)} (ended ${JSON.stringify(ended(local))}); runs took ${shared.seconds.join(', ')} s shared, ${local.seconds.join(', ')} s local`,
      );

      // The limit was met: by the first process in both runs, and by the late ones pacing alone.
      expect(shared.served.first['429'] ?? 0).toBeGreaterThanOrEqual(1);
      expect(local.served.first['429'] ?? 0).toBeGreaterThanOrEqual(1);
      expect(local.served.late['429'] ?? 0).toBeGreaterThanOrEqual(1);

      expect(shared.served.late['429'] ?? 0).toBeLessThanOrEqual(LATE_ALLOWED_429);
      expect(shared.served.late['200']).toBe(45);
      expect(shared.served.first['200']).toBe(20);
      expect(shared.endings).toHaveLength(4);
      expect(ended(shared)).toEqual({ '200': 65 });
    },
    TIMEOUT_MS,
  );
});
