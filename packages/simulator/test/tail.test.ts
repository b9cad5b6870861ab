import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seededRandom } from '@jitterbug/core';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createServiceTime,
  DEFAULT_SERVICE_TIME,
  meanServiceMs,
  parseLoads,
  percentileOfSorted,
  resolveTail,
  runCli,
  runTail,
  simulateTail,
  TAIL_LIMITS,
  TAIL_VARIANTS,
  type TailPoint,
  tailCapacityPerSec,
} from '../src/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'jitterbug-tail-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// One fixed seed; 20 000 requests per point keep the p99 (200 requests above it) steady.
const sweep = runTail({ seed: 1, loads: [0.5, 0.9], requests: 20_000, runs: 1 });
const at = (variant: string, load: number): TailPoint =>
  sweep.points.find((p) => p.variant === variant && p.load === load)!;

describe('the issue goals (seed 1)', () => {
  it('at moderate load (0.5) hedging within the budget at least halves p99 for at most 5% extra requests', () => {
    const none = at('none', 0.5);
    for (const variant of ['fixed+budget', 'p95+budget']) {
      const hedged = at(variant, 0.5);
      expect(hedged.p99Ms, variant).toBeLessThanOrEqual(none.p99Ms / 2);
      // The budget's bound: `ratio` (5 %) per request, plus the ten tokens it starts with.
      expect(hedged.extraLoad, variant).toBeLessThanOrEqual(0.05 + 10 / 20_000);
      expect(hedged.extraLoad, variant).toBeGreaterThan(0);
    }
    // BigTable's anchor: a 10 ms hedge cuts the tail from seconds to milliseconds for ~2% more.
    expect(none.p99Ms).toBeGreaterThan(1000);
    expect(at('fixed', 0.5).p99Ms).toBeLessThan(20);
    expect(at('fixed', 0.5).extraLoad).toBeLessThan(0.03);
  });

  it('at high load (0.9) hedging without the budget collapses; the budget prevents it', () => {
    const none = at('none', 0.9);
    for (const variant of ['fixed', 'p95']) {
      const unbounded = at(variant, 0.9);
      expect(unbounded.extraLoad, variant).toBeGreaterThan(0.5);
      expect(unbounded.p50Ms, variant).toBeGreaterThan(100 * none.p50Ms);
    }
    for (const variant of ['fixed+budget', 'p95+budget']) {
      const bounded = at(variant, 0.9);
      expect(bounded.extraLoad, variant).toBeLessThanOrEqual(0.05);
      expect(bounded.p50Ms, variant).toBeLessThan(2 * none.p50Ms);
      expect(bounded.p99Ms, variant).toBeLessThanOrEqual(none.p99Ms);
      expect(bounded.refusedHedges, variant).toBeGreaterThan(bounded.wantedHedges / 2);
    }
  });
});

