import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compilePathPattern } from '../src/path-pattern.ts';

const matches = (pattern: string, path: string): boolean => compilePathPattern(pattern).test(path);

describe('compilePathPattern', () => {
  it('literal text is anchored and case-sensitive', () => {
    expect(matches('/a/b', '/a/b')).toBe(true);
    expect(matches('/a/b', '/a/b/')).toBe(false);
    expect(matches('/a/b', '/x/a/b')).toBe(false);
    expect(matches('/a/b', '/A/b')).toBe(false);
    expect(matches('/a.b', '/aXb')).toBe(false); // regex characters are literal
  });

  it(':name matches one segment', () => {
    expect(matches('/users/:id', '/users/42')).toBe(true);
    expect(matches('/users/:id', '/users/42/posts')).toBe(false);
    expect(matches('/users/:id', '/users/')).toBe(false);
    expect(matches('/files/:name.json', '/files/report.json')).toBe(true);
  });

  it('* matches anything, across segments', () => {
    expect(matches('/files/*', '/files/a/b/c')).toBe(true);
    expect(matches('/files/*', '/files/')).toBe(true);
    expect(matches('/files/*', '/files')).toBe(false);
    expect(matches('/*.pdf', '/a/b.pdf')).toBe(true);
  });

  it('modifiers ?, *, + with the optional slash before them', () => {
    expect(matches('/books/:id?', '/books')).toBe(true);
    expect(matches('/books/:id?', '/books/1')).toBe(true);
    expect(matches('/books/:id?', '/books/')).toBe(false);
    expect(matches('/p/:rest+', '/p/a/b/c')).toBe(true);
    expect(matches('/p/:rest+', '/p')).toBe(false);
    expect(matches('/p/:rest*', '/p')).toBe(true);
    expect(matches('/p/:rest*', '/p/a/b')).toBe(true);
  });

  it('regex groups and {} groups', () => {
    expect(matches('/orders/(\\d+)', '/orders/12')).toBe(true);
    expect(matches('/orders/(\\d+)', '/orders/ab')).toBe(false);
    expect(matches('/orders/:id(\\d+)', '/orders/12')).toBe(true);
    expect(matches('/v{1}?/x', '/v/x')).toBe(true);
    expect(matches('/v{1}?/x', '/v1/x')).toBe(true);
    expect(matches('/api{/v2}?/items', '/api/items')).toBe(true);
    expect(matches('/api{/v2}?/items', '/api/v2/items')).toBe(true);
  });

  it('backslash escapes a special character', () => {
    expect(matches('/a\\*', '/a*')).toBe(true);
    expect(matches('/a\\*', '/ab')).toBe(false);
    expect(matches('/a\\:b', '/a:b')).toBe(true);
  });

  it('literal text is percent-encoded like URL.pathname', () => {
    expect(matches('/café/*', new URL('http://x/café/menu').pathname)).toBe(true);
    expect(matches('/my file', new URL('http://x/my file').pathname)).toBe(true);
    expect(matches('/a\\?b', '/a%3Fb')).toBe(true);
  });

  it.each([
    ['/a/(b', 'unbalanced "("'],
    ['/a/b)', 'unbalanced ")"'],
    ['/a/{b', 'unbalanced "{"'],
    ['/a/b}', 'unbalanced "}"'],
    ['/a/:', 'missing parameter name'],
    ['/a/()', 'empty regex group'],
    ['/a/(?:x)', 'may not start with "?"'],
    ['/a/([)', 'invalid regex group'],
    ['/a/?', 'nothing to modify'],
    ['+', 'nothing to modify'],
    ['/:id/:id', 'duplicate parameter name'],
    ['/a\\', 'trailing backslash'],
  ])('rejects %s (%s) with a TypeError', (pattern, why) => {
    expect(() => compilePathPattern(pattern)).toThrow(TypeError);
    expect(() => compilePathPattern(pattern)).toThrow(why);
  });

  it('a modifier after a parameter with a regex takes the slash before it along', () => {
    expect(matches('/items/:id(\\d+)?', '/items')).toBe(true);
    expect(matches('/items/:id(\\d+)?', '/items/')).toBe(false);
    expect(matches('/items/:id(\\d+)?', '/items/7')).toBe(true);
    expect(matches('/n/:x(\\d+)+', '/n/1/22')).toBe(true);
    expect(matches('/n/:x(\\d+)+', '/n/122')).toBe(true);
    expect(matches('/z/:z(a|b)+', '/z/ab')).toBe(false);
    expect(matches('/z/:z(a|b)+', '/z/a/b')).toBe(true);
  });

  it('rejects what URLPattern rejects: a name not starting like an identifier, a capturing group inside a regex', () => {
    expect(() => compilePathPattern('/:0')).toThrow(/parameter name may not start with "0"/);
    expect(() => compilePathPattern('/((a))')).toThrow(/capturing group inside the regex group/);
    expect(() => compilePathPattern('/((?:a))')).not.toThrow();
    expect(() => compilePathPattern('/:_x/:$y/:é')).not.toThrow();
  });

  it('rejects a non-string', () => {
    expect(() => compilePathPattern(42 as unknown as string)).toThrow(TypeError);
  });
});

