/**
 * Field values for the property tests of the structured-field parsers (`RateLimit`,
 * `RateLimit-Policy`, `Proxy-Status`): built from the grammar's pieces, valid and broken, mixed with
 * a field's own names and parameters, or any string at all.
 */
import fc from 'fast-check';

/** Bare items of every kind RFC 9651 has, and an inner list. */
const ITEMS = [
  '"default"',
  'default',
  '"a b"',
  '""',
  '"x\\"y"',
  '(a b)',
  '?1',
  ':YWJj:',
  '@12',
  '%"f%c3%bc"',
];
/** What separates and breaks them. */
const PUNCTUATION = [';', '=', ',', ', ', ' ', '\t', '"', '\\'];

/** A field value made of `own` pieces (parameters, values of the field at hand) and the grammar's. */
export const fieldValue = (own: readonly string[]): fc.Arbitrary<string> => {
  const piece = fc.oneof(
    fc.constantFrom(...ITEMS),
    fc.constantFrom(...own, ...PUNCTUATION),
    fc.integer({ min: -5, max: 100 }).map(String),
    fc.bigInt({ min: 0n, max: 10n ** 20n }).map(String),
    fc.double().map(String),
    fc.constantFrom('1.5', '1.0', '-0', '1e3', 'NaN', 'Infinity', '0x10'),
    fc.string({ maxLength: 4 }),
  );
  return fc.oneof(
    fc.array(piece, { maxLength: 12 }).map((parts) => parts.join('')),
    fc.string(),
    fc.string({ unit: 'binary' }),
  );
};
