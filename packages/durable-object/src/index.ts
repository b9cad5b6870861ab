/**
 * `@jitterbug/durable-object`: a shared store for jitterbug's fleet features in Cloudflare Workers,
 * one Durable Object per origin. See the package's README.
 *
 * @packageDocumentation
 */

export {
  DURABLE_OBJECT_STORE_DEFAULTS,
  type DurableObjectStoreOptions,
  durableObjectStore,
  type StoreObjectNamespace,
} from './durable-object-store.ts';
export type { RunAnswer, RunRequest } from './protocol.ts';
export { JitterbugStoreObject, type StoreObjectState, type StoreObjectStorage } from './store-object.ts';
