/**
 * The instruction-count ratchet: jitterbug's success path may not get dearer. Each client with
 * jitterbug runs in one Node process under callgrind, in memory (`count-child.ts`); its instructions
 * per 50-byte request and per retried request are set against `counts-baseline.json`, and it exits 1
 * when a success-path count rose by more than its noise or could not be counted. `--baseline` counts
 * anew and rewrites the file. A figure is the least of a block's windows (a disturbance only adds),
 * outside V8's collector and compilers. The noise is measured with the baseline, for each client and
 * path: the same process again (it moved by up to 134 instructions; only the clock's values differ),
 * and with its warm-ups 10 % shorter and longer, the same code after another history, which V8
 * optimises otherwise; the largest move is the client's noise. Three runs can miss a larger move, so
 * a path's tolerance is the largest noise of any client on it.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { runCounted, valgrindVersion } from './callgrind.ts';
import { CLIENT_NAMES, type ClientName } from './clients.ts';
import type { CountBlock, CountSetup } from './count-child.ts';
import { benchFile } from './spawn.ts';
import { int, pct, table } from './table.ts';

/**
 * Warm-ups long enough for the windows to be flat: after 800 requests undici `request()`'s windows
 * still fell by 4 % and a 10 % longer warm-up moved its figure by 3 %; after 3,000, by 0.08 %.
 */
const PLAN = [
  { block: 'success', warmup: 3000, windows: [300, 300, 300] },
  { block: 'retry', warmup: 1000, windows: [200, 200] },
] as const satisfies CountSetup['blocks'];
const CONDITIONS = `jitterbug's variant, in memory, one request at a time; warm-ups and windows: ${JSON.stringify(PLAN)}`;

interface Block {
  readonly figure: number;
  readonly windows: readonly number[];
  /** The A/A runs' figures: the same process again, its warm-ups × 0.9 and × 1.1. */
  readonly aa?: readonly number[];
  /** The largest A/A move, a share of the figure. */
  readonly noise?: number;
}
type Counted = Record<CountBlock, Block>;
type Baseline = Record<'taken' | 'commit' | 'node' | 'valgrind' | 'conditions', string> & {
  readonly clients: Partial<Record<ClientName, Counted>>;
};
const FILE = benchFile('counts-baseline.json');

const count = async (client: ClientName, warmupScale = 1): Promise<Counted> => {
  const blocks = PLAN.map((b) => ({ ...b, warmup: Math.round(b.warmup * warmupScale) }));
  const setup: CountSetup = { client, kind: 'jitterbug', blocks };
  const { intervals, lastLine } = await runCounted('count-child.ts', [JSON.stringify(setup)]);
  const windows = JSON.parse(lastLine) as { block: CountBlock; n: number; failures: number }[];
  // The intervals: start-up, the empty window (the marks' own cost), then a gap and a window each.
  const own = (i: number): number => intervals[i]!.total - intervals[i]!.gcAndJit;
  const per: Record<CountBlock, number[]> = { success: [], retry: [] };
  windows.forEach(({ block, n, failures }, k) => {
    if (failures > 0) throw new Error(`${client}: ${failures} of ${n} requests did not end in 200`);
    per[block].push(Math.round((own(3 + 2 * k) - own(1)) / n));
  });
  const block = (w: number[]): Block => ({ figure: Math.min(...w), windows: w });
  console.error(`counted ${client}${warmupScale === 1 ? '' : `, warm-ups × ${warmupScale}`}`);
  return { success: block(per.success), retry: block(per.retry) };
};

/** As many counted processes at a time as there are CPUs: a count does not depend on load. */
const pool = async <T>(jobs: readonly (() => Promise<T>)[]): Promise<(T | Error)[]> => {
  const results: (T | Error)[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < jobs.length; i = next++) results[i] = await jobs[i]!().catch((e: Error) => e);
  };
  await Promise.all(Array.from({ length: availableParallelism() }, worker));
  return results;
};

/** What is counted is the packages: the last commit that changed them, and whether they changed since. */
const commit = (): string => {
  const git = (...args: string[]): string => execFileSync('git', args, { encoding: 'utf8' }).trim();
  const dirty = git('status', '--porcelain', '--', 'packages') ? ' with changes' : '';
  return `packages at ${git('log', '-1', '--format=%h', '--', 'packages')}${dirty}`;
};

