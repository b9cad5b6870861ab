/**
 * A retry policy: the options every request starts from (a route's, when a rule matches), and what
 * the requests share — the retry budget, the features' state. `begin` makes one request's run.
 */

import { warnSlips } from '#messages';
import { fail, optionsObject } from './option-error.ts';
import type { CallOverrides, ResolvedOptions, RetryOptions } from './options.ts';
import { isPolicyMarked, POLICY_BRAND } from './policy-brand.ts';
import { NO_HEADERS, type RetryRequest, RetryRun } from './run.ts';
import { CALL_KEYS, POLICY_KEYS, resolveOptions } from './validate.ts';

/** Compiled route rules: the options of the first rule a request matches, and every rule's options. */
export interface RouteTable {
  /**
   * The options of the first rule the request matches; `undefined` when none does (`base`: the
   * base URL the call's path was written under, see `RetryRequest.base`).
   */
  resolve(upperMethod: string, url: string | URL, base?: RetryRequest['base']): ResolvedOptions | undefined;
  /** Every rule's options, in the rules' order. */
  readonly options: readonly ResolvedOptions[];
}

/** A retry policy. Create with `createRetryPolicy`; share it to share its retry budget. */
export interface RetryPolicy {
  /** The base options (no route applied). */
  readonly options: ResolvedOptions;
  /**
   * The options in force for a request: the first matching route's, else the base (`base`: the base
   * URL the call's path was written under, see `RetryRequest.base`).
   */
  resolve(method: string, url: string | URL, base?: RetryRequest['base']): ResolvedOptions;
  /**
   * Whether any request may buffer a stream body (`bodyBuffering` in the base options or a route),
   * for adapters that set up a body-reading step only when it can be needed.
   */
  readonly buffersStreams: boolean;
  /** The options of each route rule, in order (empty without rules). */
  readonly routeOptions: readonly ResolvedOptions[];
  /**
   * Starts one request's run, with the call's own overrides if it has any (`false`: no retries for
   * this call).
   *
   * @throws TypeError naming the option when the overrides are invalid.
   */
  begin(request: RetryRequest, overrides?: CallOverrides | false): RetryRun;
}

/**
 * The method in upper case; the common `GET` without a call to `toUpperCase`, and axios' `get` too
 * (axios gives its methods in lower case, and `toUpperCase` costs a call into the runtime).
 */
export const upperMethod = (method: string): string =>
  method === 'GET' ? method : method === 'get' ? 'GET' : method.toUpperCase();

/**
 * Creates a policy from options without per-route rules: what adapters do with the options they are
 * given. `routes` is taken only by `createRetryPolicy`, whose route compiler is passed here as
 * `routes`, so that a program without route rules does not carry that compiler.
 */
export const createPolicy = (
  options: RetryOptions = {},
  compileRoutes?: (routes: unknown, base: ResolvedOptions) => RouteTable,
): RetryPolicy => {
  const { routes, ...rest } = optionsObject(options, 'options') as RetryOptions & { routes?: unknown };
  if (routes !== undefined && !compileRoutes) {
    fail('routes', 'given to createRetryPolicy(), whose policy you then pass instead of options', routes);
  }
  const base = resolveOptions(rest, POLICY_KEYS);
  const table = routes === undefined ? undefined : compileRoutes?.(routes, base);
  const policy: RetryPolicy & { [POLICY_BRAND]: true } = {
    [POLICY_BRAND]: true,
    options: base,
    resolve: (method, url, under) => table?.resolve(upperMethod(method), url, under) ?? base,
    routeOptions: table?.options ?? [],
    buffersStreams: [base, ...(table?.options ?? [])].some((o) => o.feature.bodyBuffering !== undefined),
    begin(request, overrides) {
      const method = upperMethod(request.method);
      const url = request.url;
      const routed = table?.resolve(method, url, request.base) ?? base;
      return new RetryRun(
        // A call's own overrides (`false`: no retries) over the route's options.
        overrides === undefined
          ? routed
          : overrides === false
            ? { ...routed, retry: false, disabledBy: 'retry-disabled' }
            : resolveOptions(overrides, CALL_KEYS, routed, 'jitterbug.'),
        method,
        typeof url === 'string' ? url : url.href,
        request.headers ?? NO_HEADERS,
        request.body ?? 'none',
      );
    },
  };
  // Development builds warn of values that are valid but almost surely a slip (`deadlineMs: 30`).
  warnSlips(options as Record<string, unknown>);
  return Object.freeze(policy);
};

/** Whether a value is a policy made by `createRetryPolicy` (or by an adapter from options). */
export const isRetryPolicy = isPolicyMarked as (value: unknown) => value is RetryPolicy;

/** What every adapter accepts: a policy (to share it and its budget) or options for a new one. */
export type RetryPolicyOrOptions = RetryPolicy | RetryOptions;

/** The policy itself, or a new one from options (without routes). For adapters. */
export const toRetryPolicy = (optionsOrPolicy: RetryPolicyOrOptions | undefined): RetryPolicy =>
  isRetryPolicy(optionsOrPolicy) ? optionsOrPolicy : createPolicy(optionsOrPolicy);
