/**
 * A compiler for URLPattern's pathname syntax, so that route strings behave the same on Node 22
 * (no global `URLPattern`) and Node 24, with no dependency. Supported: literal text, `:name`
 * parameters, `(regex)` groups, `*` wildcards, `{…}` groups, the modifiers `?`, `*`, `+`, and `\`
 * escapes; as in URLPattern, a `/` right before an optional parameter is optional with it
 * (`/books/:id?` matches `/books`). Matching is anchored and case-sensitive.
 */

type Token =
  | { kind: 'text'; value: string }
  | { kind: 'name'; value: string }
  | { kind: 'regex'; value: string }
  | { kind: 'wildcard' }
  | { kind: 'open' }
  | { kind: 'close' }
  | { kind: 'modifier'; value: '?' | '*' | '+' };

const NAME_START = /[\p{ID_Start}$_]/u;
const NAME_CHAR = /[\p{ID_Continue}$]/u;
const SEGMENT = '[^/]+?';
const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

// URLPattern canonicalises literal text as the URL parser does (the path percent-encode set, UTF-8
// for the rest), so that `/café` or `/a b` matches the percent-encoded `URL.pathname`.
const encodePathText = (c: string): string =>
  c <= ' ' || c > '~' || '"#<>?`{}^'.includes(c) ? encodeURIComponent(c) : c;
const charAt = (text: string, i: number): string => String.fromCodePoint(text.codePointAt(i)!);

const fail = (pattern: string, why: string): never => {
  throw new TypeError(`invalid path pattern ${JSON.stringify(pattern)}: ${why}`);
};

const tokenize = (pattern: string): Token[] => {
  const tokens: Token[] = [];
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (c === '\\') {
      if (i + 1 >= pattern.length) fail(pattern, 'trailing backslash');
      const escaped = charAt(pattern, i + 1);
      tokens.push({ kind: 'text', value: encodePathText(escaped) });
      i += 1 + escaped.length;
    } else if (c === ':') {
      let j = i + 1;
      while (j < pattern.length && NAME_CHAR.test(pattern[j]!)) j++;
      if (j === i + 1) fail(pattern, `missing parameter name at ${i}`);
      if (!NAME_START.test(pattern[i + 1]!))
        fail(pattern, `parameter name may not start with "${pattern[i + 1]}"`);
      tokens.push({ kind: 'name', value: pattern.slice(i + 1, j) });
      i = j;
    } else if (c === '(') {
      let depth = 1;
      let j = i + 1;
      while (j < pattern.length && depth > 0) {
        if (pattern[j] === '\\') j++;
        else if (pattern[j] === '(') {
          // As URLPattern: a regex group holds no capturing group of its own.
          if (pattern[j + 1] !== '?') fail(pattern, `capturing group inside the regex group at ${i}`);
          depth++;
        } else if (pattern[j] === ')') depth--;
        j++;
      }
      if (depth !== 0) fail(pattern, `unbalanced "(" at ${i}`);
      const body = pattern.slice(i + 1, j - 1);
      if (body === '') fail(pattern, `empty regex group at ${i}`);
      if (body.startsWith('?')) fail(pattern, `regex group may not start with "?" at ${i}`);
      try {
        new RegExp(body, 'u');
      } catch {
        fail(pattern, `invalid regex group "(${body})"`);
      }
      tokens.push({ kind: 'regex', value: body });
      i = j;
    } else if (c === '*') {
      const prev = tokens.at(-1);
      const isModifier =
        prev !== undefined &&
        (prev.kind === 'name' || prev.kind === 'regex' || prev.kind === 'close' || prev.kind === 'wildcard');
      tokens.push(isModifier ? { kind: 'modifier', value: '*' } : { kind: 'wildcard' });
      i++;
    } else if (c === '?' || c === '+') {
      const prev = tokens.at(-1);
      if (
        !prev ||
        !(prev.kind === 'name' || prev.kind === 'regex' || prev.kind === 'close' || prev.kind === 'wildcard')
      ) {
        fail(pattern, `modifier "${c}" at ${i} has nothing to modify`);
      }
      tokens.push({ kind: 'modifier', value: c });
      i++;
    } else if (c === '{') {
      tokens.push({ kind: 'open' });
      i++;
    } else if (c === '}') {
      tokens.push({ kind: 'close' });
      i++;
    } else if (c === ')') {
      fail(pattern, `unbalanced ")" at ${i}`);
    } else {
      const text = charAt(pattern, i);
      tokens.push({ kind: 'text', value: encodePathText(text) });
      i += text.length;
    }
  }
  return tokens;
};

