/**
 * The instruction-count ratchet: jitterbug's success path may not get dearer. Each client with
 * jitterbug runs in Node processes under callgrind, in memory (`count-child.ts`), one per history
 * (below); its instructions per 50-byte request and per retried request are set against
 * `counts-baseline.json`, and it exits 1 when a success-path count rose beyond its tolerance or
 * could not be counted. `--baseline` counts anew and rewrites the file. A history's figure is the
 * least of a block's windows (a disturbance only adds), outside V8's collector and compilers.
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

/**
 * The histories. One process is exact (counted again, it moved by up to 134 instructions: only the
 * clock's values differ), but the same code after another history is optimised otherwise, and that
 * moves a count further: undici `fetch()` at f43ab08 counted 164,702 to 169,581 per request over 12
 * histories, ky 189,843 to 190,297, withRetry 66,337 to 66,552 (at 1c7ddaf, 66,275 or 69,033). A
 * change to the code is another history too, so one process cannot tell a change of 2 % from its
 * history. Hence each client runs once per pad here, the processes differing only in how many small
 * objects they make and keep before the first warm-up (`pad` in `count-child.ts`), which moves every
 * later collection, and so what V8 has seen when it optimises, and nothing that is measured.
 *
 * The spread is one-sided: a floor that many histories reach (7 of withRetry's 8 within 7
 * instructions, 5 of undici's 12 within 0.04 %) and the others above it, as a window with a
 * collection in it would be. So a client's figure is the least over its histories, and its
 * tolerance, for each path, how far above that its dearest history lay when the baseline was taken:
 * a figure beyond it is dearer than every history of the baseline, which a change that costs
 * nothing gives in 1 case in 70 (all 4 new histories above all 4 old ones). Four histories keep
 * `make bench-counts` to 11 minutes here (682 s; 937 s beside other work).
 */
const PADS = [0, 2500, 10000, 40000];
const CONDITIONS = `jitterbug's variant, in memory, one request at a time; warm-ups and windows: ${JSON.stringify(PLAN)}; pads: ${PADS}`;

interface Block {
  /** The least of the histories' figures. */
  readonly figure: number;
  /** Each history's figure (the least of its windows), in the order of `PADS`. */
  readonly histories: readonly number[];
  /** The dearest history over the least, less 1: the tolerance, when it is the baseline's. */
  readonly spread: number;
}
type Counted = Record<CountBlock, Block>;
type Baseline = Record<'taken' | 'commit' | 'node' | 'valgrind' | 'conditions', string> & {
  readonly clients: Partial<Record<ClientName, Counted>>;
};
const FILE = benchFile('counts-baseline.json');

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

/**
 * How many times a history is run before its failed requests fail the count. A request fails there
 * by the wall clock, not by the code counted: ky's default `timeout` (10 s) is also its run's
 * deadline, and under callgrind on a loaded machine one request can outlast it (a collection or a
 * compile that takes seconds there), so that its 503 is not retried and ky throws its `HTTPError`.
 * The instructions do not depend on the clock; the process is run again.
 */
const RUNS = 3;

/** One history of `client`: the least window of each block. */
const countOne = async (client: ClientName, pad: number, run = 1): Promise<Record<CountBlock, number>> => {
  const setup: CountSetup = { client, kind: 'jitterbug', blocks: PLAN, pad };
  const { intervals, lastLine } = await runCounted('count-child.ts', [JSON.stringify(setup)]);
  const windows = JSON.parse(lastLine) as { block: CountBlock; n: number; failures: number }[];
  const failed = windows.find((w) => w.failures > 0);
  if (failed) {
    const why = `${client}, pad ${pad}: ${failed.failures} of ${failed.n} requests did not end in 200`;
    if (run >= RUNS) throw new Error(`${why} (${RUNS} runs)`);
    console.error(`${why}; counted again`);
    return countOne(client, pad, run + 1);
  }
  // The intervals: start-up, the empty window (the marks' own cost), then a gap and a window each.
  const own = (i: number): number => intervals[i]!.total - intervals[i]!.gcAndJit;
  const per: Record<CountBlock, number[]> = { success: [], retry: [] };
  windows.forEach(({ block, n }, k) => {
    per[block].push(Math.round((own(3 + 2 * k) - own(1)) / n));
  });
  console.error(`counted ${client}, pad ${pad}`);
  return { success: Math.min(...per.success), retry: Math.min(...per.retry) };
};

/** Counts each of `clients` in every history, two processes at a time: a count does not depend on load. */
const count = async (clients: readonly ClientName[]): Promise<(Counted | Error)[]> => {
  const jobs = clients.flatMap((client) => PADS.map((pad) => () => countOne(client, pad)));
  const runs = await pool(jobs);
  return clients.map((_, c) => {
    const mine = runs.slice(c * PADS.length, (c + 1) * PADS.length);
    const failed = mine.find((r) => r instanceof Error);
    if (failed) return failed as Error;
    const block = (b: CountBlock): Block => {
      const histories = (mine as Record<CountBlock, number>[]).map((r) => r[b]);
      const figure = Math.min(...histories);
      return { figure, histories, spread: Number((Math.max(...histories) / figure - 1).toFixed(5)) };
    };
    return { success: block('success'), retry: block('retry') };
  });
};

/** What is counted is the packages: the last commit that changed them, and whether they changed since. */
const commit = (): string => {
  const git = (...args: string[]): string => execFileSync('git', args, { encoding: 'utf8' }).trim();
  const dirty = git('status', '--porcelain', '--', 'packages') ? ' with changes' : '';
  return `packages at ${git('log', '-1', '--format=%h', '--', 'packages')}${dirty}`;
};

const takeBaseline = async (): Promise<string> => {
  const counted = await count(CLIENT_NAMES);
  const failed = counted.find((r) => r instanceof Error);
  if (failed) throw failed;
  const taken = { taken: new Date().toISOString(), commit: commit(), node: process.version };
  const conditions = { valgrind: valgrindVersion(), conditions: CONDITIONS };
  const clients = Object.fromEntries(CLIENT_NAMES.map((client, c) => [client, counted[c]]));
  const baseline: Baseline = { ...taken, ...conditions, clients };
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
  const { figure, histories } = now[path];
  const change = figure / before.figure - 1;
  // Rose: every history now is dearer than every one of the baseline; fell: every one cheaper.
  const rose = change > before.spread && path === 'success' && `${client} ${pct(change, 2)}`;
  const fell = Math.max(...histories) < before.figure;
  const verdict = change > before.spread ? (rose ? '**rose**' : 'rose') : fell ? 'fell' : 'within the spread';
  const nowCell = `${int(figure)} (${histories.map((x) => int(x)).join(', ')})`;
  const changeCells = [int(figure - before.figure, true), pct(change, 2), pct(before.spread, 2)];
  return { rose, cells: [client, path, int(before.figure), nowCell, ...changeCells, verdict] };
};

/** Counts `clients` on the current tree and sets them against the baseline. */
export const runRatchet = async (clients: readonly ClientName[] = CLIENT_NAMES) => {
  const base = JSON.parse(readFileSync(FILE, 'utf8')) as Baseline;
  const [started, version] = [performance.now(), valgrindVersion()];
  const counted = await count(clients);
  const rows = clients.flatMap((c, i) => PLAN.map(({ block }) => row(c, block, base, counted[i]!)));
  const failures = rows.flatMap((r) => (r.rose ? [r.rose] : []));
  const header = 'client|path|baseline|now (each history)|Δ instructions|Δ|tolerance|verdict'.split('|');
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
