/**
 * The round trip of each store operation against a local redis-server (started here on 127.0.0.1,
 * stopped by pid), through `redisStore`: the median and 99th percentile of `run` to its answer over
 * `N` sequential calls, beside a bare `PING` on the same kind of client and the script's own time
 * inside Redis (`INFO commandstats`). A measurement to read, not a test.
 *
 *   node --conditions=@jitterbug/source packages/redis/bench/round-trip.ts [N]
 */
import {
  BREAKER_PROBE,
  BREAKER_REPORT,
  BUDGET_LEASE,
  GCRA_LIMIT,
  GCRA_TAKE,
  type StoreOperation,
} from '@jitterbug/core/store';
import { redisStore } from '@jitterbug/redis';
import { createClient } from '@redis/client';
import { redisCommand, startRedis } from '../../../test/support/redis-server.ts';

const N = Number(process.argv[2] ?? 5_000);
const redis = await startRedis();
const store = redisStore(redis.url, { timeoutMs: 1_000 });
const client = createClient({ url: redis.url, disableOfflineQueue: true });
await client.connect();

const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.floor((sorted.length - 1) * p)]!;
const measure = async (call: () => Promise<unknown>): Promise<string> => {
  for (let i = 0; i < 500; i++) await call();
  const times: number[] = [];
  for (let i = 0; i < N; i++) {
    const start = performance.now();
    await call();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return `median ${(percentile(times, 0.5) * 1000).toFixed(0)} µs, p99 ${(percentile(times, 0.99) * 1000).toFixed(0)} µs`;
};

const operations: readonly (readonly [StoreOperation, readonly number[]])[] = [
  [BUDGET_LEASE, [0.1, 1, 10, 600_000]],
  [GCRA_TAKE, [1, 1, 1_000_000, 0]],
  [GCRA_LIMIT, [0, 1, 10, 600_000]],
  [BREAKER_REPORT, [7, 1, 10_000, 1_000_000, 5_000, 60_000]],
  [BREAKER_PROBE, [7, 1_000, 60_000]],
];
try {
  console.log(
    `Redis ${/redis_version:(\S+)/.exec(await redisCommand(redis.port, ['INFO', 'server']))?.[1]}, Node ${process.version}, ${N} calls each`,
  );
  console.log(`PING (node-redis)          ${await measure(() => client.sendCommand(['PING']))}`);
  for (const [operation, args] of operations) {
    const line = await measure(async () => {
      const reply = await store.run(operation, 'bench', args);
      if (!reply.ok) throw new Error(`${operation.name}: ${reply.failure}`);
    });
    console.log(`${operation.name.padEnd(26)} ${line}`);
  }
  const stats = await redisCommand(redis.port, ['INFO', 'commandstats']);
  console.log(
    `EVALSHA inside Redis       ${/cmdstat_evalsha:calls=\d+,usec=\d+,usec_per_call=([\d.]+)/.exec(stats)?.[1]} µs per call`,
  );
} finally {
  await client.close();
  await store.close();
  await redis.close();
}
