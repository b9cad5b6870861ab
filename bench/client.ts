/**
 * One client process of the benchmark, driven over IPC by `interleave.ts`. Argument: a JSON
 * {@link ClientSetup}. It makes its variant of the client and reports `{ ready }`; told to, it
 * warms up on every response size (and on the retry path, for a retrying variant); then it runs one
 * measured block per {@link BlockOrder} it is sent and answers with the block's CPU time. Between
 * blocks it sleeps while the other variants take their turns, so that the blocks that are compared
 * run one at a time, alone on the clients' CPU, a fraction of a second apart.
 */
import { okPath, SIZES, type SizeName } from './bodies.ts';
import { CLIENTS } from './clients/index.ts';
import type { ClientName, VariantKind } from './clients/types.ts';
import { cpuNow, type PhaseResult, runRequests } from './load.ts';

export interface ClientSetup {
  readonly client: ClientName;
  readonly kind: VariantKind;
  readonly origin: string;
  readonly concurrency: number;
  /** Warm-up requests by block kind (the kinds this process will measure). */
  readonly warmup: Readonly<Partial<Record<SizeName | 'retry', number>>>;
}

/** A block to run: `n` requests of one response size, or `n` retried requests (`/flaky`: 503, then 200). */
export interface BlockOrder {
  readonly block: SizeName | 'retry';
  readonly n: number;
}

const setup = JSON.parse(process.argv[2] ?? '{}') as ClientSetup;
const client = await CLIENTS[setup.client](setup.kind, setup.origin);
const tag = `${process.pid}-${setup.kind}`;
let flaky = 0;
const flakyPath = (): string => `/flaky?id=${tag}-${flaky++}`;

// Garbage-collection pauses, summed: a block's share of GC tells a GC mode from the code's own cost.
let gcMs = 0;
let gcs = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    gcMs += entry.duration;
    gcs++;
  }
}).observe({ entryTypes: ['gc'] });

const run = async (order: BlockOrder): Promise<PhaseResult> => {
  const path = order.block === 'retry' ? undefined : okPath(order.block);
  const gcBefore = gcMs;
  const gcsBefore = gcs;
  const t0 = performance.now();
  const start = cpuNow();
  const failures = await runRequests(client, order.n, setup.concurrency, path ? () => path : flakyPath);
  const { user, system } = cpuNow(start);
  const wallMs = performance.now() - t0;
  // GC entries are delivered after the pauses: let the last ones of the block arrive.
  await new Promise((resolve) => setImmediate(resolve));
  return {
    requests: order.n,
    cpuUs: user + system,
    userUs: user,
    systemUs: system,
    wallMs,
    failures,
    gcMs: gcMs - gcBefore,
    gcs: gcs - gcsBefore,
  };
};

const warmUp = async (): Promise<void> => {
  for (const block of [...SIZES, 'retry'] as const) {
    const n = setup.warmup[block];
    if (n) await run({ block, n });
  }
};

process.on('message', (message: BlockOrder | 'warm-up' | 'stop') => {
  if (message === 'stop') {
    void client.close().then(() => process.disconnect());
    return;
  }
  const done = message === 'warm-up' ? warmUp().then(() => ({ warm: true })) : run(message);
  void done.then((reply) => process.send?.(reply));
});
process.send?.({ ready: true });
