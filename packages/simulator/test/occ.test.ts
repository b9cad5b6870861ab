import { describe, expect, it } from 'vitest';
import {
  DEFAULT_OCC_STRATEGIES,
  histogramBin,
  OCC_LIMITS,
  OCC_STRATEGIES,
  runOcc,
  simulateOcc,
} from '../src/index.ts';

describe('simulateOcc invariants', () => {
  for (const strategy of OCC_STRATEGIES) {
    it(`${strategy}: every client succeeds exactly once and calls >= N`, () => {
      for (const clients of [1, 2, 17, 60]) {
        for (let seed = 0; seed < 5; seed++) {
          const r = simulateOcc({ clients, strategy, seed });
          expect(r.finalVersion).toBe(clients);
          expect([...r.successes].every((s) => s === 1)).toBe(true);
          expect(r.calls).toBeGreaterThanOrEqual(clients);
          expect(r.writes.reduce((a, b) => a + b, 0)).toBe(r.calls);
          expect(r.timeMs).toBeGreaterThan(0);
          expect(Number.isFinite(r.timeMs)).toBe(true);
        }
      }
    });
  }

  it('with one client there is no contention: one call, for every strategy', () => {
    for (const strategy of OCC_STRATEGIES) {
      for (let seed = 0; seed < 20; seed++) expect(simulateOcc({ clients: 1, strategy, seed }).calls).toBe(1);
    }
  });

  it('takes four message delays for one client (read, answer, write, result)', () => {
    const r = simulateOcc({ clients: 1, strategy: 'none', seed: 3, latency: { meanMs: 10, sdMs: 0 } });
    expect(r.timeMs).toBeCloseTo(40, 9);
  });

  it('records write arrival times in order, one per call', () => {
    const r = simulateOcc({ clients: 30, strategy: 'full', seed: 9, recordWrites: true });
    const times = [...r.writeTimesMs!];
    expect(times).toHaveLength(r.calls);
    expect(times.every((t, i) => i === 0 || t >= times[i - 1]!)).toBe(true);
  });

  // Two clients, every message 10 ms: both writes arrive at 30 ms; client 0's wins, client 1 learns
  // of its conflict at 40 ms, waits, then reads, is answered, writes and learns of its success (40 ms).
  it("waits the blog's backoff(attempt 1) after the first conflict: 2 · base for exponential", () => {
    const fixed = { meanMs: 10, sdMs: 0 };
    const run = (strategy: (typeof OCC_STRATEGIES)[number]) =>
      simulateOcc({ clients: 2, strategy, seed: 1, latency: fixed, baseMs: 5 });
    expect(run('none').timeMs).toBe(40 + 0 + 40);
    expect(run('exponential').timeMs).toBe(40 + 10 + 40);
    expect(run('constant').timeMs).toBe(40 + 5 + 40);
    // full: [0, 10]; equal: [5, 10]; decorrelated: [base, 3 · base].
    const waits = { full: [0, 10], equal: [5, 10], decorrelated: [5, 15] } as const;
    for (const [strategy, [low, high]] of Object.entries(waits)) {
      const { timeMs, calls } = run(strategy as keyof typeof waits);
      expect(calls).toBe(3);
      expect(timeMs - 80).toBeGreaterThanOrEqual(low);
      expect(timeMs - 80).toBeLessThanOrEqual(high);
    }
  });

  it('a request that gives up at maxAttempts is followed at once by a new one', () => {
    for (const strategy of OCC_STRATEGIES) {
      for (let seed = 0; seed < 3; seed++) {
        const r = simulateOcc({ clients: 60, strategy, seed, maxAttempts: 3 });
        expect(r.finalVersion).toBe(60);
        expect([...r.successes].every((s) => s === 1)).toBe(true);
        expect(Math.max(...r.writes)).toBeGreaterThan(3);
        // One write per request: no client ever waits, whatever its backoff, so every strategy
        // makes exactly the writes of `none`.
        const once = simulateOcc({ clients: 60, strategy, seed, maxAttempts: 1 });
        const none = simulateOcc({ clients: 60, strategy: 'none', seed });
        expect({ calls: once.calls, timeMs: once.timeMs }).toEqual({
          calls: none.calls,
          timeMs: none.timeMs,
        });
      }
    }
  });

  it("rejects a maxAttempts outside 1 to the core's 1000", () => {
    for (const maxAttempts of [0, 1.5, OCC_LIMITS.maxAttempts + 1]) {
      expect(() => simulateOcc({ clients: 3, strategy: 'full', seed: 1, maxAttempts })).toThrow(
        /maxAttempts must be an integer from 1 to 1000/,
      );
    }
  });

  it('rejects a bad client count', () => {
    expect(() => simulateOcc({ clients: 0, strategy: 'full', seed: 1 })).toThrow(RangeError);
  });
});

