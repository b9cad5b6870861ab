/**
 * `createRetryPolicy`: a policy from options, with per-route rules. Adapters given plain options
 * make their policy without this module, so a program that uses no route rules never carries the
 * path-pattern compiler.
 */

import { fail, isOptionObject } from './option-error.ts';
import type { ResolvedOptions, RetryPolicyOptions } from './options.ts';
import { createPolicy, type RetryPolicy, type RouteTable } from './policy.ts';
import { compileRouteMatch, type RouteMatcher } from './routes.ts';
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

const compileRoutes = (routes: unknown, base: ResolvedOptions): RouteTable => {
  if (!Array.isArray(routes)) fail('routes', 'an array of rules', routes);
  const compiled = (routes as unknown[]).map(
    (rule: unknown, i): { matches: RouteMatcher; options: ResolvedOptions } => {
      const path = `routes[${i}]`;
      if (!isOptionObject(rule)) throw new TypeError(`jitterbug: option "${path}" must be an object`);
      if (rule.match === undefined) throw new TypeError(`jitterbug: option "${path}.match" is required`);
      if (rule.name !== undefined && typeof rule.name !== 'string') {
        throw new TypeError(`jitterbug: option "${path}.name" must be a string`);
      }
      const options = resolveOptions(rule, ROUTE_KEYS, base, `${path}.`);
      const listed = new Set([...base.methods, ...options.methods]);
      const matches = compileRouteMatch(rule.match as never, `${path}.match`, listed);
      const route = (rule.name as string | undefined) ?? (typeof rule.match === 'string' ? rule.match : path);
      return { matches, options: { ...options, route } };
    },
  );
  return {
    options: compiled.map((r) => r.options),
    resolve(upperMethod, url) {
      if (compiled.length === 0) return undefined;
      const parsed = toUrl(url);
      for (const route of compiled) if (route.matches(upperMethod, parsed)) return route.options;
      return undefined;
    },
  };
};

/**
 * Creates a retry policy. See {@link RetryPolicyOptions} for every option and its default; share
 * the policy between clients to share its retry budget.
 *
 * @throws TypeError naming the option when an option is invalid.
 */
export const createRetryPolicy = (options: RetryPolicyOptions = {}): RetryPolicy =>
  createPolicy(options, compileRoutes);
