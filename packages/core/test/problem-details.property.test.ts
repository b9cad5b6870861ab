/**
 * Whatever a server sends as a problem body, reading its `type` never throws and never reads past
 * the bound: it gives the `type` of a JSON object whose body fits, and nothing for anything else.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isProblemJson, problemType } from '../src/problem-details.ts';

const body = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.json(),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.constantFrom('{', '{"type":', '{"type": "a"', '[{"type":"a"}]', '{"type":"a"}}', '\uFEFF{"type":"a"}'),
);

describe('problem details properties', () => {
  it('never throws, as text or as bytes; gives a non-empty string or nothing', () => {
    fc.assert(
      fc.property(body, fc.integer({ min: 0, max: 2000 }), (text, maxBytes) => {
        for (const input of [text, new TextEncoder().encode(text)]) {
          const type = problemType(input, maxBytes);
          if (type !== undefined) {
            expect(typeof type).toBe('string');
            expect(type).not.toBe('');
          }
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('never reads a body longer than the bound', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.nat({ max: 100 }), (type, extra) => {
        const text = JSON.stringify({ type, detail: 'd'.repeat(extra) });
        const encoded = new TextEncoder().encode(text);
        expect(problemType(encoded, encoded.byteLength - 1)).toBeUndefined();
        expect(problemType(text, text.length - 1)).toBeUndefined();
      }),
    );
  });

  it("an object's string type reads back, whatever else the object holds and however it is spaced", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }),
        fc.dictionary(
          fc.string().filter((k) => k !== 'type'),
          fc.jsonValue(),
        ),
        fc.constantFrom(undefined, 0, 2, '\t'),
        (type, rest, space) => {
          const text = JSON.stringify({ ...rest, type }, null, space);
          expect(problemType(text, text.length)).toBe(type);
          const encoded = new TextEncoder().encode(text);
          // A lone surrogate in a string is no valid UTF-8: bytes carry U+FFFD in its place.
          const expected = new TextDecoder().decode(new TextEncoder().encode(type));
          expect(problemType(encoded, encoded.byteLength)).toBe(expected);
        },
      ),
    );
  });

  it('garbage after the JSON makes it no problem body', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }),
        fc.string({ minLength: 1 }).filter((s) => s.trim() !== ''),
        (type, junk) => {
          const text = `${JSON.stringify({ type })}${junk}`;
          let valid = true;
          try {
            JSON.parse(text);
          } catch {
            valid = false;
          }
          if (!valid) expect(problemType(text, 1_000_000)).toBeUndefined();
        },
      ),
    );
  });

  it('isProblemJson: any case of the media type, with any parameters; never a longer subtype', () => {
    const caseOf = (text: string) =>
      fc
        .array(fc.boolean(), { minLength: text.length, maxLength: text.length })
        .map((upper) => [...text].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(''));
    fc.assert(
      fc.property(
        caseOf('application/problem+json'),
        fc.constantFrom('', ';charset=utf-8', '; charset="utf-8"', ' ;x=y'),
        fc.stringMatching(/^[a-z0-9+.-]{1,5}$/),
        (type, params, suffix) => {
          expect(isProblemJson(`${type}${params}`)).toBe(true);
          expect(isProblemJson(`${type}${suffix}${params}`)).toBe(false);
        },
      ),
    );
  });
});
