/**
 * The option checks of the packages around the core: an adapter's own settings (`kyRetry(options,
 * adapterOptions)`, …) and otel's options, checked as the core checks a policy's — one row per
 * option, the one message format, an unknown key refused with its fix — and the policy an entry
 * point is given, with what was meant when it is not options.
 */
import { fail, optionsObject, unknownOption } from './option-error.ts';
import { type RetryPolicy, type RetryPolicyOrOptions, toRetryPolicy } from './policy.ts';
import { POLICY_KEYS } from './validate.ts';

/** Checks the value of option `name` (given: not `undefined`), returning it as its user reads it. */
export type OptionCheck<T> = (value: unknown, name: string) => T;

/** The options `checkOptions` returns: each one given, as its row returned it. */
export type CheckedOptions<Rows> = {
  [K in keyof Rows]?: Rows[K] extends OptionCheck<infer T> ? T : never;
};

/**
 * Checks `options`, the settings of entry point `owner` (named `name` in messages: `adapterOptions`),
 * one row per option; `undefined` is no settings, and an absent or `undefined` option is left out of
 * the result (its user applies the default).
 *
 * @throws TypeError naming the option when one is invalid, or unknown (a policy's option given here
 *   is pointed to where it goes).
 */
export const checkOptions = <Rows extends Readonly<Record<string, OptionCheck<unknown>>>>(
  options: unknown,
  rows: Rows,
  owner: string,
  name = 'adapterOptions',
): CheckedOptions<Rows> => {
  if (options === undefined) return {};
  const given = optionsObject(options, name, owner);
  const checked: Record<string, unknown> = {};
  for (const key of Object.keys(given)) {
    const value = given[key];
    if (!Object.hasOwn(rows, key)) unknownOption(key, Object.keys(rows), value, POLICY_KEYS.has(key), owner);
    if (value !== undefined) checked[key] = rows[key]!(value, key);
  }
  return checked as CheckedOptions<Rows>;
};

/**
 * The policy entry point `owner` is given (options for a new one, or a policy to share). A function
 * is refused with what was meant: ky itself given to `kyRetry`, `retryInterceptor` composed without
 * being called.
 *
 * @throws TypeError naming the option when an option is invalid.
 */
export const policyFor = (optionsOrPolicy: RetryPolicyOrOptions | undefined, owner: string): RetryPolicy =>
  typeof optionsOrPolicy === 'function'
    ? fail('options', 'an object', optionsOrPolicy, owner)
    : toRetryPolicy(optionsOrPolicy);
