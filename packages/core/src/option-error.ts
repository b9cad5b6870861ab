/**
 * The one shape of an option error: `jitterbug: option "path" must be …, got …` (a `TypeError`).
 * The wording comes from the package's `#messages` import: with the fix in development builds
 * (`messages/full.ts`), shorter in production and browser builds (`messages/short.ts`).
 */
import { mustBe, unknownText } from '#messages';
import { isPolicyMarked } from './policy-brand.ts';

/**
 * Throws the `TypeError` for option `name`, which must be `expected`; `situation` names a mistake
 * whose fix the development message tells from the value (see `messages/hints.ts`).
 */
export const fail = (name: string, expected: string, value: unknown, situation?: string): never => {
  throw new TypeError(mustBe(name, expected, value, situation));
};

/**
 * Throws the `TypeError` for option `name` (a path), which is not one of `known`, its siblings:
 * `policyKey` when it is a policy's option refused where it was given, `owner` when the options are
 * an entry point's own settings (`'kyRetry'`).
 */
export const unknownOption = (
  name: string,
  known: Iterable<string>,
  value?: unknown,
  policyKey?: boolean,
  owner?: string,
): never => {
  throw new TypeError(unknownText(name, known, value, policyKey, owner));
};

/** A finite number (an integer when `integer`) from `min` to `max`, or the `TypeError` for `name`. */
export const numberIn = (
  value: unknown,
  name: string,
  min: number,
  max?: number,
  integer?: boolean,
): number =>
  typeof value === 'number' &&
  value >= min &&
  value <= (max ?? Number.MAX_VALUE) &&
  (!integer || Number.isInteger(value))
    ? value
    : fail(
        name,
        max === undefined
          ? `a finite number >= ${min}`
          : `${integer ? 'an integer' : 'a number'} from ${min} to ${max}`,
        value,
      );

/**
 * Refuses what a factory that takes no options was given (`createPacer({ rate: 10 })`), which it
 * would otherwise ignore: the `TypeError` names the factory, with what it does instead.
 */
export const noOptions = (factory: string, given: readonly unknown[]): void => {
  if (given.some((argument) => argument !== undefined)) {
    fail(`${factory}(options)`, `absent: ${factory}() takes none`, given[0], factory);
  }
};

/** Whether `value` is an RFC 9110 §5.6.2 token: the syntax of header names and of methods. */
export const isHeaderName = (value: unknown): value is string =>
  typeof value === 'string' && /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(value);

/** Whether `value` can hold option fields: an object that is not an array. */
export const isOptionObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `value` when it is an object of options, else the `TypeError` for `name`: a retry policy given
 * where options go (`createRetryPolicy(policy)`, a call's `jitterbug: policy`, a policy as an
 * adapter's own settings) is told apart, with where it goes (`owner`: the entry point whose
 * settings `value` is).
 */
export const optionsObject = (value: unknown, name: string, owner?: string): Record<string, unknown> =>
  !isOptionObject(value)
    ? fail(name, 'an object', value)
    : isPolicyMarked(value)
      ? fail(name, 'an object, not a retry policy', value, owner)
      : value;

/** Checks the value of option `name` (given: not `undefined`), returning it as it is resolved. */
export type Check = (value: unknown, name: string) => unknown;

/** The check of a number from `min` to `max` (an integer when `integer`); see {@link numberIn}. */
export const numberCheck =
  (min: number, max?: number, integer?: boolean): Check =>
  (value, name) =>
    numberIn(value, name, min, max, integer);

/** The fields of a nested option object: `null` and unknown keys are refused (only absent inherits). */
export const fieldsOf = (value: unknown, name: string, known: readonly string[]): Record<string, unknown> => {
  if (!isOptionObject(value)) return fail(name, 'an object', value);
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) unknownOption(`${name}.${key}`, known, value[key]);
  }
  return value;
};

/** `value`, or `inherited` when it is absent (a `null` is kept, to be refused as a mistake). */
export const given = (value: unknown, inherited: unknown): unknown =>
  value === undefined ? inherited : value;

/**
 * A nested option object (`retryAfter`, a budget's options, …) checked field by field, in the order
 * of `checks`: a field left out is `inherited`'s (the defaults, or the policy's under a route), an
 * unknown one is refused. Returns every field, as its check resolved it.
 */
export const checkFields = <K extends string>(
  value: unknown,
  name: string,
  inherited: Readonly<Record<K, unknown>>,
  checks: Readonly<Record<K, Check>>,
): Record<K, unknown> => {
  const fields = fieldsOf(value, name, Object.keys(checks));
  const checked = {} as Record<K, unknown>;
  for (const key in checks) checked[key] = checks[key](given(fields[key], inherited[key]), `${name}.${key}`);
  return checked;
};