describe('simulateTail accounting', () => {
  const options = { seed: 4, requests: 5000 } as const;
  for (const variant of TAIL_VARIANTS) {
    it(`${variant}: every request answered once; copies = requests + hedges sent`, () => {
      for (const load of [0.3, 0.8]) {
        const r = simulateTail(variant, load, options);
        expect(r.latenciesMs).toHaveLength(5000);
        expect(r.latenciesMs.every((ms) => ms > 0 && Number.isFinite(ms))).toBe(true);
        expect(r.copies).toBe(r.requests + r.wantedHedges - r.refusedHedges);
        if (variant === 'none') expect(r.wantedHedges).toBe(0);
        if (!variant.endsWith('+budget')) expect(r.refusedHedges).toBe(0);
        // The core's hedge budget starts with its ten tokens and gains `ratio` per request.
        else expect(r.copies - r.requests).toBeLessThanOrEqual(10 + 0.05 * r.requests);
        expect(r.serverEndMs).toBeGreaterThanOrEqual(r.endMs - 2);
        expect(r.workMs).toBeGreaterThan(0);
      }
    });
  }

  it('is deterministic under a seed, and every variant faces the same requests', () => {
    const a = simulateTail('p95+budget', 0.7, options);
    const b = simulateTail('p95+budget', 0.7, options);
    expect([...a.latenciesMs]).toEqual([...b.latenciesMs]);
    expect(a.copies).toBe(b.copies);
    // At a load this low nothing queues: a request's latency without hedging is its first copy's
    // service time plus two messages, the same draws whatever the variant; a hedge only shortens it.
    const none = simulateTail('none', 0.01, options);
    const fixed = simulateTail('fixed', 0.01, options);
    let shorter = 0;
    for (let i = 0; i < 5000; i++) {
      expect(fixed.latenciesMs[i]!).toBeLessThanOrEqual(none.latenciesMs[i]! + 2);
      if (fixed.latenciesMs[i]! < none.latenciesMs[i]! - 50) shorter++;
    }
    expect(shorter).toBeGreaterThan(50);
  });

  it("measures the core's shallow hedge budget against a deeper one", () => {
    const shallow = simulateTail('fixed+budget', 0.5, { seed: 1, requests: 20_000, hedgeBurst: 1 });
    const deep = simulateTail('fixed+budget', 0.5, { seed: 1, requests: 20_000 });
    // One token held (the core's depth until this experiment) refuses about a third of the hedges a
    // 10 ms delay wants; the core's ten refuse none.
    expect(shallow.refusedHedges / shallow.wantedHedges).toBeGreaterThan(0.2);
    expect(deep.refusedHedges).toBe(0);
    const sorted = (r: typeof deep) => Float64Array.from(r.latenciesMs).sort();
    expect(percentileOfSorted(sorted(deep), 99.9)).toBeLessThan(50);
    expect(percentileOfSorted(sorted(shallow), 99.9)).toBeGreaterThan(1000);
  });

  it("a window fed only the winners' times hedges more than its percentile says", () => {
    const winner = simulateTail('p95', 0.3, { seed: 1, requests: 20_000, windowFeed: 'winner' });
    const request = simulateTail('p95', 0.3, { seed: 1, requests: 20_000, windowFeed: 'request' });
    expect(winner.wantedHedges / winner.requests).toBeGreaterThan(0.065);
    expect(request.wantedHedges / request.requests).toBeGreaterThan(0.045);
    expect(request.wantedHedges / request.requests).toBeLessThan(0.055);
  });
});

describe('the service time', () => {
  it('is a mixture with the share of slow copies and the mean the model says', () => {
    const draw = createServiceTime(seededRandom(7), DEFAULT_SERVICE_TIME);
    const n = 200_000;
    let slow = 0;
    let sum = 0;
    for (let i = 0; i < n; i++) {
      const ms = draw();
      sum += ms;
      if (ms >= 100) slow++;
      expect(ms).toBeGreaterThan(0);
    }
    expect(slow / n).toBeCloseTo(0.02, 2);
    expect(sum / n / meanServiceMs(DEFAULT_SERVICE_TIME)).toBeCloseTo(1, 1);
    expect(tailCapacityPerSec(32, DEFAULT_SERVICE_TIME)).toBeCloseTo(32_000 / 24.185, 0);
  });

  it('percentiles by nearest rank', () => {
    const sorted = Float64Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(percentileOfSorted(sorted, 50)).toBe(5);
    expect(percentileOfSorted(sorted, 99)).toBe(10);
    expect(percentileOfSorted(sorted, 10)).toBe(1);
    expect(percentileOfSorted(sorted, 0)).toBe(1);
    expect(percentileOfSorted(new Float64Array(0), 50)).toBeNaN();
  });
});