const PATTERNS = [
  '/',
  '/a',
  '/a/*',
  '/a/:id',
  '/a/:id?',
  '/books/:id?',
  '/a/:p*',
  '/a/:p+',
  '/a/(\\d+)',
  '/a/:id(\\d+)',
  '/a/(\\d+)?',
  '/a{/b}?',
  '/a{/:x}*',
  '/a{/:x}+',
  '/a/*?',
  '/a/*/b',
  '/:a/:b',
  '/a/:id.json',
  '/files/*.pdf',
  '/x/{:y}?',
  '/a/:id?/b',
  '/a/:x*/b',
  '/a\\*b',
  '/café',
  '/a b',
  '/v:major(\\d+)/*',
  '/api/:version{/items}?',
];
const PATHS = [
  '/',
  '/a',
  '/a/',
  '/a/1',
  '/a/12',
  '/a/x',
  '/a/1/2',
  '/a/b',
  '/a/b/c',
  '/a/b/b',
  '/a/1/b',
  '/a/x/y/b',
  '/a/x.json',
  '/a*b',
  '/ab',
  '/books',
  '/books/',
  '/books/9',
  '/files/r.pdf',
  '/files/d/r.pdf',
  '/x',
  '/x/',
  '/x/y',
  '/caf%C3%A9',
  '/a%20b',
  '/v2/anything',
  '/vx/anything',
  '/api/v1',
  '/api/v1/items',
];

describe.skipIf(typeof globalThis.URLPattern === 'undefined')('compilePathPattern against URLPattern', () => {
  it('matches exactly what the global URLPattern pathname matches', () => {
    const disagreements: string[] = [];
    let matched = 0;
    for (const pattern of PATTERNS) {
      const ours = compilePathPattern(pattern);
      const theirs = new URLPattern({ pathname: pattern });
      for (const path of PATHS) {
        const a = ours.test(path);
        const b = theirs.test({ pathname: path });
        if (a) matched++;
        if (a !== b) disagreements.push(`${pattern} on ${path}: ours ${a}, URLPattern ${b}`);
      }
    }
    expect(disagreements).toEqual([]);
    // The table is not trivially all misses.
    expect(matched).toBeGreaterThan(40);
  });
});

// Generated patterns and paths from the same small alphabet, so that matches are frequent. Literal
// `.` segments are left out: URLPattern removes dot segments from the pattern as the URL parser
// would, which route patterns do not rely on (see the core README).
const PATTERN_PARTS = ['/', '/', 'a', 'b', ':x', ':y', '(\\d+)', ':z(a|b)', '*', '{', '}', '?', '+', '-'];
const PATH_PARTS = ['/', 'a', 'b', '1', '12', 'ab', 'a-b'];

describe.skipIf(typeof globalThis.URLPattern === 'undefined')('compilePathPattern, property', () => {
  it('accepts and rejects the patterns URLPattern does, and matches the same paths', () => {
    const patternArb = fc
      .array(fc.constantFrom(...PATTERN_PARTS), { minLength: 1, maxLength: 6 })
      .map((parts) => `/${parts.join('')}`);
    const pathsArb = fc.array(
      fc.array(fc.constantFrom(...PATH_PARTS), { maxLength: 5 }).map((parts) => `/${parts.join('')}`),
      { minLength: 8, maxLength: 16 },
    );
    let compared = 0;
    let matched = 0;
    fc.assert(
      fc.property(patternArb, pathsArb, (pattern, paths) => {
        let theirs: URLPattern | undefined;
        try {
          theirs = new URLPattern({ pathname: pattern });
        } catch {
          theirs = undefined;
        }
        let ours: RegExp | undefined;
        try {
          ours = compilePathPattern(pattern);
        } catch {
          ours = undefined;
        }
        expect({ pattern, valid: ours !== undefined }).toEqual({ pattern, valid: theirs !== undefined });
        if (!ours || !theirs) return;
        for (const path of paths) {
          compared++;
          const a = ours.test(path);
          if (a) matched++;
          expect({ pattern, path, matches: a }).toEqual({
            pattern,
            path,
            matches: theirs.test({ pathname: path }),
          });
        }
      }),
      { numRuns: 3000, seed: 20261123 },
    );
    expect(compared).toBeGreaterThan(10_000);
    expect(matched).toBeGreaterThan(500);
  });
});
