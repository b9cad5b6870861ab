/**
 * `pnpm bench` / `make bench`: the whole benchmark. Starts the loopback server in its own process,
 * runs the client sessions (`sessions.ts`), the undici layer timings, the CPU profiles of each
 * client, the core micro-benchmarks, the memory runs, the simulator sweep, hedging against a slow
 * tail (`hedge-tail.ts`) and the bundle sizes, prints the tables and writes bench/RESULTS.md. With
 * `BENCH_COUNTS=1`, last (they load both CPUs), the instruction counts under valgrind (`counts.ts`):
 * they take about as long again as all the rest, which the ten minutes of `make bench` cannot hold,
 * so they are asked for. Not part of `make test`.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { cpuUs } from './analyse.ts';
import { ATTRIBUTION_NOTE, attributionTable, runAttribution } from './attribution.ts';
import { BODIES, SIZES } from './bodies.ts';
import type { ClientName } from './clients/types.ts';
import type { CoreResult } from './core.ts';
import { coreTable, coreVerdict } from './core-report.ts';
import { type CountResults, runCounts } from './counts.ts';
import { countsSection } from './counts-report.ts';
import { runSession } from './interleave.ts';
import { interpretation } from './interpret.ts';
import { LAYER_NOTE, layerTable, runLayers } from './layer-runs.ts';
import type { MemoryOutput } from './memory.ts';
import { memorySummaryTable, memoryVerdict } from './memory-report.ts';
import { methodText } from './method.ts';
import { MEMORY_REQUESTS, SCALE, SERVER_WARMUP } from './plan.ts';
import { runSessions } from './sessions.ts';
import { measureSizes, SIZES_NOTE, sizesTable } from './sizes.ts';
import { benchFile, LAYOUT_FIXED, MEASURED_FLAGS, PINNING, runChild, startServer } from './spawn.ts';
import { cpuTable, curveTable, notRunList, overheadTable, retryTable } from './tables.ts';

const CLIENT_NAMES: readonly ClientName[] = ['undici-request', 'undici-fetch', 'axios', 'ky', 'fetch'];

/** What `packages/simulator/bench/occ-sweep.ts --json` prints. */
interface SweepOutput {
  readonly runs: number;
  readonly writes: number;
  readonly times: readonly number[];
  readonly bestMs: number;
  readonly nsPerWrite: number;
}

const sweepSection = (s: SweepOutput): string =>
  `19 client counts × 5 strategies × 100 runs = ${s.runs.toLocaleString('en')} simulated runs ` +
  `(${(s.writes / 1e6).toFixed(1)} M writes), timed 3 times in one process: ` +
  `${s.times.map((t) => `${(t / 1000).toFixed(2)} s`).join(', ')}; best ${(s.bestMs / 1000).toFixed(2)} s, ` +
  `${s.nsPerWrite.toFixed(0)} ns per simulated write. The issue asks for "a few seconds".`;
const started = performance.now();
const elapsed = (): string => `${((performance.now() - started) / 1000).toFixed(0)} s`;
const log = (line: string): void => console.error(`[bench ${elapsed()}] ${line}`);

const machine = {
  node: process.version,
  cpus: availableParallelism(),
  model: cpus()[0]?.model ?? 'unknown',
  date: new Date().toISOString(),
  load: loadavg()
    .map((l) => l.toFixed(2))
    .join(' '),
};
log(`Node ${machine.node}, ${machine.cpus} CPUs (${machine.model}), load ${machine.load}`);

