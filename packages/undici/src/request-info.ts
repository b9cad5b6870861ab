/**
 * Reads what the policy needs from undici's dispatch options: method, absolute URL, request
 * headers (for the idempotency key) and how the body behaves when sent again.
 */
import type { HeaderGetter } from '@jitterbug/core';
import { type BodyKind, bodyKind } from '@jitterbug/core/adapter';
import type { DispatchOpts, HeaderRecord } from './types.ts';

const NO_HEADERS: HeaderGetter = () => undefined;

const joinValue = (value: unknown): string | undefined => {
  if (value === undefined || value === null) return undefined;
  return Array.isArray(value) ? value.map(String).join(', ') : String(value);
};

/**
 * Calls `f` with each name and value of `headers`, in any shape undici takes (a record, a flat
 * `[name, value, …]` array, an iterable of `[name, value]` pairs: `Headers`, `Map`, …), until `f`
 * returns `true`.
 */
export const eachHeader = (
  headers: unknown,
  f: (name: unknown, value: unknown) => boolean | undefined,
): void => {
  if (headers === undefined || headers === null || typeof headers !== 'object') return;
  if (Array.isArray(headers) && headers.length > 0 && !Array.isArray(headers[0])) {
    for (let i = 0; i + 1 < headers.length; i += 2) if (f(headers[i], headers[i + 1])) return;
  } else if (
    Array.isArray(headers) ||
    typeof (headers as Iterable<unknown>)[Symbol.iterator] === 'function'
  ) {
    for (const [name, value] of headers as Iterable<readonly [unknown, unknown]>) if (f(name, value)) return;
  } else {
    for (const name of Object.keys(headers)) if (f(name, (headers as Record<string, unknown>)[name])) return;
  }
};

/** Whether `headers` is a record of names (not an array, nor an iterable of pairs). */
export const isHeaderRecord = (headers: unknown): headers is Record<string, unknown> =>
  typeof headers === 'object' &&
  headers !== null &&
  !Array.isArray(headers) &&
  typeof (headers as Iterable<unknown>)[Symbol.iterator] !== 'function';

/** A case-insensitive reader over any header shape undici accepts (see {@link eachHeader}). */
export const requestHeaderGetter = (headers: unknown): HeaderGetter => {
  if (headers === undefined || headers === null || typeof headers !== 'object') return NO_HEADERS;
  const record = isHeaderRecord(headers) ? headers : undefined;
  return (name) => {
    const lower = name.toLowerCase();
    // A record's own lower-case name first: undici's request() and fetch pass them so.
    if (record && Object.hasOwn(record, lower)) return joinValue(record[lower]);
    let found: string | undefined;
    eachHeader(headers, (key, value) => {
      if (String(key).toLowerCase() !== lower) return false;
      found = joinValue(value);
      return true;
    });
    return found;
  };
};

/** A reader over response headers as undici passes them (lower-case names). */
export const responseHeaderGetter =
  (headers: HeaderRecord | null | undefined): HeaderGetter =>
  (name) =>
    headers ? joinValue(headers[name.toLowerCase()]) : undefined;

const originOf = (origin: unknown): string => {
  // A string first (undici's own request() and fetch pass one), and a regular expression only when
  // it ends in '/': both are measurable on the success path.
  if (typeof origin === 'string') return origin.endsWith('/') ? origin.replace(/\/+$/, '') : origin;
  return origin instanceof URL ? origin.origin : '';
};

const SLASH = 47;

/** The request's absolute URL (or its path alone when no origin is known). */
export const requestUrl = (opts: DispatchOpts, fallbackOrigin: unknown): string => {
  const path = opts.path;
  const origin = opts.origin ?? fallbackOrigin;
  if (path.charCodeAt(0) === SLASH) {
    // The common case (a string origin without a trailing slash) without a call.
    if (typeof origin === 'string' && origin.charCodeAt(origin.length - 1) !== SLASH) return origin + path;
  } else if (/^https?:\/\//i.test(path)) {
    return path;
  }
  return `${originOf(origin)}${path}`;
};

/** undici's own `FormData` is not Node's global class, so `instanceof` misses it. */
const isFormDataLike = (body: object): boolean =>
  (body as { [Symbol.toStringTag]?: unknown })[Symbol.toStringTag] === 'FormData' &&
  typeof (body as { getAll?: unknown }).getAll === 'function';

/**
 * How the dispatch body behaves when sent again. undici re-encodes a `FormData` on every dispatch,
 * so one is replayable whichever class made it; everything else is classified by the core.
 */
export const requestBodyKind = (body: unknown): BodyKind =>
  typeof body === 'object' && body !== null && isFormDataLike(body) ? 'replayable' : bodyKind(body);

/** The request's declared `content-length`, when it is a plain non-negative integer. */
export const declaredLength = (headers: HeaderGetter): number | undefined => {
  const value = headers('content-length');
  if (value === undefined || value === null || !/^\s*\d+\s*$/.test(value)) return undefined;
  return Number(value);
};

/** The request's headers as a `Headers` (for `beforeRetry`), from any shape undici takes. */
export const headersObject = (headers: unknown): Headers => {
  const result = new Headers();
  eachHeader(headers, (name, value) => {
    const joined = joinValue(value);
    if (joined !== undefined) result.append(String(name), joined);
  });
  return result;
};

/**
 * `opts` sent to `url` with `headers` (what `beforeRetry` set): the origin, the path and query, and
 * the headers as a record. An agent routes the new origin; a client bound to one origin cannot.
 */
export const editedOpts = (opts: DispatchOpts, url: string, headers: Headers): DispatchOpts => {
  const parsed = new URL(url);
  const record: Record<string, string> = {};
  headers.forEach((value, name) => {
    record[name] = value;
  });
  return { ...opts, origin: parsed.origin, path: parsed.pathname + parsed.search, headers: record };
};
