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
import type { RetryInfo } from './events.ts';
import { privateSlot } from './private-slot.ts';

type Reader = (target: object) => RetryInfo | undefined;

const slot = privateSlot<RetryInfo>();
const readOwn: Reader = slot.get;

const READERS = Symbol.for('jitterbug.retryInfo.readers');
const registry = globalThis as { [READERS]?: Reader[] };
let readers = registry[READERS];
if (!readers) {
  try {
    Object.defineProperty(registry, READERS, { value: [], configurable: false, enumerable: false });
    readers = registry[READERS] as Reader[];
  } catch {
    // A frozen global (SES lockdown): this copy reads its own summaries only.
    readers = [];
  }
}
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

/** A field of `target`; `undefined` also when a getter throws or the object is a revoked proxy. */
const field = (target: object, name: 'config' | 'cause' | 'response' | 'headers'): unknown => {
  try {
    return (target as Record<string, unknown>)[name];
  } catch {
    return undefined;
  }
};

/** `instanceof Error`, false for a revoked proxy (whose prototype cannot be read). */
const isError = (value: object): boolean => {
  try {
    return value instanceof Error;
  } catch {
    return false;
  }
};

/** A summary on an error a client wrapped around jitterbug's (its `cause`), or on its `response`. */
const fromWrapped = (error: object): RetryInfo | undefined => {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && isTaggable(current); depth++) {
    const found = read(current);
    if (found !== undefined) return found;
    const response = field(current, 'response');
    const onResponse = isTaggable(response) ? read(response) : undefined;
    if (onResponse !== undefined) return onResponse;
    current = field(current, 'cause');
  }
  return undefined;
};

/**
 * The retry summary of a response or error returned by a jitterbug-wrapped client, or `undefined`
 * for objects jitterbug did not produce. A response without a summary of its own is read through
 * its `config` (axios' responses carry their request's config, which is where the axios adapter
 * keeps a successful response's summary: one stamp per request instead of two) and its `headers`
 * (undici's `request()` builds its result itself; the headers object is the one jitterbug handed on). An error is read
 * through the errors a client wraps around jitterbug's (`cause`: ky's `NetworkError`, fetch's
 * `TypeError`) and through its own `response` (ky's `HTTPError`) — never through a config, so that
 * an error raised after a success (by a response transform or interceptor) does not read as it.
 */
export const getRetryInfo = (responseOrError: unknown): RetryInfo | undefined => {
  if (!isTaggable(responseOrError)) return undefined;
  if (isError(responseOrError)) return fromWrapped(responseOrError);
  const found = read(responseOrError);
  if (found !== undefined) return found;
  for (const name of ['config', 'headers'] as const) {
    const carrier = field(responseOrError, name);
    const onCarrier = isTaggable(carrier) ? read(carrier) : undefined;
    if (onCarrier !== undefined) return onCarrier;
  }
  return undefined;
};
