/**
 * `createRetryPolicy`: a policy from options, with per-route rules. Adapters given plain options
 * make their policy without this module, so a program that uses no route rules never carries the
 * path-pattern compiler.
 */

import { watchRoutes } from '#messages';
import { fail, optionsObject } from './option-error.ts';
import type { ResolvedOptions, RetryPolicyOptions } from './options.ts';
import { createPolicy, type RetryPolicy, type RouteTable } from './policy.ts';
import { compileRouteMatch, PARAMETER, type RouteMatcher } from './routes.ts';
import type { RetryRequest } from './run.ts';
import { OVERRIDABLE, resolveOptions } from './validate.ts';

/** Keys of a route rule (`match` and `name` are the rule's own). */
export const ROUTE_KEYS: ReadonlySet<string> = new Set([...OVERRIDABLE, 'retry', 'match', 'name']);

const toUrl = (url: string | URL): URL => {
  if (url instanceof URL) return url;
  try {
    return new URL(url);
  } catch {
    // A relative URL (a browser's `fetch('/path')`): only its path is matched.
    return new URL(url, 'http://localhost');
  }
};

/**
 * The path of `url` below `base` (`/health` for `/api/health` under `/api/`; a list is resolved in
 * order, each against the one before), or `undefined` when `url` is not under it or `base` is an
 * origin alone (whose path is the URL's own).
 */
const pathBelow = (url: URL, base: NonNullable<RetryRequest['base']>): string | undefined => {
  let under = url;
  try {
    for (const part of Array.isArray(base) ? base : [base]) if (part) under = new URL(String(part), under);
  } catch {
    return undefined;
  }
  const prefix = under.pathname.replace(/\/+$/, '');
  if (under === url || prefix === '' || under.origin !== url.origin) return undefined;
  const path = url.pathname;
  return path === prefix ? '/' : path.startsWith(`${prefix}/`) ? path.slice(prefix.length) : undefined;
};

interface CompiledRule {
  readonly matches: RouteMatcher;
  readonly options: ResolvedOptions;
  readonly match: unknown;
}

/**
 * Paths of a path pattern: a long one (every optional part in, a wildcard or a repeat two
 * segments), the shortest (none of them), and for a trailing `/*` the path without it.
 */
const samplesOf = (path: string): string[] => {
  // A wildcard or a repeated parameter as two segments, any other parameter as one.
  const long = path.replace(new RegExp(`(?:${PARAMETER})?[*+]|${PARAMETER}`, 'gu'), (m) =>
    /[*+]$/.test(m) ? '%00/%00' : '%00',
  );
  const short = path.replace(new RegExp(`\\/?(?:${PARAMETER}|\\*)[?*]|\\{[^}]*\\}[?*]|\\*`, 'gu'), '');
  return [long, short, ...(path.endsWith('/*') ? [path.slice(0, -2)] : [])].map((p) =>
    p.replace(/[{}?+]/g, ''),
  );
};

/**
 * Whether `earlier` matches every request `later` would, so that `later` is never used: tried on
 * requests of `later`'s method (or one no rule names, when it has none) to the longest and the
 * shortest path of its pattern, each parameter a segment no literal holds (`%00`), for a string
 * pattern without a regex group or an escape, after a string or a URLPattern (a predicate is not
 * called before a request).
 */
const shadows = (earlier: CompiledRule, later: CompiledRule): boolean => {
  const parts = typeof later.match === 'string' && /^([^/]*)(\/[^(\\]*)$/.exec(later.match.trim());
  if (!parts || typeof earlier.match === 'function') return false;
  const samples = samplesOf(parts[2]!).map((path) => new URL(path || '/', 'http://jitterbug.invalid'));
  return (parts[1]!.trim().toUpperCase() || 'JITTERBUG-ANY')
    .split('|')
    .every((method) => samples.every((sample) => earlier.matches(method, sample)));
};

const compileRoutes = (routes: unknown, base: ResolvedOptions): RouteTable => {
  if (!Array.isArray(routes)) fail('routes', 'an array of rules', routes);
  const compiled = (routes as unknown[]).map((given: unknown, i): CompiledRule => {
    const path = `routes[${i}]`;
    const rule = optionsObject(given, path);
    if (rule.name !== undefined && typeof rule.name !== 'string') {
      throw new TypeError(`jitterbug: option "${path}.name" must be a string`);
    }
    const options = resolveOptions(rule, ROUTE_KEYS, base, `${path}.`);
    if (rule.match === undefined) throw new TypeError(`jitterbug: option "${path}.match" is required`);
    const listed = new Set([...base.methods, ...options.methods]);
    const matches = compileRouteMatch(rule.match as never, `${path}.match`, listed);
    const route = (rule.name as string | undefined) ?? (typeof rule.match === 'string' ? rule.match : path);
    return { matches, options: { ...options, route }, match: rule.match };
  });
  // A rule an earlier one matches first is never used: refused, with the one that shadows it.
  compiled.forEach((later, j) => {
    const i = compiled.findIndex((earlier, k) => k < j && shadows(earlier, later));
    if (i >= 0) {
      fail(
        `routes[${j}].match`,
        `a pattern that no earlier rule matches first (routes[${i}] matches every request it would)`,
        later.match,
        `routeShadowed:${i}`,
      );
    }
  });
  const table: RouteTable = {
    options: compiled.map((r) => r.options),
    resolve(upperMethod, url, under) {
      if (compiled.length === 0) return undefined;
      const parsed = toUrl(url);
      const relative = under === undefined ? undefined : pathBelow(parsed, under);
      for (const route of compiled) if (route.matches(upperMethod, parsed, relative)) return route.options;
      return undefined;
    },
  };
  // Development builds tell the rules that matched no request when the run ends.
  watchRoutes(table);
  return table;
};

/**
 * Creates a retry policy. See {@link RetryPolicyOptions} for every option and its default; share
 * the policy between clients to share its retry budget.
 *
 * @throws TypeError naming the option when an option is invalid (a route rule's too: one that an
 *   earlier rule shadows, a malformed pattern).
 */
export const createRetryPolicy = (options: RetryPolicyOptions = {}): RetryPolicy =>
  createPolicy(options, compileRoutes);
