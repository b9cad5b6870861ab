/**
 * A Redis Cluster of Debian's redis-server for the tests: `nodes` masters on free ports of
 * 127.0.0.1, each in the foreground with nothing persisted, the 16384 slots split between them
 * (`CLUSTER ADDSLOTSRANGE`), joined with `CLUSTER MEET`, ready when every node says
 * `cluster_state:ok`. Stopped by pid, its folder removed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Child,
  freePorts,
  sleep,
  spawnChild,
  waitUntil,
} from '../../../../test/support/child-process.ts';
import { redisCommand, redisExecutable } from '../../../../test/support/redis-server.ts';

export interface RunningCluster {
  readonly ports: readonly number[];
  /** The port of the node that serves `slot`. */
  nodeOf(slot: number): number;
  close(): Promise<void>;
}

const SLOTS = 16_384;

export const startRedisCluster = async (nodes = 3): Promise<RunningCluster> => {
  const executable = redisExecutable();
  const dir = await mkdtemp(join(tmpdir(), 'jitterbug-redis-cluster-'));
  const ports = await freePorts(nodes);
  const children: Child[] = [];
  const close = async () => {
    await Promise.all(children.map((c) => c.stop()));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    for (const port of ports) {
      const child = spawnChild(
        executable,
        [
          ...['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
          ...['--cluster-enabled', 'yes', '--cluster-config-file', join(dir, `nodes-${port}.conf`)],
          ...['--dir', dir, '--logfile', join(dir, `redis-${port}.log`)],
        ],
        { cwd: dir },
      );
      children.push(child);
      const answers = () =>
        redisCommand(port, ['PING'], 200).then(
          (reply) => reply === '+PONG\r\n',
          () => false,
        );
      const failed = await waitUntil(child, answers, 'redis-server (cluster node)');
      if (failed !== undefined) throw new Error(failed);
    }
    const ranges = ports.map((_, i) => [
      Math.floor((SLOTS * i) / nodes),
      Math.floor((SLOTS * (i + 1)) / nodes) - 1,
    ]);
    for (const [i, port] of ports.entries())
      await redisCommand(port, ['CLUSTER', 'ADDSLOTSRANGE', String(ranges[i]![0]), String(ranges[i]![1])]);
    for (const port of ports.slice(1))
      await redisCommand(ports[0]!, ['CLUSTER', 'MEET', '127.0.0.1', String(port)]);
    const until = Date.now() + 15_000;
    for (;;) {
      const states = await Promise.all(ports.map((port) => redisCommand(port, ['CLUSTER', 'INFO'])));
      if (states.every((info) => info.includes('cluster_state:ok'))) break;
      if (Date.now() > until) throw new Error(`the cluster did not form within 15 s: ${states.join(' | ')}`);
      await sleep(50);
    }
    return {
      ports,
      nodeOf: (slot) => ports[ranges.findIndex(([from, to]) => slot >= from! && slot <= to!)]!,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
};