const takeBaseline = async (): Promise<string> => {
  const scales = [1, 1, 0.9, 1.1];
  const runs = await pool(CLIENT_NAMES.flatMap((client) => scales.map((s) => () => count(client, s))));
  const failed = runs.find((r) => r instanceof Error);
  if (failed) throw failed;
  const clients = CLIENT_NAMES.map((client, c) => {
    const [first, ...aa] = runs.slice(c * scales.length, (c + 1) * scales.length) as Counted[];
    const block = (b: CountBlock): Block => {
      const others = aa.map((run) => run[b].figure);
      const noise = Math.max(...others.map((x) => Math.abs(x / first![b].figure - 1)));
      return { ...first![b], aa: others, noise: Number(noise.toFixed(5)) };
    };
    return [client, { success: block('success'), retry: block('retry') }];
  });
  const taken = { taken: new Date().toISOString(), commit: commit(), node: process.version };
  const conditions = { valgrind: valgrindVersion(), conditions: CONDITIONS };
  const baseline: Baseline = { ...taken, ...conditions, clients: Object.fromEntries(clients) };
  // Each block on one line: the file counts toward bench/'s size.
  return `${JSON.stringify(baseline, null, 2).replace(/\{\n\s+"figure"[^}]+\}/g, (b) => JSON.stringify(JSON.parse(b)))}\n`;
};

const row = (client: ClientName, path: CountBlock, base: Baseline, now: Counted | Error) => {
  const before = base.clients[client]?.[path];
  if (now instanceof Error || !before) {
    const why = now instanceof Error ? now.message : 'no baseline';
    const cells = [client, path, int(before?.figure ?? Number.NaN), why];
    return { rose: path === 'success' && `${client}: ${why}`, cells };
  }
  const { figure, windows } = now[path];
  const noise = Math.max(...Object.values(base.clients).map((c) => c[path].noise ?? 0));
  const change = figure / before.figure - 1;
  const rose = change > noise && path === 'success' && `${client} ${pct(change, 2)}`;
  const verdict =
    Math.abs(change) <= noise ? 'within the noise' : change < 0 ? 'fell' : rose ? '**rose**' : 'rose';
  const nowCell = `${int(figure)} (…${int(Math.max(...windows))})`;
  const changeCells = [int(figure - before.figure, true), pct(change, 2), `±${pct(noise, 2).slice(1)}`];
  return { rose, cells: [client, path, int(before.figure), nowCell, ...changeCells, verdict] };
};

/** Counts `clients` on the current tree and sets them against the baseline. */
export const runRatchet = async (clients: readonly ClientName[] = CLIENT_NAMES) => {
  const base = JSON.parse(readFileSync(FILE, 'utf8')) as Baseline;
  const [started, version] = [performance.now(), valgrindVersion()];
  const counted = await pool(clients.map((client) => () => count(client)));
  const rows = clients.flatMap((c, i) => PLAN.map(({ block }) => row(c, block, base, counted[i]!)));
  const failures = rows.flatMap((r) => (r.rose ? [r.rose] : []));
  const header = 'client|path|baseline|now (…dearest window)|Δ instructions|Δ|tolerance (A/A)|verdict'.split(
    '|',
  );
  const text = [
    `Instructions per request with jitterbug, in memory: baseline: ${base.commit} (${base.node}, ${base.taken.slice(0, 10)}),`,
    `now: ${commit()} (${process.version}, ${version}); ${((performance.now() - started) / 1000).toFixed(0)} s.`,
    base.node === process.version ? '' : `**Node is not the baseline's (${base.node}): not comparable.**`,
    failures.length ? `**The ratchet fails:** ${failures.join('; ')}.` : 'The ratchet holds.',
  ];
  const cells = rows.map((r) => r.cells);
  return {
    ok: failures.length === 0,
    report: `${table(header, cells)}\n\n${text.filter(Boolean).join(' ')}`,
  };
};

if (import.meta.main) {
  const args = process.argv.slice(2);
  if (args.includes('--baseline')) writeFileSync(FILE, await takeBaseline());
  else {
    const unknown = args.filter((a) => !(CLIENT_NAMES as readonly string[]).includes(a));
    if (unknown.length)
      throw new TypeError(`ratchet: no client ${unknown.join(', ')} (${CLIENT_NAMES.join(', ')})`);
    const { ok, report } = await runRatchet(args.length ? (args as ClientName[]) : CLIENT_NAMES);
    console.log(report);
    process.exitCode = ok ? 0 : 1;
  }
}
