/**
 * `redisStore` over a node-redis cluster client on a real three-node Redis Cluster: every scope's key
 * is hash-tagged, so each call goes to the node of its slot; scopes spread over the nodes.
 */
import { BUDGET_LEASE, GCRA_TAKE } from '@jitterbug/core/store';
import { redisStore } from '@jitterbug/redis';
import { createCluster } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisCommand } from '../../../test/support/redis-server.ts';
import { type RunningCluster, startRedisCluster } from './support/redis-cluster.ts';

let cluster: RunningCluster;

beforeAll(async () => {
  cluster = await startRedisCluster(3);
}, 30_000);

afterAll(async () => {
  await cluster?.close();
});

const clusterClient = (disableOfflineQueue: boolean) =>
  createCluster({
    rootNodes: [{ url: `redis://127.0.0.1:${cluster.ports[0]}` }],
    defaults: { disableOfflineQueue },
  });

describe('redisStore on Redis Cluster', () => {
  it('runs each operation on the node of its scope’s slot, for scopes spread over every node', async () => {
    const client = clusterClient(true);
    client.on('error', () => {});
    await client.connect();
    try {
      const store = redisStore(client, { timeoutMs: 1_000 });
      const scopes = Array.from({ length: 24 }, (_, i) => `https://api${i}.example.com`);
      const nodes = new Set<number>();
      for (const scope of scopes) {
        expect(await store.run(BUDGET_LEASE, scope, [0, 2, 10, 60_000])).toMatchObject({
          ok: true,
          result: [2, 8],
        });
        expect(await store.run(GCRA_TAKE, scope, [1, 1_000, 0, 0])).toMatchObject({ ok: true });
        const key = store.keyOf(scope, BUDGET_LEASE.state);
        // Both states of a scope share its slot (the {scope} hash tag), and live on that slot's node.
        const slot = Number((await redisCommand(cluster.ports[0]!, ['CLUSTER', 'KEYSLOT', key])).slice(1));
        const other = Number(
          (
            await redisCommand(cluster.ports[0]!, ['CLUSTER', 'KEYSLOT', store.keyOf(scope, GCRA_TAKE.state)])
          ).slice(1),
        );
        expect(other).toBe(slot);
        const node = cluster.nodeOf(slot);
        nodes.add(node);
        expect(await redisCommand(node, ['GET', key])).toBe('$1\r\n8\r\n');
      }
      expect(nodes.size).toBe(3);
    } finally {
      await client.close();
    }
  });

  it('refuses a cluster client whose nodes queue commands while offline', () => {
    expect(() => redisStore(clusterClient(false))).toThrow(/defaults: \{ disableOfflineQueue: true \}/);
  });
});
