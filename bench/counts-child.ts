/**
 * One client process of the instruction counts (`counts.ts`), run under callgrind. Argument: a JSON
 * {@link CountSetup}. It makes its variant of the client, over memory or over loopback; for each
 * block, it warms up, then runs each measured window between two calls of `mark()`, which callgrind
 * is told to dump its counts before (`--dump-before=uv_os_getpriority`): the instructions of a
 * window are those of one dump. Before the blocks, an empty window measures the marks themselves.
 * Prints the windows it ran as its last line of stdout.
 */
import { getPriority } from 'node:os';
import { okPath, type SizeName } from './bodies.ts';
import { CLIENTS } from './clients/index.ts';
import type { ClientName, VariantKind } from './clients/types.ts';
import { runRequests } from './load.ts';
import { MEMORY_CLIENTS } from './memory-clients.ts';

export type CountBlock = SizeName | 'retry';

/** One block of a counted process: its warm-up, then each measured window, one after the other. */
export interface CountBlockPlan {
  readonly block: CountBlock;
  readonly warmup: number;
  readonly windows: readonly number[];
}

export interface CountSetup {
  readonly client: ClientName;
  readonly kind: VariantKind;
  /** The loopback server's origin; absent: the in-memory transport. */
  readonly origin?: string;
  readonly concurrency: number;
  readonly blocks: readonly CountBlockPlan[];
}

export interface CountChildOutput {
  /** Each measured window, in the order of the intervals after the empty one. */
  readonly windows: readonly { readonly block: CountBlock; readonly n: number; readonly failures: number }[];
}

/** The native call callgrind dumps before; nothing else in a client calls it. */
const mark = (): number => getPriority();

const setup = JSON.parse(process.argv[2] ?? '{}') as CountSetup;
const client = setup.origin
  ? await CLIENTS[setup.client](setup.kind, setup.origin)
  : await MEMORY_CLIENTS[setup.client](setup.kind);

// Fixed-width ids (the pid for a server shared between processes): every retried request's path has
// the same length, whatever its number and whatever the process.
const flakyPrefix = `/flaky?id=${String(process.pid).padStart(8, '0')}-`;
let flaky = 0;
const always =
  (path: string): (() => string) =>
  () =>
    path;
const PATHS: Record<CountBlock, () => string> = {
  '50B': always(okPath('50B')),
  '4KB': always(okPath('4KB')),
  '64KB': always(okPath('64KB')),
  retry: () => `${flakyPrefix}${String(flaky++).padStart(9, '0')}`,
};

// One request at a time, from one function made once: a window makes no closure of its own, which V8
// would have to compile again.
const oneByOne = async (n: number, path: () => string): Promise<number> => {
  let failures = 0;
  for (let i = 0; i < n; i++) if ((await client.get(path())) !== 200) failures++;
  return failures;
};
const run = (block: CountBlock, n: number): Promise<number> =>
  setup.concurrency === 1
    ? oneByOne(n, PATHS[block])
    : runRequests(client, n, setup.concurrency, PATHS[block]);

// An empty window: what the marks themselves cost.
mark();
mark();
const windows: CountChildOutput['windows'][number][] = [];
for (const { block, warmup, windows: lengths } of setup.blocks) {
  // Each block's own warm-up just before its windows: V8 re-optimises for the shapes of a block
  // when a process moves from one to another.
  await run(block, warmup);
  for (const n of lengths) {
    mark();
    const failures = await run(block, n);
    mark();
    windows.push({ block, n, failures });
  }
}
await client.close();
console.log(JSON.stringify({ windows } satisfies CountChildOutput));
