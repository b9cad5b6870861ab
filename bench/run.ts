/**
 * `pnpm bench` / `make bench`: the whole benchmark. Starts the loopback server in its own process,
 * runs the client rounds (raw / jitterbug / peer per client, each in a fresh process), the core
 * micro-benchmarks and the memory run, prints the tables and writes bench/RESULTS.md.
 * Not part of `make test`.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import {
  notRunList,
  overheadTable,
  rawCpu,
  requestCountsTable,
  retryTable,
  successCpuTable,
} from './analyse.ts';
import type { ClientName } from './clients/types.ts';
import type { CoreResult } from './core.ts';
import { coreTable, coreVerdict } from './core-report.ts';
import { interpretation } from './interpret.ts';
import { LAYER_NOTE, layerTable, runLayers } from './layer-runs.ts';
import type { MemoryOutput } from './memory.ts';
import { memoryTable, memoryVerdict } from './memory-report.ts';
import { runRounds } from './pairs.ts';
import { CONCURRENCY, MEMORY_REQUESTS, ROUNDS, SERVER_WARMUP } from './plan.ts';
import { benchFile, runChild, STEADY_STATE_FLAGS, startServer } from './spawn.ts';

const CLIENT_NAMES: readonly ClientName[] = ['undici-request', 'undici-fetch', 'axios', 'ky'];

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
  log(`server warm-up (${SERVER_WARMUP.toLocaleString('en')} requests)`);
  await runChild(
    'client.ts',
    [
      JSON.stringify({
        client: 'undici-request',
        kind: 'raw',
        origin: server.origin,
        concurrency: CONCURRENCY,
        warmup: SERVER_WARMUP,
        requests: 1,
        retryWarmup: 0,
        retryRequests: 0,
      }),
    ],
    STEADY_STATE_FLAGS,
  );
  const rounds = await runRounds(CLIENT_NAMES, server.origin, log);
  log('undici: the interceptor layer timed inside the process');
  const layers = await runLayers(server.origin);
  log('core micro-benchmarks');
  const core = (await runChild<{ results: CoreResult[] }>('core.ts', [])).results;
  log(`memory run (${MEMORY_REQUESTS.toLocaleString('en')} requests)`);
  const memory = await runChild<MemoryOutput>('memory.ts', [
    JSON.stringify({ client: 'undici-request', origin: server.origin, requests: MEMORY_REQUESTS }),
  ]);
  log('simulator: the full default OCC sweep, 3 times');
  const sweep = await runChild<SweepOutput>('../packages/simulator/bench/occ-sweep.ts', ['3', '--json']);
  const served = await server.stats();
  const notRun = notRunList(rounds);
  const sections = [
    `# jitterbug benchmarks\n`,
    `Written by \`make bench\` (\`bench/run.ts\`); every number below comes from that one run.\n`,
    `- Node ${machine.node}, ${machine.cpus} CPUs (${machine.model}), load average at start ${machine.load}`,
    `- ${machine.date}; the whole run took ${elapsed()}; the server answered ${served.requests.toLocaleString('en')} requests`,
    `- Loopback \`node:http\` server in its own process (keep-alive, ${'`'}/ok${'`'}: 200 with a 50-byte JSON body; ${'`'}/flaky?id=…${'`'}: 503 then 200)`,
    `- Server and client processes run with V8's tier-up thresholds lowered to 50 (Maglev) and 300 (TurboFan) calls, the same for every variant (\`STEADY_STATE_FLAGS\` in \`bench/spawn.ts\`): the warm-up then reaches the JIT's steady state, which a process with the default thresholds reaches only after 15,000–20,000 requests. The fresh server is warmed with ${SERVER_WARMUP.toLocaleString('en')} requests first.`,
    `- Client processes: ${ROUNDS} rounds; in each, every client runs its raw, jitterbug and peer variant in three fresh processes side by side (started together), ${CONCURRENCY} requests in flight each; CPU = \`process.cpuUsage()\` (user + sys) over the measured phase only, after a warm-up and a forced GC. Ratios are taken per round (processes that ran at the same time, under the same machine load), then the median and spread over the rounds.`,
    `- Equivalent retry settings everywhere: 3 attempts in all, zero delay, retried statuses 408/429/500/502/503/504 (see \`bench/config.ts\` and \`bench/clients/\`).\n`,
    `## Requests per process\n\n${requestCountsTable(rounds)}\n`,
    `## 1. Success path: CPU per request (median over rounds)\n\n${successCpuTable(rounds)}\n`,
    `## 2. Success-path overhead, jitterbug and the peers side by side\n\nPer-round ratio of CPU per request to the raw client's: median (IQR; min, max).\n\n${overheadTable(rounds)}\n`,
    `## 2b. undici: the interceptor's own cost, timed inside the process\n\n${LAYER_NOTE}\n\n${layerTable(layers, rawCpu(rounds))}\n`,
    `## 3. Retry path: CPU per retried request (503, then 200; zero delay)\n\nOne retried request = two HTTP exchanges. "Extra per retry": CPU per retried request minus CPU per successful request in the same process.\n\n${retryTable(rounds)}\n`,
    `## 4. Core: per decision and per delay computation (tinybench)\n\n${coreTable(core)}\n\n${coreVerdict(core)}\n`,
    `## 5. Memory: ${MEMORY_REQUESTS.toLocaleString('en')} requests, 20 % retried (undici \`request()\` with \`retryInterceptor\`)\n\n${memoryTable(memory)}\n\n${memoryVerdict(memory).text}\n`,
    `## 6. Simulator: the full default \`occ\` sweep

${sweepSection(sweep)}
`,
    notRun.length ? `## Not run\n\n${notRun.map((l) => `- ${l}`).join('\n')}\n` : '',
    `## Interpretation\n\n${interpretation(rounds, core, memory, layers)}\n`,
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
