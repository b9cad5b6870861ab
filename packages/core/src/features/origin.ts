/**
 * The origin of a request's URL, as the per-origin features (the pacer, the circuit breaker) key
 * their state: asked on every answer, so cached by scheme and authority.
 */

/** Origins remembered; past that the cache starts again (a client of many hosts). */
const MAX_ORIGINS = 1000;

const originCache = new Map<string, string>();
let lastKey = '';
let lastOrigin = '';

/**
 * The origin of a request's URL (a relative one's is the page's, in a browser). Every answer asks
 * it: `new URL` is asked once per scheme and authority, and a URL of the same authority as the last
 * one is answered without making a string.
 */
export const originOf = (url: string): string => {
  const end = lastKey.length;
  if (end > 0 && url.startsWith(lastKey) && (url.length === end || '/?#'.includes(url.charAt(end))))
    return lastOrigin;
  const from = url.indexOf('://');
  let to = from < 0 ? -1 : from + 3;
  while (to > 0 && to < url.length && !'/?#'.includes(url.charAt(to))) to++;
  const key = to < 0 ? url : url.slice(0, to);
  let origin = originCache.get(key);
  if (origin === undefined) {
    try {
      origin = new URL(key, (globalThis as { location?: { href?: string } }).location?.href).origin;
    } catch {
      origin = '';
    }
    if (originCache.size >= MAX_ORIGINS) originCache.clear();
    originCache.set(key, origin);
  }
  // A relative URL's origin depends on the page: not kept as the last one.
  if (to > 0) {
    lastKey = key;
    lastOrigin = origin;
  }
  return origin;
};
