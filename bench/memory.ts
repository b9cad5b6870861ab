/**
 * Memory runs, a child per client with jitterbug: requests over loopback, 16 in flight, every fifth
 * retried once; heap and RSS after forced collections after a warm-up, half-way and at the end; then
 * the client is closed, and no socket or timer may be left.
 */
import { CLIENT_NAMES, type ClientName, makeClient } from './clients.ts';
import { runChild } from './spawn.ts';
import { table } from './table.ts';

export interface MemoryRun {
  readonly client: ClientName;
  readonly requests: number;
  /** Heap and RSS (bytes) after the warm-up, half-way, at the end. */
  readonly heap: readonly number[];
  readonly rss: readonly number[];
  readonly failures: number;
  /** Sockets, timers and immediates still there once the client is closed. */
  readonly left: readonly string[];
}

const run = async (client: ClientName, origin: string, requests: number): Promise<MemoryRun> => {
  const c = await makeClient(client, 'jitterbug', origin);
  const out = { client, requests, heap: [] as number[], rss: [] as number[], failures: 0 };
  let sent = 0;
  for (const n of [5000, Math.floor(requests / 2), requests - Math.floor(requests / 2)]) {
    const end = sent + n;
    const worker = async (): Promise<void> => {
      for (let i = sent++; i < end; i = sent++) {
        if ((await c.get(i % 5 === 0 ? `/flaky?id=${process.pid}-${i}` : '/ok')) !== 200) out.failures++;
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    sent = end;
    // The least heap of three settles: one forced GC's heap moved by ±1.5 MB from one to the next.
    let least = { heapUsed: Number.POSITIVE_INFINITY, rss: 0 };
    for (let i = 0; i < 9; i++) {
      if (i % 3 === 0) await new Promise((resolve) => setImmediate(resolve));
      (globalThis as unknown as { gc: () => void }).gc();
      const m = process.memoryUsage();
      if (m.heapUsed < least.heapUsed) least = m;
    }
    out.heap.push(least.heapUsed);
    out.rss.push(least.rss);
  }
  await c.close();
  await new Promise((resolve) => setImmediate(resolve));
  return {
    ...out,
    left: process.getActiveResourcesInfo().filter((r) => /TCP|Timeout|Immediate|Timer/.test(r)),
  };
};

/** One run per client, one after the other. */
export const runMemory = async (origin: string, requests: number): Promise<(MemoryRun | Error)[]> => {
  const runs: (MemoryRun | Error)[] = [];
  for (const client of CLIENT_NAMES) {
    const args = [JSON.stringify({ client, origin, requests })];
    runs.push(await runChild<MemoryRun>('memory.ts', args).catch((e: Error) => e));
  }
  return runs;
};

/** Flat: under 0.5 MB more heap over the second half, under 2 MB over the whole run. */
export const memoryTable = (runs: readonly (MemoryRun | Error)[]): string => {
  const mb = (bytes: readonly number[]): string => bytes.map((b) => (b / 2 ** 20).toFixed(1)).join(' → ');
  const header = 'client|requests|heap MB: warm-up → half → end|RSS MB|heap|left after close|not 200'.split(
    '|',
  );
  const rows = runs.map((m, i) => {
    if (m instanceof Error) return [CLIENT_NAMES[i]!, `not run: ${m.message}`];
    const [a, b, c] = m.heap as [number, number, number];
    const flat = c - b < 0.5 * 2 ** 20 && c - a < 2 * 2 ** 20 ? 'flat' : '**not flat**';
    const left = m.left.length ? `**${m.left.join(', ')}**` : 'nothing';
    return [m.client, m.requests.toLocaleString('en'), mb(m.heap), mb(m.rss), flat, left, String(m.failures)];
  });
  return table(header, rows);
};

if (import.meta.main) {
  const { client, origin, requests } = JSON.parse(process.argv[2] ?? '{}');
  console.log(JSON.stringify(await run(client, origin, requests)));
}
