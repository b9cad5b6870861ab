/**
 * `@jitterbug/fetch/engine`: the fetch attempt loop for adapters of clients that speak fetch (ky).
 * Users want `withRetry` from `@jitterbug/fetch` instead.
 *
 * @packageDocumentation
 */
export { type FetchFunction, type FetchInit, type FetchInput, isRequestInput, isStreamBody } from './call.ts';
export { type Answer, Call, execute } from './engine.ts';
