/**
 * How a state is kept as text: its numbers separated by single spaces. Redis keeps it as one string
 * (so a step writes it with one `SET … PX`, and a script that fails half way leaves the old state or
 * the new one, never a mixture). The Lua prelude reads and writes the same text by the same rules;
 * the two differ only in how many digits they print, never in the numbers they read back.
 */

/**
 * The characters a number may be written with, and that both decoders read the same way (Lua's
 * `tonumber` also reads hexadecimal, `inf` and `nan`, JavaScript's `Number` also `Infinity` and the
 * empty string: none of those passes).
 */
const NUMBER = /^-?[0-9.eE+-]+$/;

/**
 * The largest magnitude a state's or an argument's number may have: 10^15 ms is 31 000 years, and
 * products of three such numbers stay finite, so that no step can make an infinity. A state with a
 * larger number reads as no state; a call with a larger argument is refused.
 */
export const NUMBER_LIMIT = 1e15;

/** A number as the text of a state or an argument: `-0` as `0`, so that both sides compare equal. */
export const formatNumber = (n: number): string => (n === 0 ? '0' : String(n));

/** A state's text. */
export const encodeState = (state: readonly number[]): string => state.map(formatNumber).join(' ');

/**
 * One number's text, read back: `undefined` for anything that is not a finite number of at most
 * `limit` in magnitude (a state's and an argument's limit by default; a result's is `Infinity`).
 */
export const parseNumber = (text: string, limit = NUMBER_LIMIT): number | undefined => {
  if (!NUMBER.test(text)) return undefined;
  const n = Number(text);
  return Math.abs(n) <= limit ? (n === 0 ? 0 : n) : undefined;
};

/** A state read back: `undefined` when any part of it is not a number within the limit (nothing, or garbage). */
export const decodeState = (text: string | undefined | null): number[] | undefined => {
  if (typeof text !== 'string' || text === '') return undefined;
  const parts = text.split(' ');
  const state: number[] = [];
  for (const part of parts) {
    const n = parseNumber(part);
    if (n === undefined) return undefined;
    state.push(n);
  }
  return state;
};

/** Whether every argument is a number within the limit (a store refuses the call otherwise, as a failure). */
export const argsWithinLimit = (args: readonly number[]): boolean =>
  args.every((n) => typeof n === 'number' && Math.abs(n) <= NUMBER_LIMIT);
