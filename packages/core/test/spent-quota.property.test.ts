/**
 * Whatever the rate-limit fields hold, a spent quota's wait is a finite number of ms >= 0 or
 * nothing, and only a field that says nothing is left gives one.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRateLimit, spentWaitMs } from '../src/ratelimit-field.ts';
import { MAX_SERVER_DELAY_MS, parseRateLimitReset } from '../src/retry-after.ts';
import { windowDelay } from '../src/spent-quota.ts';
import { spentQuota } from './helpers.ts';

const value = fc.oneof(
  fc.string(),
  fc.nat().map(String),
  fc.constantFrom('0', ' 0', '00', '-0', '0.0', '1e3', 'NaN', '99999999999999999999'),
  fc
    .tuple(
      fc.constantFrom('"d"', 'd', '(a)', '?1'),
      fc.constantFrom(';r=0', ';r=1', ';r=', ''),
      fc.string({ maxLength: 6 }),
    )
    .map((parts) => parts.join('')),
  fc.tuple(fc.nat({ max: 3 }), fc.nat()).map(([r, t]) => `"p";r=${r};t=${t}`),
);
const names = [
  'ratelimit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'ratelimit-remaining',
  'ratelimit-reset',
];

describe('spent quota properties', () => {
  it('a finite wait in [0, MAX_SERVER_DELAY_MS], from a field that says nothing is left, or nothing', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom(...names), value),
        fc.oneof(fc.integer({ min: 0, max: 4_102_444_800_000 }), fc.double()),
        (fields, now) => {
          const spent = spentQuota((name) => fields[name], now);
          if (spent === undefined) return;
          expect(Number.isFinite(spent.ms)).toBe(true);
          expect(spent.ms).toBeGreaterThanOrEqual(0);
          expect(spent.ms).toBeLessThanOrEqual(MAX_SERVER_DELAY_MS);
          if (spent.source === 'ratelimit') expect(fields.ratelimit).toMatch(/r=0/);
          else expect(Number(fields[spent.source.replace('reset', 'remaining')])).toBe(0);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('RateLimit items with r=0 give the longest of their t', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat({ max: 2 }), fc.nat({ max: 1_000_000 })), { minLength: 1, maxLength: 5 }),
        (items) => {
          const field = items.map(([r, t], i) => `"p${i}";r=${r};t=${t}`).join(', ');
          const spent = items.filter(([r]) => r === 0).map(([, t]) => t);
          expect(spentQuota((name) => (name === 'ratelimit' ? field : undefined), 0)).toEqual(
            spent.length === 0 ? undefined : { ms: Math.max(...spent) * 1000, source: 'ratelimit' },
          );
        },
      ),
    );
  });

  it('windowDelay: a spent quota first, else the first reset that parses, each field read once', () => {
    // The rules as they read one by one: RateLimit's spent items (a valid RateLimit field is the
    // whole answer about a spent quota), the older pairs, then RateLimit-Reset, X-RateLimit-Reset.
    const zero = (v: string | undefined) => v !== undefined && /^0{1,15}$/.test(v.trim());
    const reference = (fields: Record<string, string>, now: number) => {
      const wait = spentWaitMs(parseRateLimit(fields.ratelimit) ?? []);
      if (wait !== undefined) return { ms: wait, source: 'ratelimit', spent: true };
      if (!parseRateLimit(fields.ratelimit)) {
        for (const prefix of ['x-', '']) {
          const reset = parseRateLimitReset(fields[`${prefix}ratelimit-reset`], now);
          if (reset !== undefined && zero(fields[`${prefix}ratelimit-remaining`]))
            return { ms: reset, source: `${prefix}ratelimit-reset`, spent: true };
        }
      }
      for (const source of ['ratelimit-reset', 'x-ratelimit-reset']) {
        const ms = parseRateLimitReset(fields[source], now);
        if (ms !== undefined) return { ms, source };
      }
      return undefined;
    };
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom(...names), value),
        fc.integer({ min: 0, max: 4_102_444_800_000 }),
        (fields, now) => {
          const reads: string[] = [];
          const delay = windowDelay((name) => {
            reads.push(name);
            return fields[name];
          }, now);
          expect(delay).toEqual(reference(fields, now));
          expect(new Set(reads).size).toBe(reads.length);
        },
      ),
      { numRuns: 3000 },
    );
  });
});
