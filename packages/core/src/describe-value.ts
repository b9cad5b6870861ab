/**
 * Error messages show the offending value. Building the message must never throw: `String()`
 * throws on `Object.create(null)` and on objects whose `toString` throws, `JSON.stringify` on
 * cycles and BigInts, and either would replace the TypeError naming the option with one that
 * names nothing.
 */

const MAX_SHOWN = 80;

const shorten = (text: string): string =>
  text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}… (${text.length} characters)` : text;

const attempt = (show: () => string | undefined): string | undefined => {
  try {
    return show();
  } catch {
    return undefined;
  }
};

/** A short readable description of any value, for error messages. Never throws. */
export const describeValue = (value: unknown): string => {
  switch (typeof value) {
    case 'function':
      return 'a function';
    case 'number':
      // JSON.stringify shows NaN and Infinity as null, and -0 as 0.
      return Object.is(value, -0) ? '-0' : String(value);
    case 'bigint':
      return `${value}n`;
    case 'undefined':
      return 'undefined';
  }
  const shown =
    typeof value === 'symbol'
      ? attempt(() => String(value))
      : (attempt(() => JSON.stringify(value)) ?? attempt(() => String(value)));
  return shown === undefined ? `an unprintable ${typeof value}` : shorten(shown);
};
