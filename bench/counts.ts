/**
 * Instruction counts (valgrind's callgrind): every client's variants over an in-memory transport,
 * the raw clients over loopback (the denominator of the 2 % target), the core's bookkeeping alone,
 * and a repeat of one process (the A/A). Run alone it prints the tables:
 *
 *   node --conditions=@jitterbug/source bench/counts.ts
 *
 * `make bench` calls {@link runCounts} with its own server. See `counts-report.ts` for what the
 * figures mean and what in them is exact.
 */
import type { CountedRun } from './callgrind.ts';
import { runCounted, valgrindVersion } from './callgrind.ts';
import type { ClientName, VariantKind } from './clients/types.ts';
import type { CountBlock, CountBlockPlan, CountChildOutput, CountSetup } from './counts-child.ts';
import {
  BOOKKEEPING,
  COUNTED_CLIENTS,
  IN_MEMORY_FLAGS,
  LOOPBACK_BLOCKS,
  LOOPBACK_CONCURRENCY,
  OTHER_HISTORY_WARMUP,
  PARALLEL,
  RETRY_BLOCK,
  SUCCESS_BLOCKS,
} from './counts-plan.ts';

const KINDS: readonly VariantKind[] = ['raw', 'jitterbug', 'peer'];

/**
 * One block's figure: instructions per request outside GC and the compilers, window by window.
 * What disturbs a window (V8 re-optimising a function, a collection's aftermath) only adds to it,
 * so the least window is the figure, and the others show how far a window can be disturbed.
 */
export interface Figure {
  /** Per request, each window. */
  readonly windows: readonly number[];
  /** The least window. */
  readonly perRequest: number;
  /** The dearest window. */
  readonly highest: number;
  /** GC instructions per request over the windows (not exact: a window holds a collection or not). */
  readonly gcPerRequest: number;
}

export interface CountedProcess {
  readonly blocks: Partial<Record<CountBlock, Figure>>;
  readonly seconds: number;
  readonly error?: string;
}

export interface VariantCounts extends CountedProcess {
  readonly client: ClientName;
  readonly kind: VariantKind;
}

export interface CountResults {
  readonly valgrind: string;
  /** Every client and variant, in memory. */
  readonly memory: readonly VariantCounts[];
  /** The raw clients over loopback. */
  readonly loopback: readonly (CountedProcess & { readonly client: ClientName })[];
  /** undici-request's raw process run again, unchanged: the A/A of the method. */
  readonly repeat: VariantCounts;
  /** The same with a longer warm-up: the same code, another history of the process. */
  readonly otherHistory: VariantCounts;
  readonly bookkeeping: CountedProcess;
  /** Wall time of the whole section. */
  readonly seconds: number;
}

/**
 * The figures of a counted process. Its intervals: start-up, the empty window (the marks' own
 * cost), then for each window the gap before it (its block's warm-up) and the window itself.
 */
export const figuresOf = (run: CountedRun): Partial<Record<CountBlock, Figure>> => {
  const { windows } = JSON.parse(run.lastLine) as CountChildOutput;
  const empty = run.intervals[1]?.total ?? 0;
  const perBlock = new Map<CountBlock, { mutator: number[]; gc: number; n: number }>();
  windows.forEach(({ block, n, failures }, k) => {
    if (failures > 0) throw new Error(`${failures} of ${n} requests of a ${block} window did not end in 200`);
    const counts = run.intervals[3 + 2 * k];
    if (!counts) throw new Error(`callgrind wrote no dump for window ${k + 1}`);
    const entry = perBlock.get(block) ?? { mutator: [], gc: 0, n: 0 };
    entry.mutator.push((counts.total - counts.gc - counts.jit - empty) / n);
    entry.gc += counts.gc;
    entry.n += n;
    perBlock.set(block, entry);
  });
  return Object.fromEntries(
    [...perBlock].map(([block, { mutator, gc, n }]) => [
      block,
      {
        windows: mutator,
        perRequest: Math.min(...mutator),
        highest: Math.max(...mutator),
        gcPerRequest: gc / n,
      },
    ]),
  );
};

