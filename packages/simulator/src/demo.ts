/** A quick tour for the workspace demo: a small OCC sweep and one storm run, charts included. */
import { join } from 'node:path';
import { occCharts, stormCharts, writeCharts } from './charts.ts';
import { runOcc } from './occ.ts';
import { formatTable } from './output.ts';
import { runStorm } from './storm.ts';

/** What {@link runDemo} produced. */
export interface DemoResult {
  /** Paths of the SVG charts written. */
  readonly files: readonly string[];
  /** A short text summary (two small tables). */
  readonly table: string;
}

/**
 * Runs a quick OCC sweep (10 runs per point, 20–190 clients) and a storm run with the default
 * policies, writes the charts to `outDir`, and returns their paths and a short table. Seeded, so
 * the output is the same every time.
 *
 * @param outDir - directory for the SVG files (created if needed).
 * @param seed - base seed. Default 1.
 */
export const runDemo = async (outDir: string, seed = 1): Promise<DemoResult> => {
  const occ = runOcc({ seed, runs: 10, clients: [20, 50, 100, 150, 190] });
  const storm = runStorm({ seed, runs: 3 });
  const files = [
    ...(await writeCharts(outDir, await occCharts(occ))),
    ...(await writeCharts(outDir, await stormCharts(storm))),
  ];
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
      ['policy', 'attempts/request', 'during outage', 'failed', 'recovery'],
      storm.policies.map((p) => [
        p.policy,
        p.amplification.mean.toFixed(2),
        p.outageAmplification.mean.toFixed(2),
        `${(100 * p.failedShare.mean).toFixed(1)}%`,
        // The throttle's cost shows here: clients that keep refusing locally after the outage.
        p.notRecovered === p.runs
          ? 'never'
          : `${(p.recoveryMs.mean / 1000).toFixed(1)} s${p.notRecovered > 0 ? ` (${p.notRecovered} never)` : ''}`,
      ]),
    ),
  ].join('\n');
  return { files, table };
};

/** The default output directory of the demo, relative to the working directory. */
export const DEMO_OUT_DIR = join('out', 'simulator');
