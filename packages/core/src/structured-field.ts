/**
 * Structured Field Values (RFC 9651, formerly RFC 8941) as the fields jitterbug reads use them: a
 * List of Items (or inner lists) with parameters. `RateLimit` and `RateLimit-Policy`
 * (draft-ietf-httpapi-ratelimit-headers) and `Proxy-Status` (RFC 9209) are such lists, each member
 * a name (a Token or a String) with parameters.
 *
 * Parsed strictly, as RFC 9651 §4.2 says: a value that does not parse fails as a whole (its
 * recipient then ignores the field), never half-read.
 */

/** A bare item of a structured field, as far as these fields need one (a Decimal kept apart from an Integer). */
export type Bare =
  | number
  | string
  | boolean
  | { readonly decimal: number }
  | { readonly token: string }
  | { readonly bytes: string };

/** A list member: an item or an inner list, with its parameters. */
export interface Member {
  readonly value: Bare | readonly Bare[];
  readonly params: ReadonlyMap<string, Bare>;
}

// One bare item of each kind (RFC 9651 §3.3), as written: an Integer (at most 15 digits) or a
// Decimal (at most 12 before the point, 3 after), a String (printable ASCII, `\"` and `\\` the only
// escapes), a Token (RFC 9110 tchar, and ":" and "/" after the first character), a Byte Sequence, a
// Boolean, a Date (an Integer of seconds), a Display String (printable ASCII and `%xx`).
const BARE = [
  String.raw`-?(?:\d{1,12}\.\d{1,3}|\d{1,15})`,
  String.raw`"(?:[ !#-[\]-~]|\\["\\])*"`,
  "[A-Za-z*][!#$%&'*+\\-.^_`|~\\w:/]*",
  ':[A-Za-z0-9+/=]*:',
  String.raw`\?[01]`,
  String.raw`@-?\d{1,15}`,
  '%"(?:[ !#$&-~]|%[0-9a-f]{2})*"',
].join('|');
const PARAM = `;[ ]*([a-z*][a-z0-9_.*-]*)(?:=(${BARE}))?`;
const PARAMS = `(?:${PARAM.replace(/\((?!\?)/g, '(?:')})*`;
// A member: an item or an inner list (items apart by spaces), then its parameters. Sticky, matched
// where the list is read; what follows a member is checked there.
const MEMBER = new RegExp(`(${BARE}|\\((?:[ ]*(?:${BARE})${PARAMS}(?=[ )]))*[ ]*\\))(${PARAMS})`, 'y');
// Read again in a member that matched: its items and parameters lie back to back there.
const PARAMS_IN = new RegExp(PARAM, 'g');
const ITEMS_IN = new RegExp(`(${BARE})${PARAMS}`, 'g');

/** The value of a bare item written as `text` (one {@link BARE} matched). */
const bare = (text: string): Bare => {
  const c = text.charAt(0);
  if (c === '"') return text.slice(1, -1).replace(/\\(.)/g, '$1');
  if (c === '?') return text === '?1';
  if (c === ':') return { bytes: text.slice(1, -1) };
  if (c === '@') return Number(text.slice(1));
  // A Display String is kept as written (no field here reads one).
  if (c === '%') return text.slice(2, -1);
  if (c === '-' || (c >= '0' && c <= '9'))
    return text.includes('.') ? { decimal: Number(text) } : Number(text);
  return { token: text };
};

/**
 * Parses a structured field List (RFC 9651 §4.2.1), as one field line or several joined with commas.
 * `undefined` when the value does not parse.
 */
export const parseList = (value: string): Member[] | undefined => {
  const text = value.replace(/^[ \t]+|[ \t]+$/g, '');
  const members: Member[] = [];
  for (let at = 0; at < text.length; ) {
    MEMBER.lastIndex = at;
    const member = MEMBER.exec(text);
    if (!member) return undefined;
    at = MEMBER.lastIndex;
    const [, item, paramsText] = member as unknown as [string, string, string];
    let itemValue: Bare | Bare[];
    if (item.charAt(0) === '(') {
      itemValue = [];
      for (const m of item.matchAll(ITEMS_IN)) itemValue.push(bare(m[1]!));
    } else itemValue = bare(item);
    const params = new Map<string, Bare>();
    // A key given twice keeps its last value.
    for (const m of paramsText.matchAll(PARAMS_IN)) params.set(m[1]!, m[2] === undefined ? true : bare(m[2]));
    members.push({ value: itemValue, params });
    while (text.charAt(at) === ' ' || text.charAt(at) === '\t') at++;
    if (at === text.length) break;
    if (text.charAt(at) !== ',') return undefined;
    at++;
    while (text.charAt(at) === ' ' || text.charAt(at) === '\t') at++;
    // A trailing comma is an error.
    if (at === text.length) return undefined;
  }
  return members;
};

/** An item's name: its String or its Token. */
const nameOf = (value: Member['value']): string | undefined =>
  typeof value === 'string' ? value : typeof value === 'object' && 'token' in value ? value.token : undefined;

/** An Integer of at least `min` (a Decimal, even `1.0`, is not one). */
export const integer = (value: Bare | undefined, min: number): number | undefined =>
  typeof value === 'number' && value >= min ? value : undefined;

/**
 * Reads the members of a field with `read`; `undefined` for the whole field when it does not parse or
 * one member is malformed (`read` returning `undefined`). `read` returns `null` for a member to leave
 * out (a rate-limit policy counted in other units than requests).
 */
export const readField = <T>(
  value: string | null | undefined,
  read: (name: string, params: ReadonlyMap<string, Bare>) => T | null | undefined,
): T[] | undefined => {
  if (value == null) return undefined;
  const members = parseList(value);
  if (!members || members.length === 0) return undefined;
  const out: T[] = [];
  for (const { value: item, params } of members) {
    const name = nameOf(item);
    const read1 = name === undefined ? undefined : read(name, params);
    if (read1 === undefined) return undefined;
    if (read1 !== null) out.push(read1);
  }
  return out;
};
