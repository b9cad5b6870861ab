/**
 * Memory run (a child process with `--expose-gc`): one client with jitterbug sends `requests`
 * requests, 16 in flight, every fifth one to `/flaky` (503 then 200: retried once). Heap and RSS are
 * read after a forced GC after a warm-up ("before"), half-way and at the end; then the client is
 * closed and the process's active resources are listed: no socket or timer may be left.
 * Argument: JSON `{ client, origin, requests }`. Prints one JSON line.
 */
import { CLIENTS } from './clients/index.ts';
import type { ClientName, VariantKind } from './clients/types.ts';
import { runRequests } from './load.ts';

export interface MemorySample {
  readonly label: string;
  readonly requests: number;
  readonly heapUsed: number;
  readonly rss: number;
  readonly external: number;
}

export interface MemoryOutput {
  readonly client: ClientName;
  readonly kind: VariantKind;
  readonly samples: readonly MemorySample[];
  readonly failures: number;
  /** `process.getActiveResourcesInfo()` right after the run, before closing the client. */
  readonly resourcesOpen: readonly string[];
  /** The same after closing the client. */
  readonly resourcesAfterClose: readonly string[];
  readonly wallMs: number;
}

const {
  client: name,
  kind = 'jitterbug',
  origin,
  requests,
} = JSON.parse(process.argv[2] ?? '{}') as {
  client: ClientName;
  kind?: VariantKind;
  origin: string;
  requests: number;
};
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

const settle = async (): Promise<void> => {
  await new Promise((resolve) => setImmediate(resolve));
  for (let i = 0; i < 3; i++) gc();
};
const samples: MemorySample[] = [];
let sent = 0;
// The least heap over three settles: one forced GC's heap moved by ±1.5 MB from sample to sample in
// a 400,000-request ky run that was flat overall, enough to call half a run "NOT flat".
const sample = async (label: string): Promise<void> => {
  let m = process.memoryUsage();
  for (let i = 0; i < 3; i++) {
    await settle();
    const now = process.memoryUsage();
    if (i === 0 || now.heapUsed < m.heapUsed) m = now;
  }
  samples.push({ label, requests: sent, heapUsed: m.heapUsed, rss: m.rss, external: m.external });
};

const client = await CLIENTS[name](kind, origin);
const pathOf = (i: number): string => (i % 5 === 0 ? `/flaky?id=${process.pid}-${sent + i}` : '/ok');
const t0 = performance.now();
let failures = await runRequests(client, 5000, 16, pathOf);
sent += 5000;
await sample('after 5,000 warm-up requests');
const half = Math.floor(requests / 2);
failures += await runRequests(client, half, 16, pathOf);
sent += half;
await sample('half-way');
failures += await runRequests(client, requests - half, 16, pathOf);
sent += requests - half;
await sample('end');
const wallMs = performance.now() - t0;
const resourcesOpen = process.getActiveResourcesInfo();
await client.close();
await settle();
const resourcesAfterClose = process.getActiveResourcesInfo();
const output: MemoryOutput = {
  client: name,
  kind,
  samples,
  failures,
  resourcesOpen,
  resourcesAfterClose,
  wallMs,
};
process.stdout.write(`${JSON.stringify(output)}\n`);