/** Runs counted jobs, {@link PARALLEL} at a time, in the order given. */
const pool = async <T>(jobs: readonly (() => Promise<T>)[]): Promise<T[]> => {
  const results: T[] = new Array(jobs.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < jobs.length) {
      const i = next++;
      results[i] = await jobs[i]!();
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  return results;
};

const counted = async (file: string, arg: unknown, flags: readonly string[]): Promise<CountedProcess> => {
  const started = performance.now();
  const seconds = (): number => (performance.now() - started) / 1000;
  try {
    const run = await runCounted(file, [JSON.stringify(arg)], flags);
    return { blocks: figuresOf(run), seconds: seconds() };
  } catch (error) {
    return { blocks: {}, seconds: seconds(), error: (error as Error).message };
  }
};

const clientProcess = (
  client: ClientName,
  kind: VariantKind,
  blocks: readonly CountBlockPlan[],
  origin?: string,
): Promise<CountedProcess> => {
  const setup: CountSetup = {
    client,
    kind,
    ...(origin ? { origin } : {}),
    concurrency: origin ? LOOPBACK_CONCURRENCY : 1,
    blocks,
  };
  return counted('counts-child.ts', setup, origin ? [] : IN_MEMORY_FLAGS);
};

const memoryBlocks = (kind: VariantKind): CountBlockPlan[] =>
  kind === 'raw' ? [...SUCCESS_BLOCKS] : [...SUCCESS_BLOCKS, RETRY_BLOCK];

const longerWarmUp = (blocks: readonly CountBlockPlan[]): CountBlockPlan[] =>
  blocks.map((b, i) => (i === 0 ? { ...b, warmup: Math.round(b.warmup * OTHER_HISTORY_WARMUP) } : b));

/** The whole section. `origin`: the loopback server for the denominators (`make bench`'s own). */
export const runCounts = async (origin: string, log: (line: string) => void): Promise<CountResults> => {
  const valgrind = valgrindVersion();
  if (!valgrind) throw new Error('valgrind is not installed (Debian: apt-get install valgrind)');
  const started = performance.now();
  const variants = COUNTED_CLIENTS.flatMap((client) => KINDS.map((kind) => ({ client, kind })));
  const done = (what: string) => (p: CountedProcess) => {
    log(`instruction counts: ${what} (${p.seconds.toFixed(0)} s)${p.error ? `: ${p.error}` : ''}`);
    return p;
  };
  const jobs: (() => Promise<CountedProcess>)[] = [
    ...variants.map(
      ({ client, kind }) =>
        () =>
          clientProcess(client, kind, memoryBlocks(kind)).then(done(`${client} ${kind}, in memory`)),
    ),
    ...COUNTED_CLIENTS.map(
      (client) => () =>
        clientProcess(client, 'raw', LOOPBACK_BLOCKS, origin).then(done(`${client} raw, loopback`)),
    ),
    () => clientProcess('undici-request', 'raw', memoryBlocks('raw')).then(done('undici-request raw, again')),
    () =>
      clientProcess('undici-request', 'raw', longerWarmUp(memoryBlocks('raw'))).then(
        done('undici-request raw, longer warm-up'),
      ),
    () => counted('counts-bookkeeping.ts', BOOKKEEPING, IN_MEMORY_FLAGS).then(done('the core bookkeeping')),
  ];
  const results = await pool(jobs);
  const memory = variants.map((v, i) => ({ ...v, ...results[i]! }));
  const loopback = COUNTED_CLIENTS.map((client, i) => ({ client, ...results[variants.length + i]! }));
  const rest = variants.length + COUNTED_CLIENTS.length;
  return {
    valgrind,
    memory,
    loopback,
    repeat: { client: 'undici-request', kind: 'raw', ...results[rest]! },
    otherHistory: { client: 'undici-request', kind: 'raw', ...results[rest + 1]! },
    bookkeeping: results[rest + 2]!,
    seconds: (performance.now() - started) / 1000,
  };
};

if (import.meta.main) {
  const { mkdirSync, writeFileSync } = await import('node:fs');
  const { benchFile, startServer } = await import('./spawn.ts');
  const { countsSection } = await import('./counts-report.ts');
  const server = await startServer();
  try {
    const results = await runCounts(server.origin, (line) => console.error(line));
    // Every window of every process, for a second look at what the tables summarise.
    mkdirSync(benchFile('.tmp'), { recursive: true });
    writeFileSync(benchFile('.tmp/counts.json'), JSON.stringify(results));
    console.log(countsSection(results));
  } finally {
    await server.stop();
  }
}