const withModifier = (body: string, modifier: '?' | '*' | '+' | undefined, prefix: string): string => {
  if (modifier === undefined) return `${prefix}${body}`;
  if (modifier === '?') return `(?:${prefix}${body})?`;
  // Repeats join with the prefix, as URLPattern does: `/:p+` matches `/a/b/c`.
  const repeated = `(?:${prefix}${body}(?:${prefix}${body})*)`;
  return modifier === '+' ? repeated : `${repeated}?`;
};

const compileTokens = (pattern: string, tokens: Token[]): string => {
  let out = '';
  let i = 0;
  const names = new Set<string>();
  while (i < tokens.length) {
    const token = tokens[i]!;
    if (token.kind === 'close') fail(pattern, 'unbalanced "}"');
    if (token.kind === 'modifier') fail(pattern, `modifier "${token.value}" has nothing to modify`);
    if (token.kind === 'text') {
      const next = tokens[i + 1];
      i++;
      // A `/` before a parameter, regex or wildcard belongs to it: optional or repeated with it.
      if (
        token.value === '/' &&
        (next?.kind === 'name' || next?.kind === 'regex' || next?.kind === 'wildcard')
      ) {
        const [part, j] = compilePart(pattern, tokens, i, names);
        out += part('\\/');
        i = j;
      } else {
        out += escapeRegex(token.value);
      }
      continue;
    }
    const [part, j] = compilePart(pattern, tokens, i, names);
    out += part('');
    i = j;
  }
  return out;
};

/** A parameter (with its regex, if any), a regex group or a wildcard, without its modifier. */
const compileMatcher = (
  pattern: string,
  tokens: Token[],
  i: number,
  names: Set<string>,
): [string, number] => {
  const token = tokens[i]!;
  if (token.kind === 'name') {
    if (names.has(token.value)) fail(pattern, `duplicate parameter name "${token.value}"`);
    names.add(token.value);
    const regex = tokens[i + 1];
    if (regex?.kind === 'regex') return [`(?:${regex.value})`, i + 2];
    return [`(?:${SEGMENT})`, i + 1];
  }
  if (token.kind === 'regex') return [`(?:${token.value})`, i + 1];
  if (token.kind === 'wildcard') return ['(?:.*)', i + 1];
  return fail(pattern, 'unexpected token');
};

/**
 * A `{…}` group, as URLPattern allows it: literal text, at most one parameter, regex or wildcard
 * (with no modifier of its own), literal text. Returns the group's body and the index after `}`.
 */
const compileGroup = (pattern: string, tokens: Token[], i: number, names: Set<string>): [string, number] => {
  let body = '';
  let matchers = 0;
  let k = i + 1;
  for (let token = tokens[k]; token?.kind !== 'close'; token = tokens[k]) {
    if (token === undefined) return fail(pattern, 'unbalanced "{"');
    if (token.kind === 'text') {
      body += escapeRegex(token.value);
      k++;
    } else if (token.kind === 'open') {
      fail(pattern, '"{" inside a "{}" group');
    } else if (token.kind === 'modifier') {
      fail(pattern, `modifier "${token.value}" inside a "{}" group`);
    } else {
      if (++matchers > 1) fail(pattern, 'more than one parameter, regex or wildcard in a "{}" group');
      const [matcher, next] = compileMatcher(pattern, tokens, k, names);
      body += matcher;
      k = next;
    }
  }
  return [`(?:${body})`, k + 1];
};

const compilePart = (
  pattern: string,
  tokens: Token[],
  i: number,
  names: Set<string>,
): [(prefix: string) => string, number] => {
  const [body, j] =
    tokens[i]!.kind === 'open'
      ? compileGroup(pattern, tokens, i, names)
      : compileMatcher(pattern, tokens, i, names);
  const next = tokens[j];
  const modifier = next?.kind === 'modifier' ? next.value : undefined;
  return [(prefix) => withModifier(body, modifier, prefix), modifier === undefined ? j : j + 1];
};

/**
 * Compiles a URLPattern pathname pattern to an anchored `RegExp`.
 *
 * @throws TypeError when the pattern is malformed.
 */
export const compilePathPattern = (pattern: string): RegExp => {
  if (typeof pattern !== 'string') throw new TypeError('path pattern must be a string');
  const source = compileTokens(pattern, tokenize(pattern));
  return new RegExp(`^${source}$`, 'u');
};
