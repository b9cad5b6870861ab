/**
 * The mark of a retry policy, apart from `policy.ts`: the option checks tell a policy given where
 * options go (`createRetryPolicy(policy)`, a call's `jitterbug: policy`) without importing the
 * module that makes policies.
 */

/** The key every policy carries (`Symbol.for`: a policy from another copy of the core is one too). */
export const POLICY_BRAND: unique symbol = Symbol.for('jitterbug.policy') as never;

/** Whether `value` carries the mark of a policy made by `createRetryPolicy` (or by an adapter). */
export const isPolicyMarked = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[POLICY_BRAND] === true;
