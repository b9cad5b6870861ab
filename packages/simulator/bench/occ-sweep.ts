/**
 * Times the full default OCC sweep: 19 client counts × 5 strategies × 100 runs.
 *
 *   node --conditions=@jitterbug/source packages/simulator/bench/occ-sweep.ts [repeats] [--json]
 *
 * Each repeat's wall time and the CPU time this process spent in it (user + system): on a shared
 * machine the wall time also counts the time other jobs held the cores, the CPU time does not.
 * `--json` adds a last line of JSON.
 */
import { OCC_DEFAULTS, runOcc } from '../src/index.ts';

const args = process.argv.slice(2);
const json = args.includes('--json');
const repeats = Number(args.find((a) => a !== '--json') ?? 3);
const times: number[] = [];
const cpuTimes: number[] = [];
let writes = 0;
for (let i = 0; i < repeats; i++) {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const result = runOcc({ seed: 1 + i, histogramClients: 0 });
  const used = process.cpuUsage(cpu);
  times.push(performance.now() - started);
  cpuTimes.push((used.user + used.system) / 1000);
  writes = result.points.reduce((sum, p) => sum + p.calls.mean * p.runs, 0);
}
const runs = OCC_DEFAULTS.clients.length * 5 * OCC_DEFAULTS.runs;
const best = Math.min(...times);
const bestCpu = Math.min(...cpuTimes);
const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
console.log(
  `occ default sweep: ${OCC_DEFAULTS.clients.length} client counts × 5 strategies × ${OCC_DEFAULTS.runs} runs = ${runs} runs, ` +
    `${(writes / 1e6).toFixed(1)} M writes simulated`,
);
console.log(
  `  wall ${times.map(seconds).join(', ')} · best ${seconds(best)} · ` +
    `${((best * 1e6) / writes).toFixed(0)} ns per write (Node ${process.version})`,
);
console.log(
  `  cpu  ${cpuTimes.map(seconds).join(', ')} · best ${seconds(bestCpu)} · ` +
    `${((bestCpu * 1e6) / writes).toFixed(0)} ns per write`,
);
if (json) {
  console.log(
    JSON.stringify({
      runs,
      writes,
      times,
      cpuTimes,
      bestMs: best,
      bestCpuMs: bestCpu,
      nsPerWrite: (best * 1e6) / writes,
    }),
  );
}
