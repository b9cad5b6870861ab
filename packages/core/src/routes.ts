/**
 * Per-route policies: each rule's `match` compiled once, at policy creation, into a predicate.
 */
import { fail } from './option-error.ts';
import type { RouteMatch } from './options.ts';
import { compilePathPattern } from './path-pattern.ts';

/** A compiled `match`. */
export type RouteMatcher = (method: string, url: URL) => boolean;

const METHOD = /^[A-Za-z]+$/;

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
 * Compiles `"METHOD /path/pattern"`, `"GET|HEAD /path"`, `"/path/pattern"`, a `URLPattern` (or any
 * object with the same `test`) or a predicate.
 *
 * @throws TypeError naming `path` when the pattern is malformed, or names a method that is neither
 *   HTTP's nor `listed` (a typo, `GTE`, would otherwise match nothing, silently).
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
    const space = text.search(/\s/);
    const methodPart = space === -1 ? '' : text.slice(0, space);
    const pathPart = space === -1 ? text : text.slice(space).trim();
    if (!pathPart.startsWith('/')) {
      throw new TypeError(
        `jitterbug: option "${path}" must look like "METHOD /path" or "/path", got ${JSON.stringify(match)}`,
      );
    }
    const methods = methodPart === '' ? undefined : methodPart.split('|');
    if (methods?.some((m) => !METHOD.test(m))) {
      throw new TypeError(`jitterbug: option "${path}" has an invalid method in ${JSON.stringify(match)}`);
    }
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
    let regex: RegExp;
    try {
      regex = compilePathPattern(pathPart);
    } catch (error) {
      throw new TypeError(`jitterbug: option "${path}": ${(error as Error).message}`);
    }
    return (method, url) => (methodSet === undefined || methodSet.has(method)) && regex.test(url.pathname);
  }
  if (typeof match === 'object' && match !== null && typeof match.test === 'function') {
    return (_method, url) => match.test(url.href) === true;
  }
  throw new TypeError(`jitterbug: option "${path}" must be a string, a URLPattern or a function`);
};
