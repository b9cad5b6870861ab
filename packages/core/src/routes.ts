/**
 * Per-route policies: each rule's `match` compiled once, at policy creation, into a predicate.
 */
import type { RouteMatch } from './options.ts';
import { compilePathPattern } from './path-pattern.ts';

/** A compiled `match`. */
export type RouteMatcher = (method: string, url: URL) => boolean;

const METHOD = /^[A-Za-z]+$/;

/**
 * Compiles `"METHOD /path/pattern"`, `"GET|HEAD /path"`, `"/path/pattern"`, a `URLPattern` (or any
 * object with the same `test`) or a predicate.
 *
 * @throws TypeError naming `path` when the pattern is malformed.
 */
export const compileRouteMatch = (match: RouteMatch, path: string): RouteMatcher => {
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
