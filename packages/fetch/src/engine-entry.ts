/**
 * `@jitterbug/fetch/engine`: the fetch attempt loop for adapters of clients that speak fetch (ky).
 * Users want `withRetry` from `@jitterbug/fetch` instead.
 *
 * @packageDocumentation
 */
export { type FetchFunction, type FetchInit, type FetchInput, isStreamBody } from './call.ts';
export { Call, type EngineSettings, execute } from './engine.ts';