describe('input validation', () => {
  it('refuses bad options, naming them', () => {
    const bad: [object, RegExp][] = [
      [{ requests: 0 }, /requests must be an integer from 1/],
      [{ runs: 1.5 }, /runs must be an integer/],
      [{ workers: 0 }, /workers must be/],
      [{ loads: [] }, /loads must hold 1 to 100 values/],
      [{ loads: [0] }, /a load must be above 0/],
      [{ loads: [11] }, /at most 10/],
      [{ variants: ['wobbly'] }, /unknown variant "wobbly"/],
      [{ variants: [] }, /at least one variant/],
      [{ delayMs: -1 }, /delayMs must be a number >= 0/],
      [{ hedgeRatio: 2 }, /hedgeRatio must be from 0 to 1/],
      [{ hedgeBurst: 0.5 }, /hedgeBurst must be from 1/],
      [{ windowFeed: 'loser' }, /unknown window feed "loser"/],
      [{ service: { ...DEFAULT_SERVICE_TIME, slowShare: 1 } }, /service: the slow share/],
      [{ service: { ...DEFAULT_SERVICE_TIME, slowMinMs: 5, slowMaxMs: 1 } }, /service: the slow mode/],
      [{ latency: { meanMs: Number.NaN, sdMs: 0 } }, /latency.meanMs/],
      [{ requests: 1_000_000, runs: 10 }, /requests \/ runs: 10000000 latencies pooled per point/],
      [
        { requests: 100_000, runs: 50, loads: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.1] },
        /in all/,
      ],
    ];
    for (const [options, message] of bad) expect(() => resolveTail({ seed: 1, ...options })).toThrow(message);
    expect(resolveTail({ seed: 1 }).windowFeed).toBe('request');
  });

  it('parses load specs', () => {
    expect(parseLoads('0.1:0.9:0.1')).toEqual([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]);
    expect(parseLoads('0.5,0.9')).toEqual([0.5, 0.9]);
    expect(parseLoads('0.7')).toEqual([0.7]);
    expect(() => parseLoads('0.1:10:0.0001')).toThrow(/at most 100 loads/);
    expect(() => parseLoads('0.5:0.1:0.1')).toThrow(/must not end before/);
    expect(() => parseLoads('0,0.5')).toThrow(/above 0/);
  });

  const capture = () => {
    let out = '';
    let err = '';
    return {
      io: {
        stdout: { write: (t: string) => (out += t) },
        stderr: { isTTY: false, write: (t: string) => (err += t) },
      },
      text: () => ({ out, err }),
    };
  };
  const bad: [string[], RegExp][] = [
    [['--loads', '0'], /--loads takes numbers above 0/],
    [['--loads', '0.1:0.2'], /--loads range needs three parts/],
    [['--variants', 'fixed,wobbly'], /--variants: unknown name "wobbly"/],
    [['--requests', '0'], /--requests must be a positive integer/],
    [['--requests', '2000000'], /--requests must be a positive integer <= 1000000/],
    [['--runs', '1001'], /--runs must be a positive integer <= 1000/],
    [['--workers=-3'], /--workers must be a positive integer/],
    [['--delay=-1'], /--delay must be a number >= 0/],
    [['--hedge-ratio', '1.5'], /--hedge-ratio must be a number >= 0 and <= 1/],
    [['--hedge-burst', '0'], /--hedge-burst must be a number >= 1/],
    [['--window', 'losers'], /--window must be one of winner, request/],
    [['--slow', '1'], /--slow must be a number >= 0 and <= 0.999999/],
    [['--slow-ms', '100'], /--slow-ms must be MIN:MAX/],
    [['--slow-ms', '200:100'], /--slow-ms must not end before it starts/],
    [['--fast-sigma', '4'], /--fast-sigma must be a number >= 0 and <= 3/],
    [['--fast-median', '0'], /--fast-median must be a positive number/],
    [['--requests', '1000000', '--runs', '10'], /--requests \/ --runs: 10000000 latencies pooled/],
    [['--base', '10'], /Unknown option '--base'/],
  ];
  for (const [args, message] of bad) {
    it(`tail exits 2 naming the flag for: ${args.join(' ')}`, async () => {
      const c = capture();
      expect(await runCli(['tail', ...args], c.io)).toBe(2);
      expect(c.text().err).toMatch(message);
      expect(c.text().err).toContain('jitterbug-sim tail --help');
    });
  }

  it('prints help, and runs with a table, CSV, JSON and four charts', async () => {
    const help = capture();
    expect(await runCli(['tail', '--help'], help.io)).toBe(0);
    expect(help.text().out).toContain('Examples:');
    const c = capture();
    const out = join(dir, 'charts');
    const csv = join(dir, 'tail.csv');
    const json = join(dir, 'tail.json');
    const args = ['tail', '--seed', '2', '--loads', '0.3,0.6', '--requests', '2000', '--runs', '1'];
    expect(await runCli([...args, '--out', out, '--csv', csv, '--json', json], c.io)).toBe(0);
    expect(c.text().out).toMatch(/fixed\+budget\s+0\.30/);
    expect(c.text().out).toContain('seed 2');
    expect(readFileSync(csv, 'utf8').split('\n')).toHaveLength(2 + 5 * 2);
    expect(JSON.parse(readFileSync(json, 'utf8')).points).toHaveLength(10);
    for (const file of ['tail-p50.svg', 'tail-p99.svg', 'tail-p999.svg', 'tail-extra.svg'])
      expect(readFileSync(join(out, file), 'utf8').startsWith('<svg')).toBe(true);
    expect(TAIL_LIMITS.pooled).toBeGreaterThanOrEqual(40_000);
  });
});
