/**
 * Problem Details bodies (RFC 9457) as the RateLimit draft's problem types come in them: the
 * `content-type` check, and the `type` read from a body that was read in full, within a bound.
 */

import { describe, expect, it } from 'vitest';
import { isProblemJson, problemType } from '../src/problem-details.ts';

const QUOTA = 'https://iana.org/assignments/http-problem-types#quota-exceeded';
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('isProblemJson', () => {
  it('application/problem+json, in any case, with or without parameters', () => {
    for (const value of [
      'application/problem+json',
      'Application/Problem+JSON',
      'application/problem+json; charset=utf-8',
      'application/problem+json;charset=UTF-8',
      '  application/problem+json  ',
      'application/problem+json\t; q=1',
    ]) {
      expect(isProblemJson(value), value).toBe(true);
    }
  });

  it('nothing else: plain JSON, problem+xml, look-alikes, no header', () => {
    for (const value of [
      'application/json',
      'application/problem+xml',
      'application/problem+jsonx',
      'application/problem+json-seq',
      'text/application/problem+json',
      'application/problem',
      '',
    ]) {
      expect(isProblemJson(value), value).toBe(false);
    }
    expect(isProblemJson(null)).toBe(false);
    expect(isProblemJson(undefined)).toBe(false);
  });
});

describe('problemType', () => {
  it("reads the draft's example, as text or as bytes", () => {
    const body = `{
      "type": "${QUOTA}",
      "title": "Request cannot be satisfied as assigned quota has been exceeded",
      "violated-policies": ["daily","bandwidth"]
    }`;
    expect(problemType(body, 65_536)).toBe(QUOTA);
    expect(problemType(bytes(body), 65_536)).toBe(QUOTA);
    // A byte order mark before the JSON is dropped.
    expect(problemType(`\uFEFF${body}`, 65_536)).toBe(QUOTA);
    expect(problemType(new Uint8Array([0xef, 0xbb, 0xbf, ...bytes(body)]), 65_536)).toBe(QUOTA);
  });

  it('nothing for a body past the bound: read in part, it cannot be parsed', () => {
    const body = JSON.stringify({ type: QUOTA, detail: 'x'.repeat(100) });
    expect(problemType(body, body.length)).toBe(QUOTA);
    expect(problemType(body, body.length - 1)).toBeUndefined();
    expect(problemType(bytes(body), body.length - 1)).toBeUndefined();
    expect(problemType(body.slice(0, 40), 65_536)).toBeUndefined();
  });

  it('nothing for garbage, other JSON, or a type that is not a non-empty string', () => {
    for (const body of [
      '',
      'not json',
      '<html>502 Bad Gateway</html>',
      'null',
      '"quota-exceeded"',
      `["${QUOTA}"]`,
      '{}',
      '{"type": 429}',
      '{"type": ""}',
      '{"type": null}',
      `{"type": ["${QUOTA}"]}`,
      `{"Type": "${QUOTA}"}`,
      '{"__proto__": {"type": "x"}}',
    ]) {
      expect(problemType(body, 65_536), body).toBeUndefined();
    }
    // Invalid UTF-8 turns into replacement characters, not an exception.
    expect(problemType(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), 65_536)).toBeUndefined();
  });

  it('a relative type is given as written; a key given twice keeps its last value, as JSON.parse does', () => {
    expect(problemType('{"type": "/problems/out-of-credit"}', 100)).toBe('/problems/out-of-credit');
    expect(problemType(`{"type": "about:blank", "type": "${QUOTA}"}`, 200)).toBe(QUOTA);
  });
});
