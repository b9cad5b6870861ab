import { describe, expect, it } from 'vitest';
import {
  DEFAULT_LATENCY,
  DEFAULT_STORM_POLICIES,
  runStorm,
  STORM_DEFAULTS,
  STORM_LIMITS,
  STORM_POLICIES,
  simulateStorm,
  stormLimitProblem,
} from '../src/index.ts';

const small = { seed: 9, durationSec: 20, outageStartSec: 5, outageEndSec: 10, runs: 2 } as const;

describe('simulateStorm accounting', () => {
  for (const policy of STORM_POLICIES) {
    it(`${policy}: attempts = requests + retries, and every request ends once`, () => {
      const r = simulateStorm(policy, small);
      expect(r.attempts).toBe(r.requests + r.retries);
      expect(r.succeeded + r.failed).toBe(r.requests);
      expect(Object.values(r.stopReasons).reduce((a, b) => a + b, 0)).toBe(r.requests);
      expect(r.timeline.attempts.reduce((a, b) => a + b, 0)).toBe(r.attempts);
      expect(
        r.timeline.rejected.reduce((a, b) => a + b, 0) + r.timeline.served.reduce((a, b) => a + b, 0),
      ).toBe(r.attempts);
      expect(r.timeline.started.reduce((a, b) => a + b, 0)).toBe(r.requests);
      expect(r.timeline.served.reduce((a, b) => a + b, 0)).toBe(r.succeeded);
      expect(r.attempts).toBeLessThanOrEqual(r.requests * 3);
    });
  }

  it('none never retries; every request in the outage fails', () => {
    const r = simulateStorm('none', small);
    expect(r.retries).toBe(0);
    expect(r.failed).toBeGreaterThanOrEqual(r.outageRequests - 5);
  });

  it("the core's budget caps retries at burst + ratio × requests", () => {
    for (const policy of ['budget', 'budget+retry-after'] as const) {
      const r = simulateStorm(policy, small);
      expect(r.retries).toBeLessThanOrEqual(10 + 0.1 * r.requests + 1e-9);
      expect(r.stopReasons['budget-exhausted']).toBeGreaterThan(0);
    }
  });

  it('naive retries triple the load during the outage; the budget keeps it near 1.1', () => {
    const naive = simulateStorm('naive-full', small);
    const budget = simulateStorm('budget', small);
    expect(naive.outageAttempts / naive.outageRequests).toBeGreaterThan(2.8);
    expect(budget.outageAttempts / budget.outageRequests).toBeLessThan(1.3);
  });

  it('every policy faces the same requests under a seed', () => {
    const counts = new Set(STORM_POLICIES.map((p) => simulateStorm(p, small).requests));
    expect(counts.size).toBe(1);
  });

  it('refuses settings past STORM_LIMITS before allocating anything, naming them', () => {
    const base = { seed: 1, runs: 1, policies: ['none'] as const };
    expect(() => simulateStorm('none', { ...base, ratePerSec: 1e9 })).toThrow(
      /ratePerSec \/ durationSec: 60000000000 requests per run/,
    );
    expect(() => simulateStorm('naive-full', { ...base, capMs: 1e12, baseMs: 1 })).toThrow(/binMs .* bins/);
    expect(() => simulateStorm('none', { ...base, binMs: 1e-6 })).toThrow(/bins/);
    expect(() => runStorm({ ...base, runs: STORM_LIMITS.runs + 1 })).toThrow(
      /runs: 10001 runs, at most 10000/,
    );
    expect(stormLimitProblem({ ...STORM_DEFAULTS, latency: DEFAULT_LATENCY })).toBeUndefined();
  });

  it('rejects an outage outside the run', () => {
    expect(() =>
      simulateStorm('none', { seed: 1, durationSec: 10, outageStartSec: 5, outageEndSec: 12 }),
    ).toThrow(RangeError);
  });
});

describe('runStorm', () => {
  it('is deterministic under a seed', () => {
    expect(runStorm(small)).toEqual(runStorm(small));
  });

  it('reports every default policy with sane metrics', () => {
    const r = runStorm(small);
    expect(r.policies.map((p) => p.policy)).toEqual([...DEFAULT_STORM_POLICIES]);
    for (const p of r.policies) {
      expect(p.attempts).toBe(p.requests + p.retries);
      expect(p.amplification.mean).toBeGreaterThanOrEqual(1);
      expect(p.failedShare.mean).toBeGreaterThanOrEqual(0);
      expect(p.failedShare.mean).toBeLessThanOrEqual(1);
      expect(p.timeline.attemptsPerSec.length).toBeGreaterThan(0);
    }
  });
});
