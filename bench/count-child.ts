/**
 * One counted process of the ratchet, under callgrind: one client variant in memory, one request at
 * a time. Each block warms up, then runs each window between two calls of `mark()`, before which
 * callgrind dumps its counts; an empty window first measures the marks. Argument: a JSON
 * {@link CountSetup}; its last line: the windows it ran.
 */
import { getPriority } from 'node:os';
import { type ClientName, makeClient, type VariantKind } from './clients.ts';

/** The success path (200) or the retry path (`/flaky`: 503, then 200). */
export type CountBlock = 'success' | 'retry';
export interface CountSetup {
  readonly client: ClientName;
  readonly kind: VariantKind;
  readonly blocks: readonly { block: CountBlock; warmup: number; windows: readonly number[] }[];
  /**
   * How many small objects to make and keep before the first warm-up. It changes nothing that is
   * measured, only the process's history: every later collection comes elsewhere, and V8 optimises
   * after another one, which moves a count by up to 3 % (`ratchet.ts` counts several histories).
   */
  readonly pad?: number;
}

const setup = JSON.parse(process.argv[2] ?? '{}') as CountSetup;
const client = await makeClient(setup.client, setup.kind);
const mark = (): number => getPriority();
let flaky = 0;
// Every retried request's path is as long, whatever its number.
const PATHS = { success: () => '/ok', retry: () => `/flaky?id=${String(flaky++).padStart(9, '0')}` };

// One function made once: a window makes no closure of its own, which V8 would compile again.
const run = async (n: number, path: () => string): Promise<number> => {
  let failures = 0;
  for (let i = 0; i < n; i++) if ((await client.get(path())) !== 200) failures++;
  return failures;
};

const padding = Array.from({ length: setup.pad ?? 0 }, (_, i) => ({ i }));
mark();
mark();
const windows: { block: CountBlock; n: number; failures: number }[] = [];
for (const { block, warmup, windows: lengths } of setup.blocks) {
  await run(warmup, PATHS[block]);
  for (const n of lengths) {
    mark();
    const failures = await run(n, PATHS[block]);
    mark();
    windows.push({ block, n, failures });
  }
}
await client.close();
console.log(JSON.stringify(windows));
void padding; // kept to the end
