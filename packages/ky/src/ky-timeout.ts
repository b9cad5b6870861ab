/**
 * ky's `timeout` as the run's deadline. ky times each of its fetches, and every attempt and wait of
 * a jitterbug run happens inside one: ky's timer bounds the whole run. So that a wait that cannot end
 * before ky's timer fires is never started (a `Retry-After: 12` against ky's 10 s would end in ky's
 * `TimeoutError` after 10 s of waiting in vain), the run's `deadlineMs` is ky's timeout for the call,
 * or the policy's own deadline if that is sooner: such a call ends at once with the last answer (ky's
 * `HTTPError` for a 503, `getRetryInfo(error).reason === 'deadline'`).
 *
 * The policy made from options already has ky's default timeout as its deadline, so that a call
 * with ky's default costs nothing; another timeout is the call's own override (as `jitterbug: {
 * deadlineMs }` would be).
 */
import type { CallOverrides, RetryPolicy, RetryPolicyOrOptions } from '@jitterbug/core';
import { isRetryPolicy, policyFor } from '@jitterbug/core/adapter';

/** ky's `timeout` when a call sets none. */
export const KY_DEFAULT_TIMEOUT_MS = 10_000;

/** The deadline that is none: the largest the option takes. */
const NO_DEADLINE = Number.MAX_VALUE;

/** ky's timeout of a call from its `timeout` option (`false`: none). */
export const kyTimeoutOf = (timeout: unknown): number | undefined =>
  timeout === false ? undefined : typeof timeout === 'number' ? timeout : KY_DEFAULT_TIMEOUT_MS;

/** A policy for `kyRetry`, and the deadline each call's run gets from ky's timeout. */
export interface KyDeadlines {
  readonly policy: RetryPolicy;
  /**
   * The call's overrides with the deadline its ky timeout (`timeoutMs`, what is left of it) asks
   * for, or the overrides as they are when the policy's deadline is that already.
   */
  overridesFor(
    overrides: CallOverrides | false | undefined,
    timeoutMs: number | undefined,
    method: string,
    url: string,
    base?: readonly unknown[],
  ): CallOverrides | false | undefined;
}

const lower = (a: number | undefined, b: number | undefined): number | undefined =>
  a === undefined ? b : b === undefined ? a : Math.min(a, b);

/** The policy `kyRetry` is given, or one made from its options with ky's default timeout as deadline. */
export const kyDeadlines = (optionsOrPolicy: RetryPolicyOrOptions | undefined): KyDeadlines => {
  // Plain options only: anything else goes to the policy check as it is, for its message.
  const proto =
    typeof optionsOrPolicy === 'object' && optionsOrPolicy !== null && Object.getPrototypeOf(optionsOrPolicy);
  const isOptions = (proto === Object.prototype || proto === null) && !isRetryPolicy(optionsOrPolicy);
  if (optionsOrPolicy === undefined || isOptions) {
    const own = optionsOrPolicy?.deadlineMs;
    if (own === undefined || typeof own === 'number') {
      const baked = own === undefined ? KY_DEFAULT_TIMEOUT_MS : Math.min(own, KY_DEFAULT_TIMEOUT_MS);
      const policy = policyFor({ ...optionsOrPolicy, deadlineMs: baked }, 'kyRetry');
      return {
        policy,
        overridesFor(overrides, timeoutMs) {
          if (overrides === false) return overrides;
          const wanted = lower(overrides?.deadlineMs ?? own, timeoutMs) ?? NO_DEADLINE;
          return wanted === (overrides?.deadlineMs ?? baked)
            ? overrides
            : { ...overrides, deadlineMs: wanted };
        },
      };
    }
  }
  const policy = policyFor(optionsOrPolicy, 'kyRetry');
  // A shared policy keeps its deadlines: a call's is lowered to its ky timeout when that is sooner.
  const deadlines = [policy.options, ...policy.routeOptions].map((o) => o.deadlineMs ?? NO_DEADLINE);
  const latest = Math.max(...deadlines);
  return {
    policy,
    overridesFor(overrides, timeoutMs, method, url, base) {
      if (overrides === false || timeoutMs === undefined) return overrides;
      const own = overrides?.deadlineMs;
      if ((own ?? latest) <= timeoutMs) return overrides;
      const inForce = own ?? policy.resolve(method, url, base).deadlineMs ?? NO_DEADLINE;
      return inForce <= timeoutMs ? overrides : { ...overrides, deadlineMs: timeoutMs };
    },
  };
};
