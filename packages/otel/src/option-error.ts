/**
 * Option errors in the one format every jitterbug package uses: `jitterbug: option "path" must be …,
 * got …` (a `TypeError`). Describing the value never throws, so the error always names the option.
 */

const describeValue = (value: unknown): string => {
  if (typeof value === 'function') return 'a function';
  if (value === null || typeof value !== 'object')
    return typeof value === 'string' ? `"${value}"` : String(value);
  return Array.isArray(value) ? 'an array' : 'an object';
};

/** Throws the `TypeError` for option `name`, which must be `expected`. */
export const fail = (name: string, expected: string, value: unknown): never => {
  throw new TypeError(`jitterbug: option "${name}" must be ${expected}, got ${describeValue(value)}`);
};

/** Throws the `TypeError` for an option that does not exist. */
export const unknownOption = (name: string): never => {
  throw new TypeError(`jitterbug: unknown option "${name}"`);
};
