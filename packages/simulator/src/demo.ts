/** A quick tour for the workspace demo: a small OCC sweep, one storm run and a tail sweep, charts included. */
import { join } from 'node:path';
import { occCharts, stormCharts, tailCharts, writeCharts } from './charts.ts';
import { runOcc } from './occ.ts';
import { formatTable } from './output.ts';
import { runStorm } from './storm.ts';
import { runTail, type TailPoint } from './tail.ts';

/** What {@link runDemo} produced. */
export interface DemoResult {
  /** Paths of the SVG charts written. */
  readonly files: readonly string[];
  /** A short text summary (two small tables and a line on hedging). */
  readonly table: string;
}

/**
 * Runs a quick OCC sweep (10 runs per point, 20–190 clients), a storm run with the default policies
 * and a small tail sweep (no hedging, a fixed delay with and without the hedge budget, loads 0.3 to
 * 0.9), writes the charts to `outDir`, and returns their paths and a short text. Seeded, so the
 * output is the same every time.
 *
 * @param outDir - directory for the SVG files (created if needed).
 * @param seed - base seed. Default 1.
 */
export const runDemo = async (outDir: string, seed = 1): Promise<DemoResult> => {
  const occ = runOcc({ seed, runs: 10, clients: [20, 50, 100, 150, 190] });
  const storm = runStorm({ seed, runs: 3 });
  const tail = runTail({
    seed,
    runs: 1,
    loads: [0.3, 0.5, 0.7, 0.9],
    variants: ['none', 'fixed', 'fixed+budget'],
  });
  const files = [
    ...(await writeCharts(outDir, await occCharts(occ))),
    ...(await writeCharts(outDir, await stormCharts(storm))),
    ...(await writeCharts(outDir, await tailCharts(tail))),
  ];
  const point = (variant: string, load: number): TailPoint =>
    tail.points.find((p) => p.variant === variant && p.load === load)!;
  const pct = (share: number): string => `${(100 * share).toFixed(1)}%`;
  const at100 = occ.points.filter((p) => p.clients === 100);
  const table = [
    'OCC contention, 100 clients (mean of 10 runs):',
    formatTable(
      ['strategy', 'calls', 'time ms'],
      at100.map((p) => [p.strategy, Math.round(p.calls.mean), Math.round(p.timeMs.mean)]),
    ),
    '',
    `Retry storm, ${storm.settings.ratePerSec} req/s, capacity ${storm.settings.capacityPerSec}/s, outage ${storm.settings.outageStartSec}-${storm.settings.outageEndSec} s (mean of 3 runs):`,
    formatTable(
      ['policy', 'attempts/request', 'during outage', 'failed', 'recovery', 'p99 latency'],
      storm.policies.map((p) => [
        p.policy,
        p.amplification.mean.toFixed(2),
        p.outageAmplification.mean.toFixed(2),
        `${(100 * p.failedShare.mean).toFixed(1)}%`,
        // The throttle's and the pacer's cost show here: clients that keep refusing or holding
        // locally after the outage, and requests that waited out hold after hold.
        p.notRecovered === p.runs
          ? 'never'
          : `${(p.recoveryMs.mean / 1000).toFixed(1)} s${p.notRecovered > 0 ? ` (${p.notRecovered} never)` : ''}`,
        `${(p.latencyP99Ms.mean / 1000).toFixed(2)} s`,
      ]),
    ),
    '',
    `Hedging against a slow tail (${100 * tail.settings.service.slowShare}% of requests take ${tail.settings.service.slowMinMs}-${tail.settings.service.slowMaxMs} ms, ${tail.settings.workers} workers, ${tail.settings.requests} requests per point): ` +
      `at load 0.5 a ${tail.settings.delayMs} ms hedge within the budget cuts p99 from ${Math.round(point('none', 0.5).p99Ms)} to ${point('fixed+budget', 0.5).p99Ms.toFixed(0)} ms ` +
      `for ${pct(point('fixed+budget', 0.5).extraLoad)} more requests; at 0.9 the budget holds the extra at ${pct(point('fixed+budget', 0.9).extraLoad)} ` +
      `where hedging without it adds ${pct(point('fixed', 0.9).extraLoad)} and the server collapses (p50 ${(point('fixed', 0.9).p50Ms / 1000).toFixed(1)} s).`,
  ].join('\n');
  return { files, table };
};

/** The default output directory of the demo, relative to the working directory. */
export const DEMO_OUT_DIR = join('out', 'simulator');
