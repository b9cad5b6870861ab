/**
 * What a finished request cost: attempts and waits. Adapters attach it to the response or error
 * object the caller receives; {@link getRetryInfo} reads it back the same way for every client.
 *
 * The summary is kept in a {@link privateSlot} on the object: invisible to keys, JSON, spreads and
 * deep equality, and the cheapest way measured to attach it on every response. A private field is
 * seen only by the class that declared it, so every copy of this package registers its reader
 * under a registered symbol: two copies in one program (two adapter versions, say) read each
 * other's summaries.
 */
import type { RetryInfo } from './options.ts';
import { privateSlot } from './private-slot.ts';

type Reader = (target: object) => RetryInfo | undefined;

const slot = privateSlot<RetryInfo>();
const readOwn: Reader = (target) => slot.get(target);

const READERS = Symbol.for('jitterbug.retryInfo.readers');
const registry = globalThis as { [READERS]?: Reader[] };
const sharedReaders = (): Reader[] => {
  const existing = registry[READERS];
  if (existing) return existing;
  try {
    Object.defineProperty(registry, READERS, { value: [], configurable: false, enumerable: false });
    return registry[READERS] as Reader[];
  } catch {
    // A frozen global (SES lockdown): this copy reads its own summaries only.
    return [];
  }
};
const readers = sharedReaders();
readers.push(readOwn);

const isTaggable = (value: unknown): value is object =>
  (typeof value === 'object' && value !== null) || typeof value === 'function';

/** Attaches a summary to a response or error object (used by adapters). */
export const setRetryInfo = (target: unknown, summary: RetryInfo): void => {
  if (isTaggable(target)) slot.set(target, summary);
};

const read = (target: object): RetryInfo | undefined => {
  const own = readOwn(target);
  if (own !== undefined || readers.length === 1) return own;
  for (const reader of readers) {
    const found = reader(target);
    if (found !== undefined) return found;
  }
  return undefined;
};

/**
 * The `config` of something that is not an error, as axios' responses have one; `undefined` also
 * when a getter throws or the object is a revoked proxy.
 */
const responseConfigOf = (target: object): unknown => {
  try {
    return target instanceof Error ? undefined : (target as { config?: unknown }).config;
  } catch {
    return undefined;
  }
};

/**
 * The retry summary of a response or error returned by a jitterbug-wrapped client, or `undefined`
 * for objects jitterbug did not produce. A response without a summary of its own is read through
 * its `config` (axios' responses carry their request's config, which is where the axios adapter
 * keeps a successful response's summary: one stamp per request instead of two). Errors are not:
 * every error jitterbug hands over carries its own summary, and an error raised after a success
 * (by a response transform or interceptor) must not read as that success.
 */
export const getRetryInfo = (responseOrError: unknown): RetryInfo | undefined => {
  if (!isTaggable(responseOrError)) return undefined;
  const found = read(responseOrError);
  if (found !== undefined) return found;
  const config = responseConfigOf(responseOrError);
  return isTaggable(config) ? read(config) : undefined;
};
