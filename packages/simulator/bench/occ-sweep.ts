/**
 * Times the full default OCC sweep: 19 client counts × 5 strategies × 100 runs.
 *
 *   node --conditions=@jitterbug/source packages/simulator/bench/occ-sweep.ts [repeats] [--json]
 *
 * `make bench` runs it with `--json` (a last line of JSON for bench/RESULTS.md).
 */
import { OCC_DEFAULTS, runOcc } from '../src/index.ts';

const args = process.argv.slice(2);
const json = args.includes('--json');
const repeats = Number(args.find((a) => a !== '--json') ?? 3);
const times: number[] = [];
let writes = 0;
for (let i = 0; i < repeats; i++) {
  const started = performance.now();
  const result = runOcc({ seed: 1 + i, histogramClients: 0 });
  times.push(performance.now() - started);
  writes = result.points.reduce((sum, p) => sum + p.calls.mean * p.runs, 0);
}
const runs = OCC_DEFAULTS.clients.length * 5 * OCC_DEFAULTS.runs;
const best = Math.min(...times);
console.log(
  `occ default sweep: ${OCC_DEFAULTS.clients.length} client counts × 5 strategies × ${OCC_DEFAULTS.runs} runs = ${runs} runs, ` +
    `${(writes / 1e6).toFixed(1)} M writes simulated`,
);
console.log(
  `  ${times.map((t) => `${(t / 1000).toFixed(2)} s`).join(', ')} · best ${(best / 1000).toFixed(2)} s · ` +
    `${((best * 1e6) / writes).toFixed(0)} ns per write (Node ${process.version})`,
);
if (json) {
  console.log(JSON.stringify({ runs, writes, times, bestMs: best, nsPerWrite: (best * 1e6) / writes }));
}
