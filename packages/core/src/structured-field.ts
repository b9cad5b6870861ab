/**
 * Structured Field Values (RFC 9651, formerly RFC 8941) as the fields jitterbug reads use them: a
 * List of names with parameters. `RateLimit` and `RateLimit-Policy`
 * (draft-ietf-httpapi-ratelimit-headers) and `Proxy-Status` (RFC 9209) are such lists, each member
 * a name (a Token or a String) with parameters.
 *
 * Parsed strictly, as RFC 9651 §4.2 says: a value that does not parse fails as a whole (its
 * recipient then ignores the field), never half-read. A member of another kind (an inner list, a
 * number, …) is no name, and fails such a field as well: one pass reads the list and its members.
 */

/** A bare item of a structured field, as far as these fields need one (a Decimal kept apart from an Integer). */
export type Bare =
  | number
  | string
  | boolean
  | { readonly decimal: number }
  | { readonly token: string }
  | { readonly bytes: string };

// One bare item of each kind (RFC 9651 §3.3), as written: an Integer (at most 15 digits) or a
// Decimal (at most 12 before the point, 3 after), a String (printable ASCII, `\"` and `\\` the only
// escapes), a Token (RFC 9110 tchar, and ":" and "/" after the first character), a Byte Sequence, a
// Boolean, a Date (an Integer of seconds), a Display String (printable ASCII and `%xx`).
const STRING = String.raw`"(?:[ !#-[\]-~]|\\["\\])*"`;
const TOKEN = "[A-Za-z*][!#$%&'*+\\-.^_`|~\\w:/]*";
const DISPLAY = '%"(?:[ !#$&-~]|%[0-9a-f]{2})*"';
const BARE = [
  String.raw`-?(?:\d{1,12}\.\d{1,3}|\d{1,15})`,
  STRING,
  TOKEN,
  ':[A-Za-z0-9+/=]*:',
  String.raw`\?[01]`,
  String.raw`@-?\d{1,15}`,
  DISPLAY,
].join('|');
const PARAM = `;[ ]*([a-z*][a-z0-9_.*-]*)(?:=(${BARE}))?`;
const PARAMS = `(?:${PARAM.replace(/\((?!\?)/g, '(?:')})*`;
// A member: a name (a String, a Token, or a Display String, which is read as written), then its
// parameters. Sticky, matched where the list is read; what follows a member is checked there.
const MEMBER = new RegExp(`(${STRING}|${TOKEN}|${DISPLAY})(${PARAMS})`, 'y');
// Read again in a member that matched: its parameters lie back to back there.
const PARAMS_IN = new RegExp(PARAM, 'g');

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

/** A member's name, written as `text` (a String, a Token or a Display String: {@link MEMBER}). */
const nameOf = (text: string): string => {
  const name = bare(text);
  return typeof name === 'string' ? name : (name as { readonly token: string }).token;
};

/** An Integer of at least `min` (a Decimal, even `1.0`, is not one). */
export const integer = (value: Bare | undefined, min: number): number | undefined =>
  typeof value === 'number' && value >= min ? value : undefined;

/**
 * Reads a field that is a structured List of names with parameters (RFC 9651 §4.2.1; one field line
 * or several joined with commas), each member with `read`, as the list is parsed: `undefined` for
 * the whole field when it is absent, empty or does not parse, when a member is no name (a String,
 * a Token or a Display String), or when `read` returns `undefined` for one (a malformed member). `read` returns `null`
 * for a member to leave out (a rate-limit policy counted in other units than requests); it has no
 * effects, since a later member may still fail the field.
 */
export const readField = <T>(
  value: string | null | undefined,
  read: (name: string, params: ReadonlyMap<string, Bare>) => T | null | undefined,
): T[] | undefined => {
  if (value == null) return undefined;
  const text = value.replace(/^[ \t]+|[ \t]+$/g, '');
  if (text === '') return undefined;
  const out: T[] = [];
  for (let at = 0; ; ) {
    MEMBER.lastIndex = at;
    const member = MEMBER.exec(text);
    if (!member) return undefined;
    at = MEMBER.lastIndex;
    const [, item, paramsText] = member as unknown as [string, string, string];
    const params = new Map<string, Bare>();
    // A key given twice keeps its last value.
    for (const m of paramsText.matchAll(PARAMS_IN)) params.set(m[1]!, m[2] === undefined ? true : bare(m[2]));
    const read1 = read(nameOf(item), params);
    if (read1 === undefined) return undefined;
    if (read1 !== null) out.push(read1);
    while (text.charAt(at) === ' ' || text.charAt(at) === '\t') at++;
    if (at === text.length) return out;
    if (text.charAt(at) !== ',') return undefined;
    at++;
    while (text.charAt(at) === ' ' || text.charAt(at) === '\t') at++;
    // A trailing comma is an error.
    if (at === text.length) return undefined;
  }
};
