/**
 * Whatever an intermediary (or anything on the path) writes in `Proxy-Status`, parsing never throws,
 * every entry it gives has a name and a Token error or none, and a well-formed field reads back as
 * written.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NOT_FORWARDED_ERRORS, notForwarded, parseProxyStatus } from '../src/proxy-status.ts';
import { fieldValue } from './structured-field-arbitraries.ts';

const TOKEN = /^[A-Za-z*][!#$%&'*+\-.^_`|~0-9A-Za-z:/]*$/;

const fieldArb = fieldValue([
  ';error=',
  '; error=',
  ';next-hop=',
  ';received-status=',
  ';details=',
  'lb',
  'revproxy1.example.net',
  ...NOT_FORWARDED_ERRORS,
  'http_response_timeout',
  'connection_terminated',
]);

describe('Proxy-Status parsing properties', () => {
  it('never throws; an entry has a name and an error that is a Token or none', () => {
    fc.assert(
      fc.property(fieldArb, (value) => {
        for (const entry of parseProxyStatus(value) ?? []) {
          expect(typeof entry.name).toBe('string');
          if (entry.error !== undefined) expect(entry.error).toMatch(TOKEN);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('notForwarded gives one of the listed error types, or nothing, for any status', () => {
    fc.assert(
      fc.property(fieldArb, fc.integer({ min: 100, max: 599 }), (value, status) => {
        const error = notForwarded(status, (name) => (name === 'proxy-status' ? value : undefined));
        if (error !== undefined) {
          expect(NOT_FORWARDED_ERRORS).toContain(error);
          expect([500, 502, 503, 504]).toContain(status);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('a well-formed field reads back as written', () => {
    const name = fc.oneof(
      fc.stringMatching(/^[a-z][a-z0-9.\-_]{0,12}$/),
      fc.stringMatching(/^[ -!#-[\]-~]{0,12}$/).map((n) => ({ quoted: n })),
    );
    const error = fc.option(fc.constantFrom(...NOT_FORWARDED_ERRORS, 'http_response_timeout'), {
      nil: undefined,
    });
    fc.assert(
      fc.property(fc.array(fc.tuple(name, error), { minLength: 1, maxLength: 4 }), (entries) => {
        const written = entries
          .map(([n, e]) => {
            const member = typeof n === 'string' ? n : `"${n.quoted}"`;
            return e === undefined ? `${member}; received-status=502` : `${member}; error=${e}`;
          })
          .join(', ');
        expect(parseProxyStatus(written)).toEqual(
          entries.map(([n, e]) => ({ name: typeof n === 'string' ? n : n.quoted, error: e })),
        );
      }),
    );
  });
});