const server = await startServer();
let report: string;
try {
  log(`server warm-up (${SERVER_WARMUP.toLocaleString('en')} requests and every response size)`);
  await runSession('undici-request', server.origin, {
    slots: ['raw'],
    concurrency: 16,
    warmup: {
      '50B': SERVER_WARMUP,
      '4KB': Math.round(SERVER_WARMUP / 4),
      '64KB': Math.round(SERVER_WARMUP / 20),
    },
    settleCycles: 0,
    cycles: 0,
    blocks: {},
  });
  const sessions = await runSessions(CLIENT_NAMES, server.origin, log);
  // Every block of every session, for a second look at what the tables summarise.
  mkdirSync(benchFile('.tmp'), { recursive: true });
  writeFileSync(benchFile('.tmp/sessions.json'), JSON.stringify(sessions));
  log('undici: the interceptor layer timed inside the process');
  const layers = await runLayers(server.origin);
  log('CPU profiles of each client (jitterbug and the peer)');
  const attribution = await runAttribution(CLIENT_NAMES, server.origin);
  log('core micro-benchmarks');
  const core = (await runChild<{ results: CoreResult[] }>('core.ts', [])).results;
  const memory: MemoryOutput[] = [];
  for (const client of CLIENT_NAMES) {
    log(`memory run: ${client} (${MEMORY_REQUESTS[client].toLocaleString('en')} requests)`);
    try {
      memory.push(
        await runChild<MemoryOutput>(
          'memory.ts',
          [JSON.stringify({ client, origin: server.origin, requests: MEMORY_REQUESTS[client] })],
          [],
          'client',
        ),
      );
    } catch (error) {
      log(`memory run ${client} failed: ${(error as Error).message}`);
    }
  }
  log('simulator: the full default OCC sweep, 3 times');
  const sweep = await runChild<SweepOutput>('../packages/simulator/bench/occ-sweep.ts', ['3', '--json']);
  log('hedged requests against a loopback server with a slow tail');
  const hedging = await runChild<{ note: string; table: string }>('hedge-tail.ts', ['--json']);
  log('bundle sizes');
  const sizes = await measureSizes();
  const served = await server.stats();
  // Last, once nothing is timed any more: valgrind keeps both CPUs busy, and the counts do not
  // depend on load. Loopback requests they send are not in the server's count above.
  let counts: CountResults | undefined;
  let countsNote =
    'Not run: `BENCH_COUNTS=1 make bench` runs them (about eight more minutes), `node --conditions=@jitterbug/source bench/counts.ts` runs them alone.';
  if (process.env['BENCH_COUNTS'] === '1') {
    log('instruction counts (callgrind): every client in memory, the raw clients over loopback');
    try {
      counts = await runCounts(server.origin, log);
    } catch (error) {
      countsNote = `Not run: ${(error as Error).message}`;
    }
  }
  const notRun = notRunList(sessions);
  const rawCpu = Object.fromEntries(sessions.map((cs) => [cs.client, cpuUs(cs, '50B', 'raw')]));
  const bodySizes = SIZES.map((s) => `${s}: ${BODIES[s].length.toLocaleString('en')} bytes`).join(', ');
  const sections = [
    `# jitterbug benchmarks\n`,
    `Written by \`make bench\` (\`bench/run.ts\`); every number below comes from that one run.\n`,
    SCALE === 1
      ? ''
      : `**A run at \`BENCH_SCALE=${SCALE}\` (fewer cycles, a smaller budget), made to try the method out: its figures are not the benchmark's.**\n`,
    // What the person running it knows about the run (`BENCH_NOTE`), e.g. that the machine was busy.
    process.env['BENCH_NOTE'] ? `**${process.env['BENCH_NOTE']}**\n` : '',
    `- Node ${machine.node}, ${machine.cpus} CPUs (${machine.model}), load average at start ${machine.load}`,
    `- ${machine.date}; the whole run took ${elapsed()}; the server answered ${served.requests.toLocaleString('en')} requests`,
    `- Loopback \`node:http\` server in its own process${PINNING ? ` on CPU ${PINNING.server}, client processes on CPU ${PINNING.client} (\`taskset\`)` : ' (not pinned: one CPU or no taskset)'}; keep-alive; JSON bodies (${bodySizes}); \`/flaky?id=…\`: 503, then 200`,
    `- Equivalent retry settings everywhere: 3 attempts in all, zero delay, retried statuses 408/429/500/502/503/504 (see \`bench/config.ts\` and \`bench/clients/\`).`,
    `- Node flags of every measured process: \`${MEASURED_FLAGS.join(' ')}\`${LAYOUT_FIXED ? ', address-space randomisation off (`setarch -R`)' : ''} (\`bench/spawn.ts\` says why).\n`,
    `## How the clients are measured\n\n${methodText(sessions)}\n`,
    `## 1. Success path: CPU per request\n\nµs per request: the median block's CPU outside garbage-collection pauses, and the GC pauses per request (all pauses over all requests) beside it.\n\n${cpuTable(sessions)}\n`,
    `## 2. Success path, 50-byte response: jitterbug, the peers and the A/A pairs\n\nRatios of CPU per request outside GC pauses: median over all cycles (95 % interval). ◆: larger than the A/A spread, a finding. Targets: jitterbug ≤ raw + 2 %, jitterbug ≤ peer; "met within the A/A spread" means above the target by no more than the spread.\n\n${overheadTable(sessions)}\n`,
    `### 2a. The overhead by response size\n\n${curveTable(sessions)}\n`,
    `### 2b. undici: the interceptor's own cost, timed inside the process\n\n${LAYER_NOTE}\n\n${layerTable(layers, rawCpu)}\n`,
    `### 2c. jitterbug's own code in each client, from CPU profiles\n\n${ATTRIBUTION_NOTE}\n\n${attributionTable(attribution, sessions)}\n`,
    `## 3. Retry path: CPU per retried request (503, then 200; zero delay)\n\nOne retried request = two HTTP exchanges, measured in sessions of their own (jitterbug and the peer twice). "Extra per retry": CPU per retried request minus CPU per 50-byte success, GC pauses included.\n\n${retryTable(sessions)}\n`,
    `## 4. Core: per decision and per delay computation (tinybench)\n\n${coreTable(core)}\n\n${coreVerdict(core)}\n`,
    `## 5. Memory: every client with jitterbug, 20 % of requests retried\n\nHeap and RSS after a forced GC, after 5,000 warm-up requests, half-way and at the end (\`bench/memory.ts\`); "left after close": sockets or timers still open once the client is closed.\n\n${memorySummaryTable(memory)}\n\n${memory.map((m) => `- ${m.client}: ${memoryVerdict(m).text}`).join('\n')}\n`,
    `## 6. Simulator: the full default \`occ\` sweep\n\n${sweepSection(sweep)}\n`,
    `## 7. Bundle sizes (browser)\n\n${SIZES_NOTE}\n\n${sizesTable(sizes)}\n`,
    `## 8. Hedged requests against a slow tail (loopback)\n\n${hedging.note}\n\n${hedging.table}\n`,
    `## 9. Instruction counts (callgrind): the success path, the retry path and the targets\n\n${counts ? countsSection(counts) : countsNote}\n`,
    notRun.length ? `## Not run\n\n${notRun.map((l) => `- ${l}`).join('\n')}\n` : '',
    `## Interpretation\n\n${interpretation(sessions, layers, attribution, core, memory, counts)}\n`,
  ];
  const profiling = benchFile('profiling.md');
  if (existsSync(profiling)) sections.push(readFileSync(profiling, 'utf8'));
  report = sections.filter(Boolean).join('\n');
} finally {
  await server.stop();
}
console.log(report);
writeFileSync(benchFile('RESULTS.md'), report);
log(`wrote bench/RESULTS.md`);
