/**
 * `make bench`: the sessions and the hedge tail, then, once nothing is timed, the ratchet (valgrind
 * fills the CPUs; counts do not depend on load) beside the memory runs and the sizes. Writes
 * bench/RESULTS.md; exits 1 when the ratchet fails. `BENCH_SCALE=0.4`: a quick try.
 */
import { writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { SESSION_CLIENTS } from './clients.ts';
import { memoryTable, runMemory } from './memory.ts';
import { runRatchet } from './ratchet.ts';
import { runSession, SESSIONS, type Session, sessionTable } from './sessions.ts';
import { measureSizes, sizesTable } from './sizes.ts';
import { benchFile, LAYOUT_FIXED, MEASURED_FLAGS, PINNING, runChild, startServer } from './spawn.ts';

const started = performance.now();
const seconds = (): string => `${((performance.now() - started) / 1000).toFixed(0)} s`;
const log = (line: string): void => console.error(`[bench ${seconds()}] ${line}`);
const scale = Number(process.env['BENCH_SCALE'] ?? 1);
const load = loadavg()
  .map((l) => l.toFixed(2))
  .join(' ');
log(`Node ${process.version}, ${availableParallelism()} CPUs, load ${load}`);

const server = await startServer();
const sessions: Session[][] = SESSION_CLIENTS.map(() => []);
// Round robin, so that what drifts on the machine meets every client alike.
for (let s = 1; s <= SESSIONS; s++) {
  for (const [i, client] of SESSION_CLIENTS.entries()) {
    sessions[i]!.push(await runSession(client, server.origin));
    log(`${client}: session ${s} of ${SESSIONS}`);
  }
}
const fail = (e: Error): string => `Not run: ${e.message}`;
log('hedged requests against a slow tail');
const hedge = await runChild<{ note: string; table: string }>('hedge-tail.ts', ['--json']).then(
  (h) => `${h.note}\n\n${h.table}`,
  fail,
);
log('instruction counts (valgrind), beside the memory runs and the bundle sizes');
const [ratchet, memory, sizes] = await Promise.all([
  runRatchet().catch((e: Error) => ({ ok: false, report: `**The ratchet fails:** ${fail(e)}` })),
  runMemory(server.origin, Math.round(40_000 * scale)),
  measureSizes(),
]);
const served = await server.served();
await server.stop();

const report = `# jitterbug benchmarks

Written by \`make bench\` (\`bench/run.ts\`) in one run; \`bench/NOTES.md\` says what each part is for.

- Node ${process.version}, ${availableParallelism()} CPUs (${cpus()[0]?.model ?? '?'}), load average ${load} at the start; ${new Date().toISOString()}; the run took ${seconds()}${scale === 1 ? '' : ` at \`BENCH_SCALE=${scale}\``}.
- A loopback \`node:http\` server in its own process${PINNING ? ` on CPU ${PINNING.server}, the clients on CPU ${PINNING.client}` : ''}, keep-alive, a 46-byte JSON body; it answered ${served.toLocaleString('en')} requests.
- Measured processes: \`${MEASURED_FLAGS.join(' ')}\`${LAYOUT_FIXED ? ', address-space randomisation off' : ''}. Every variant: 3 attempts, zero delay, the same retried statuses (\`bench/clients.ts\`).

## 1. Overhead over loopback, 50-byte responses

${SESSIONS} sessions per client, each of every variant twice, taking turns (\`bench/sessions.ts\`). µs of CPU per request outside GC pauses + in them; ratios of CPU outside the pauses, the median over all cycles with a 95 % bootstrap interval. A/A: a process against its twin, the method's own noise; ◆: wider than the client's widest A/A interval.

${sessionTable(sessions)}

## 2. Instruction-count ratchet (callgrind)

${ratchet.report}

## 3. Memory: every client with jitterbug, 20 % of requests retried

Heap and RSS after forced collections; "flat": under 0.5 MB more heap over the second half, under 2 MB in all.

${memoryTable(memory)}

## 4. Bundle sizes (browser; esbuild, minified, gzip -9; the HTTP client external)

${sizesTable(sizes)}

## 5. Hedged requests against a slow tail (loopback)

${hedge}
`;
console.log(report);
writeFileSync(benchFile('RESULTS.md'), report);
log(`wrote bench/RESULTS.md${ratchet.ok ? '' : '; the ratchet failed'}`);
process.exitCode = ratchet.ok ? 0 : 1;
