/**
 * Per-route policies: each rule's `match` compiled once, at policy creation, into a predicate. A
 * pattern says what it matches or is refused: an empty one, a query (never matched: a rule matches
 * the path), methods joined by anything but `|`. A path pattern is tried on the URL's path and, for
 * a call made under a client's base URL (axios' `baseURL`, ky's `prefix` or `baseUrl`), on the path
 * below that base as well, so that a rule can be written as the call is (`'/health'` for
 * `api.get('health')` under `/api/`). A trailing `/*` also matches the path without it: `'/search/*'`
 * matches `/search` (URLPattern's `/search{/*}?`), as a rule for "search and below" means.
 */
import { fail } from './option-error.ts';
import type { RouteMatch } from './options.ts';
import { compilePathPattern } from './path-pattern.ts';

/**
 * A compiled `match`: `url` the request's URL, `relative` its path below the client's base URL
 * (`undefined` when there is no base, or the URL is not under it).
 */
export type RouteMatcher = (method: string, url: URL, relative?: string) => boolean;

const METHOD = /^[A-Za-z]+$/;

/** A parameter's name in a path pattern (`:id`), as URLPattern reads one. */
export const PARAMETER = /:[\p{ID_Start}$_][\p{ID_Continue}$]*/u.source;

/** The methods HTTP defines (RFC 9110, PATCH, QUERY): a route names another only if `methods` lists it. */
const HTTP_METHODS = [
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'DELETE',
  'CONNECT',
  'OPTIONS',
  'TRACE',
  'PATCH',
  'QUERY',
];

/**
 * Where a query (`?…`) or a fragment (`#…`) starts in a path pattern, or -1: a `?` after a
 * parameter's name, a `)`, a `}` or a `*` is URLPattern's "optional" modifier instead.
 */
const queryAt = (pattern: string): number => {
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') i++;
    else if (c === '#') return i;
    else if (c === '?' && !new RegExp(`(?:[)}*]|${PARAMETER})$`, 'u').test(pattern.slice(0, i))) {
      return i;
    }
  }
  return -1;
};

/** Compiles the path part of a string pattern: its `/*` at the end also matches the path without it. */
const compilePath = (pathPart: string, path: string): ((pathname: string) => boolean) => {
  let whole: RegExp;
  let bare: RegExp | undefined;
  try {
    whole = compilePathPattern(pathPart);
    if (pathPart.length > 2 && pathPart.endsWith('/*') && !pathPart.endsWith('\\/*')) {
      bare = compilePathPattern(pathPart.slice(0, -2));
    }
  } catch (error) {
    throw new TypeError(`jitterbug: option "${path}": ${(error as Error).message}`);
  }
  return bare ? (p) => whole.test(p) || bare.test(p) : (p) => whole.test(p);
};

/**
 * Compiles `"METHOD /path/pattern"`, `"GET|HEAD /path"`, `"/path/pattern"`, a `URLPattern` (or any
 * object with the same `test`) or a predicate.
 *
 * @throws TypeError naming `path` when the pattern is malformed (empty, with a query, methods not
 *   joined by `|`), or names a method that is neither HTTP's nor `listed` (a typo, `GTE`, would
 *   otherwise match nothing, silently).
 */
export const compileRouteMatch = (
  match: RouteMatch,
  path: string,
  listed: ReadonlySet<string> = new Set(),
): RouteMatcher => {
  if (typeof match === 'function') {
    return (method, url) => match({ method, url }) === true;
  }
  if (typeof match === 'string') {
    const text = match.trim();
    const slash = text.indexOf('/');
    if (slash === -1) {
      return fail(
        path,
        text === '' ? 'a pattern, not empty' : 'a pattern with a path ("/…")',
        match,
        'routePath',
      );
    }
    const methodPart = text.slice(0, slash).trim();
    const pathPart = text.slice(slash);
    if (/[,;\s]/.test(methodPart))
      fail(path, 'a pattern whose methods are joined by "|"', match, 'routeMethods');
    const methods = methodPart === '' ? undefined : methodPart.split('|');
    if (methods?.some((m) => !METHOD.test(m)))
      fail(path, 'a pattern whose methods are tokens', match, 'routeMethodToken');
    if (queryAt(pathPart) >= 0)
      fail(path, 'a path pattern without a query (one is never matched)', match, 'routeQuery');
    const methodSet = methods && new Set(methods.map((m) => m.toUpperCase()));
    for (const method of methodSet ?? []) {
      if (!HTTP_METHODS.includes(method) && !listed.has(method)) {
        fail(
          path,
          `a pattern whose methods HTTP defines or "methods" lists (${method} is neither)`,
          match,
          'routeMethod',
        );
      }
    }
    const test = compilePath(pathPart, path);
    return (method, url, relative) =>
      (methodSet === undefined || methodSet.has(method)) &&
      (test(url.pathname) || (relative !== undefined && test(relative)));
  }
  if (typeof match === 'object' && match !== null && typeof match.test === 'function') {
    return (_method, url, relative) =>
      match.test(url.href) === true ||
      (relative !== undefined && match.test(new URL(relative, url).href) === true);
  }
  return fail(path, 'a string, a URLPattern or a function', match);
};
