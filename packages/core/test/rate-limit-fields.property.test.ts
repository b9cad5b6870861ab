/**
 * Whatever a server (or anything between it and the client) puts in the rate-limit fields, parsing
 * never throws and never yields a count that is not a finite whole number >= 0, nor a pace that is
 * `NaN`, negative or made of garbage: garbage is ignored.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { advertisedQuota, parseRateLimitPolicy } from '../src/rate-limit-fields.ts';
import { parseRateLimit } from '../src/ratelimit-field.ts';
import { windowDelay } from '../src/spent-quota.ts';
import { fieldValue } from './structured-field-arbitraries.ts';

/** The wait a `RateLimit` field alone gives, as the default path reads it (`windowDelay`). */
const parseRateLimitWait = (value: string): number | undefined =>
  windowDelay((name) => (name === 'ratelimit' ? value : undefined), 0)?.ms;

const MAX_INTEGER = 999_999_999_999_999;
const isCount = (n: number | undefined, min = 0): boolean =>
  n === undefined || (Number.isInteger(n) && n >= min && n <= MAX_INTEGER);

const fieldArb = fieldValue([';q=', ';w=', ';r=', ';t=', ';qu=', ';pk=', ';Q=']);
const nowArb = fc.oneof(fc.integer({ min: 0, max: 4_102_444_800_000 }), fc.double());

describe('rate-limit field parsing properties', () => {
  it('RateLimit-Policy: never throws; a quota and a window are whole numbers, a window at least 1', () => {
    fc.assert(
      fc.property(fieldArb, (value) => {
        const policies = parseRateLimitPolicy(value);
        for (const p of policies ?? []) {
          expect(isCount(p.quota)).toBe(true);
          expect(isCount(p.windowSeconds, 1)).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('RateLimit: never throws; remaining and reset are whole numbers >= 0', () => {
    fc.assert(
      fc.property(fieldArb, (value) => {
        for (const l of parseRateLimit(value) ?? []) {
          expect(isCount(l.remaining)).toBe(true);
          expect(isCount(l.resetSeconds)).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('valid fields round-trip: what is written is what is read', () => {
    const name = fc.stringMatching(/^[a-z][a-z0-9_-]{0,10}$/);
    const count = fc.integer({ min: 0, max: MAX_INTEGER });
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(name, count, fc.option(fc.integer({ min: 1, max: MAX_INTEGER }), { nil: undefined })),
          {
            minLength: 1,
            maxLength: 4,
          },
        ),
        (items) => {
          const policy = items
            .map(([n, q, w]) => `"${n}";q=${q}${w === undefined ? '' : `;w=${w}`}`)
            .join(', ');
          expect(parseRateLimitPolicy(policy)).toEqual(
            items.map(([n, q, w]) => ({ name: n, quota: q, windowSeconds: w })),
          );
          const limit = items.map(([n, r, t]) => `${n};r=${r}${t === undefined ? '' : `;t=${t}`}`).join(',');
          expect(parseRateLimit(limit)).toEqual(
            items.map(([n, r, t]) => ({ name: n, remaining: r, resetSeconds: t })),
          );
        },
      ),
    );
  });

  it('parseRateLimitWait (the default path’s reader of a spent quota) never reads what the strict parser does not: its wait is the longest t of the items with r=0', () => {
    fc.assert(
      fc.property(fieldArb, (value) => {
        const wait = parseRateLimitWait(value);
        if (wait === undefined) return;
        const items = parseRateLimit(value);
        expect(items).toBeDefined();
        const spent = (items ?? []).filter((l) => l.remaining === 0 && l.resetSeconds !== undefined);
        expect(wait).toBe(Math.max(...spent.map((l) => l.resetSeconds! * 1000)));
      }),
      { numRuns: 5000 },
    );
  });

  it('parseRateLimitWait reads every field of names, r and t (and other parameters) as servers write them', () => {
    const name = fc.oneof(fc.stringMatching(/^[a-z][a-z0-9_-]{0,10}$/), fc.stringMatching(/^"[a-z ]{0,8}"$/));
    const count = fc.integer({ min: 0, max: MAX_INTEGER });
    const extra = fc.constantFrom('', ';pk=:YWJj:', ';q=?1', ';x="y"', ';z=1.5');
    fc.assert(
      fc.property(
        fc.array(fc.tuple(name, fc.oneof(fc.constant(0), count), count, extra, fc.constantFrom('', ' ')), {
          minLength: 1,
          maxLength: 4,
        }),
        (items) => {
          const field = items.map(([n, r, t, x, sp]) => `${n};${sp}r=${r};${sp}t=${t}${x}`).join(', ');
          const spent = items.filter(([, r]) => r === 0).map(([, , t]) => t * 1000);
          expect(parseRateLimitWait(field)).toBe(spent.length === 0 ? undefined : Math.max(...spent));
        },
      ),
    );
  });

  it('advertisedQuota: a pace that is a number >= 0 (never NaN), held for a time >= 0, or nothing', () => {
    const headerNames = [
      'ratelimit',
      'ratelimit-policy',
      'x-ratelimit-remaining',
      'x-ratelimit-reset',
      'ratelimit-remaining',
      'ratelimit-reset',
    ];
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom(...headerNames), fc.oneof(fieldArb, fc.nat().map(String))),
        nowArb,
        (fields, now) => {
          const quota = advertisedQuota((name) => fields[name], now);
          if (quota === undefined) return;
          for (const value of [quota.rate, quota.forMs, quota.policyRate]) {
            expect(Number.isNaN(value)).toBe(false);
            expect(value).toBeGreaterThanOrEqual(0);
          }
          expect(Number.isFinite(quota.rate)).toBe(true);
          if (quota.rate === 0) expect(quota.forMs).toBeGreaterThan(0);
        },
      ),
      { numRuns: 3000 },
    );
  });
});
