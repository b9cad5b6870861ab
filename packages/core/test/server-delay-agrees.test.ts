/**
 * One reading of the server's delay: when a 429's fields disagree (a `Retry-After` beside a
 * rate-limit reset, a spent quota beside a window's reset, the prefixed pair beside the unprefixed
 * one), the herd line, the pacer and the fleet's pacer hold the origin until the time the retry
 * itself waits, no sooner and no later. Driven in virtual time, jitter fixed at none.
 */
import { createPacer, createRetryPolicy, type Pacer } from '@jitterbug/core';
import { createPacer as createFleetPacer, createMemoryStore, type SharedStore } from '@jitterbug/core/store';
import { describe, expect, it } from 'vitest';
import type { Decision } from '../src/decide.ts';
import { decideOn } from './decisions.ts';
import { decided, fixed, headers } from './helpers.ts';

const URL_A = 'https://api.example.com/items';

/** 429s whose fields disagree, each with the wait the decision reads of them. */
const DISAGREEING: readonly (readonly [string, Record<string, string>, number])[] = [
  [
    'a spent RateLimit quota beside a shorter RateLimit-Reset',
    { 'ratelimit-reset': '5', ratelimit: '"q";r=0;t=30' },
    30_000,
  ],
  [
    'a spent RateLimit quota beside a longer RateLimit-Reset',
    { 'ratelimit-reset': '30', ratelimit: '"q";r=0;t=5' },
    5_000,
  ],
  [
    'a spent RateLimit quota beside X-RateLimit-Reset',
    { 'x-ratelimit-reset': '40', ratelimit: '"q";r=0;t=20' },
    20_000,
  ],
  [
    'the prefixed pair’s spent quota beside an unprefixed reset',
    { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '10', 'ratelimit-reset': '3' },
    10_000,
  ],
  [
    'the prefixed pair’s spent quota beside a longer unprefixed reset',
    { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '4', 'ratelimit-reset': '30' },
    4_000,
  ],
  ['Retry-After beside a spent quota', { 'retry-after': '2', ratelimit: '"q";r=0;t=30' }, 2_000],
];

/** The wait of a decision that retries. */
const waitOf = (decision: Decision): number => {
  if (!decision.retry) throw new Error(`not retried: ${decision.reason}`);
  return decision.delayMs;
};

describe('the server’s delay is read once, the same for the retry and the features that hold an origin', () => {
  for (const [name, fields, waits] of DISAGREEING) {
    it(`the herd line holds its line until the retry’s time: ${name}`, () => {
      let now = 0;
      const policy = createRetryPolicy({ random: fixed(0), now: () => now });
      // A retry told to come back at once is first in line: it is held until the line's hold ends.
      const first = policy.begin({ method: 'GET', url: URL_A });
      expect(
        waitOf(decided(decideOn(first, { status: 429, headers: headers({ 'retry-after': '0' }) }))),
      ).toBe(0);
      const run = policy.begin({ method: 'GET', url: URL_A });
      const decision = decided(decideOn(run, { status: 429, headers: headers(fields) }));
      expect(waitOf(decision)).toBe(waits);
      expect(first.admission()).toEqual({ holdMs: waits });
      now = waits;
      expect(first.admission()).toBeUndefined();
    });

    it(`the pacer pauses the origin until the retry’s time: ${name}`, () => {
      const now = 0;
      const policy = createRetryPolicy({ random: fixed(0), now: () => now, pacer: createPacer() as Pacer });
      const run = policy.begin({ method: 'GET', url: URL_A });
      expect(run.admission()).toBeUndefined();
      expect(waitOf(decided(decideOn(run, { status: 429, headers: headers(fields) })))).toBe(waits);
      expect(policy.begin({ method: 'GET', url: URL_A }).admission()).toEqual({ holdMs: waits });
    });

    it(`the fleet’s pacer tells the fleet the retry’s time: ${name}`, async () => {
      const memory = createMemoryStore();
      const holds: number[] = [];
      const store: SharedStore = {
        run(operation, scope, args) {
          if (operation.name === 'gcra.limit') holds.push(args[0]!);
          return memory.run(operation, scope, args);
        },
      };
      const policy = createRetryPolicy({
        random: fixed(0),
        now: () => 0,
        pacer: createFleetPacer({ store }),
      });
      const run = policy.begin({ method: 'GET', url: URL_A });
      await run.admission();
      expect(waitOf(await decideOn(run, { status: 429, headers: headers(fields) }))).toBe(waits);
      expect(holds).toEqual([waits]);
    });
  }
});
