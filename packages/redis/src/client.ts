/**
 * The one thing the store asks of a node-redis client: send a command for a key and let it be
 * abandoned. A standalone client (`createClient`) and a cluster (`createCluster`) send commands
 * differently (a cluster routes by the key); both are accepted, and both must have their offline
 * queue off: a command queued while the client is disconnected waits for a reconnection and then
 * runs late, replaying a stale deposit or probe, where the store must fail at once instead.
 */
import { fail } from '@jitterbug/core/adapter';

/** What the store uses of a node-redis command's options. */
interface SendOptions {
  abortSignal?: AbortSignal;
}

/** What the store uses of a node-redis client (`createClient`), of any modules, scripts and RESP version. */
export interface NodeRedisClient {
  /**
   * Sends one raw command (`['EVALSHA', sha, '1', key, ...args]`): the store runs its scripts this
   * way, so that it needs none of the client's modules or script definitions.
   */
  sendCommand(args: string[], options?: SendOptions): Promise<unknown>;
  /** The options the client was created with: the store reads only `disableOfflineQueue`. */
  readonly options?:
    | {
        /** Must be `true`: a store refuses a client that would queue commands while offline. */
        readonly disableOfflineQueue?: boolean | undefined;
      }
    | undefined;
}

/** What the store uses of a node-redis cluster (`createCluster`). */
export interface NodeRedisCluster {
  /**
   * Sends one raw command to the node that serves `firstKey`'s slot: the store passes the key its
   * script touches, and `isReadonly` `false`, so that the script runs on the slot's master.
   */
  sendCommand(
    firstKey: string | undefined,
    isReadonly: boolean | undefined,
    args: string[],
    options?: SendOptions,
  ): Promise<unknown>;
  /**
   * The options the cluster was created with. node-redis has no public getter for a cluster's
   * options (a client has `options`), so the store reads this field to check the offline queue.
   */
  readonly _options: {
    /** The nodes the cluster was given: only their presence tells a cluster from a client. */
    readonly rootNodes: unknown;
    /** The options of the client it makes for each node. */
    readonly defaults?:
      | {
          /** Must be `true`: a store refuses a cluster whose node clients queue while offline. */
          readonly disableOfflineQueue?: boolean | undefined;
        }
      | undefined;
  };
}

/** A node-redis client or cluster. */
export type RedisClientLike = NodeRedisClient | NodeRedisCluster;

/** Sends `args` for `key`; `signal` abandons it (node-redis drops a command not yet written). */
export type Send = (key: string, args: readonly string[], signal: AbortSignal) => Promise<unknown>;

const isCluster = (client: RedisClientLike): client is NodeRedisCluster =>
  '_options' in client &&
  typeof client._options === 'object' &&
  client._options !== null &&
  'rootNodes' in client._options;

const OFFLINE_QUEUE_FIX =
  'a client created with { disableOfflineQueue: true } (for a cluster: { defaults: { disableOfflineQueue: true } }), so that a store that is down fails at once instead of queueing operations to replay when it is back';

/**
 * How the store sends commands through `client`; a `TypeError` for anything that is not a node-redis
 * client or cluster, or one that queues commands while offline.
 */
export const senderOf = (client: RedisClientLike, optionPath: string): Send => {
  if (typeof client !== 'object' || client === null || typeof client.sendCommand !== 'function')
    return fail(optionPath, 'a redis:// URL or a node-redis client (createClient, createCluster)', client);
  if (isCluster(client)) {
    if (client._options.defaults?.disableOfflineQueue !== true) fail(optionPath, OFFLINE_QUEUE_FIX, client);
    return (key, args, signal) => client.sendCommand(key, false, [...args], { abortSignal: signal });
  }
  const standalone = client as NodeRedisClient;
  if (standalone.options?.disableOfflineQueue !== true) fail(optionPath, OFFLINE_QUEUE_FIX, client);
  return (_key, args, signal) => standalone.sendCommand([...args], { abortSignal: signal });
};
