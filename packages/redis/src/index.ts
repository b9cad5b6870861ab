/**
 * `@jitterbug/redis`: a shared store for jitterbug's fleet features over Redis or Valkey, through
 * node-redis. See the package's README.
 *
 * @packageDocumentation
 */

export type { NodeRedisClient, NodeRedisCluster, RedisClientLike } from './client.ts';
export { REDIS_STORE_DEFAULTS, type RedisStore, type RedisStoreOptions, redisStore } from './redis-store.ts';