describe('runOcc', () => {
  const options = { seed: 42, clients: [10, 40], runs: 8, histogramClients: 20 } as const;

  it('is deterministic under a seed', () => {
    expect(runOcc(options)).toEqual(runOcc(options));
  });

  it('differs between seeds', () => {
    const a = runOcc(options).points.map((p) => p.calls.mean);
    const b = runOcc({ ...options, seed: 43 }).points.map((p) => p.calls.mean);
    expect(a).not.toEqual(b);
  });

  it('gives a point per strategy and client count, in the JSON shape of the issue', () => {
    const r = runOcc(options);
    expect(r.points).toHaveLength(DEFAULT_OCC_STRATEGIES.length * 2);
    for (const p of r.points) {
      expect(p).toMatchObject({ runs: 8, calls: { n: 8 }, timeMs: { n: 8 } });
      expect(p.calls.mean).toBeGreaterThanOrEqual(p.clients);
      expect(p.calls.sd).toBeGreaterThanOrEqual(0);
    }
    expect(r.histograms.map((h) => h.strategy)).toEqual([...DEFAULT_OCC_STRATEGIES]);
    for (const h of r.histograms) expect(h.counts.reduce((a, b) => a + b, 0)).toBe(h.calls);
  });

  it("a point's numbers do not depend on the rest of the sweep", () => {
    const alone = runOcc({ seed: 5, clients: [40], strategies: ['equal'], runs: 4, histogramClients: 0 });
    const within = runOcc({ seed: 5, clients: [10, 40], runs: 4, histogramClients: 0 });
    expect(within.points.find((p) => p.strategy === 'equal' && p.clients === 40)).toEqual(alone.points[0]);
  });

  it('reproduces the blog: jitter at least halves the work of no-jitter backoff at 100 clients', () => {
    const r = runOcc({ seed: 7, clients: [100], runs: 20, histogramClients: 0 });
    const calls = Object.fromEntries(r.points.map((p) => [p.strategy, p.calls.mean]));
    expect(calls.full!).toBeLessThan(calls.exponential! / 2);
    expect(calls.equal!).toBeLessThan(calls.exponential! / 2);
    expect(calls.full!).toBeLessThan(calls.decorrelated!);
    const time = Object.fromEntries(r.points.map((p) => [p.strategy, p.timeMs.mean]));
    expect(time.equal!).toBeGreaterThan(time.full!);
  });
});

describe('bad settings are refused before anything runs', () => {
  const instant = { meanMs: 0, sdMs: 0 };

  it.each([
    ['clients above the limit', { clients: OCC_LIMITS.clients + 1 }, /clients must be an integer from 1 to/],
    ['a fractional client count', { clients: 2.5 }, /clients must be an integer/],
    ['a negative base', { baseMs: -1 }, /baseMs must be a finite number >= 0/],
    ['an infinite cap', { capMs: Number.POSITIVE_INFINITY }, /capMs must be a finite number >= 0/],
    ['a NaN latency', { latency: { meanMs: Number.NaN, sdMs: 1 } }, /latency.meanMs/],
    ['an unknown strategy', { strategy: 'wobbly' }, /unknown strategy "wobbly"/],
  ] as const)('simulateOcc: %s', (_what, bad, message) => {
    expect(() => simulateOcc({ clients: 3, strategy: 'full', seed: 1, ...bad } as never)).toThrow(message);
  });

  // With no latency and no sleep every loser reads again at the instant of the success it lost to,
  // and loses again: without this check the run would never end.
  it.each(OCC_STRATEGIES.filter((s) => s !== 'none'))(
    '%s with base 0 and zero latency is refused instead of looping forever',
    (strategy) => {
      expect(() => simulateOcc({ clients: 3, strategy, seed: 1, baseMs: 0, latency: instant })).toThrow(
        /never sleeps/,
      );
    },
  );

  it('none with zero latency is refused', () => {
    expect(() => simulateOcc({ clients: 2, strategy: 'none', seed: 1, latency: instant })).toThrow(
      /never sleeps/,
    );
  });

  it('zero latency is fine for a strategy that sleeps: every client succeeds once', () => {
    const r = simulateOcc({ clients: 20, strategy: 'full', seed: 3, latency: instant });
    expect(r.calls).toBeGreaterThanOrEqual(20);
    expect(Number.isFinite(r.timeMs)).toBe(true);
  });

  it('runOcc checks every strategy before its first run', () => {
    let progressed = 0;
    expect(() =>
      runOcc({
        seed: 1,
        clients: [5],
        runs: 1,
        strategies: ['full', 'none'],
        latency: instant,
        onProgress: () => progressed++,
      }),
    ).toThrow(/"none" never sleeps/);
    expect(progressed).toBe(0);
    expect(() => runOcc({ seed: 1, clients: [5], runs: OCC_LIMITS.runs + 1 })).toThrow(/runs must be/);
    expect(() => runOcc({ seed: 1, clients: [5], runs: 1, histogramBinMs: 0 })).toThrow(/histogramBinMs/);
  });
});

describe('histogram bins', () => {
  it('keep the requested width while the longest run fits', () => {
    expect(histogramBin(10, 5_000)).toBe(10);
    expect(histogramBin(10, 10 * OCC_LIMITS.histogramBins - 1)).toBe(10);
  });

  it('widen in 1-2-5 steps to stay within the bin limit', () => {
    expect(histogramBin(10, 10 * OCC_LIMITS.histogramBins)).toBe(20);
    expect(histogramBin(10, 30 * OCC_LIMITS.histogramBins)).toBe(50);
    expect(histogramBin(10, 1e12)).toBe(2e8);
  });

  it('a huge cap gives a histogram within the limit that still counts every write', () => {
    const r = runOcc({
      seed: 9,
      clients: [5],
      runs: 1,
      strategies: ['exponential'],
      baseMs: 1_000_000,
      capMs: 1e9,
      histogramClients: 30,
    });
    const [h] = r.histograms;
    expect(h!.binMs).toBeGreaterThan(10);
    expect(h!.counts.length).toBeLessThanOrEqual(OCC_LIMITS.histogramBins);
    expect(h!.counts.reduce((a, b) => a + b, 0)).toBe(h!.calls);
  });
});
