/**
 * What a finished request cost: attempts and waits. Adapters attach it to the response or error
 * object the caller receives; {@link getRetryInfo} reads it back the same way for every client.
 */
import type { RetrySummary } from './options.ts';

const infos = new WeakMap<object, RetrySummary>();

/** Attaches a summary to a response or error object (used by adapters). */
export const setRetryInfo = (target: unknown, summary: RetrySummary): void => {
  if ((typeof target === 'object' && target !== null) || typeof target === 'function')
    infos.set(target, summary);
};

/**
 * The retry summary of a response or error returned by a jitterbug-wrapped client, or `undefined`
 * for objects jitterbug did not produce.
 */
export const getRetryInfo = (responseOrError: unknown): RetrySummary | undefined =>
  (typeof responseOrError === 'object' && responseOrError !== null) || typeof responseOrError === 'function'
    ? infos.get(responseOrError)
    : undefined;
