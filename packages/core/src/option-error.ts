/**
 * The one shape of an option error: `jitterbug: option "path" must be …, got …`. Showing the value
 * must never throw (`String()` throws on `Object.create(null)`, `JSON.stringify` on cycles and
 * BigInts), or the TypeError naming the option would be replaced by one that names nothing.
 */

/** A short readable description of any value, for error messages. Never throws. */
export const describeValue = (value: unknown): string => {
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'bigint') return `${value}n`;
  if (Object.is(value, -0)) return '-0';
  let shown: string | undefined;
  try {
    shown = typeof value === 'object' || typeof value === 'string' ? JSON.stringify(value) : undefined;
  } catch {}
  try {
    shown ??= String(value);
  } catch {
    return `an unprintable ${typeof value}`;
  }
  return shown.length > 80 ? `${shown.slice(0, 80)}… (${shown.length} characters)` : shown;
};

/** Throws the `TypeError` for option `name`, which must be `expected`. */
export const fail = (name: string, expected: string, value: unknown): never => {
  throw new TypeError(`jitterbug: option "${name}" must be ${expected}, got ${describeValue(value)}`);
};

/** Throws the `TypeError` for an option that does not exist. */
export const unknownOption = (name: string): never => {
  throw new TypeError(`jitterbug: unknown option "${name}"`);
};

/** A finite number (an integer when `integer`) from `min` to `max`, or the `TypeError` for `name`. */
export const numberIn = (
  value: unknown,
  name: string,
  min: number,
  max = Number.MAX_VALUE,
  integer = false,
): number =>
  typeof value === 'number' && value >= min && value <= max && (!integer || Number.isInteger(value))
    ? value
    : fail(
        name,
        max === Number.MAX_VALUE
          ? `a finite number >= ${min}`
          : `${integer ? 'an integer' : 'a number'} from ${min} to ${max}`,
        value,
      );

/** Whether `value` can hold option fields: an object that is not an array. */
export const isOptionObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The fields of a nested option object: `null` and unknown keys are refused (only absent inherits). */
export const fieldsOf = (value: unknown, name: string, known: readonly string[]): Record<string, unknown> => {
  if (!isOptionObject(value)) return fail(name, 'an object', value);
  for (const key of Object.keys(value)) if (!known.includes(key)) unknownOption(`${name}.${key}`);
  return value;
};

/** `value`, or `inherited` when it is absent (a `null` is kept, to be refused as a mistake). */
export const given = (value: unknown, inherited: unknown): unknown =>
  value === undefined ? inherited : value;
