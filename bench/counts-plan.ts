/**
 * What the instruction counts (`counts.ts`) measure, in how many requests. Every figure is the
 * instructions of a window of requests divided by its length; each block has two windows, so that
 * how much a figure moves from one window to the next (V8 still re-optimising now and then) is
 * shown with it. The lengths are what the ten-minute `make bench` leaves room for under valgrind
 * (about 50 times slower than Node alone): about half a minute of CPU per counted process.
 */
import type { ClientName } from './clients/types.ts';
import type { CountBlockPlan } from './counts-child.ts';

export const COUNTED_CLIENTS: readonly ClientName[] = [
  'undici-request',
  'undici-fetch',
  'axios',
  'ky',
  'fetch',
];

/**
 * The success path, in memory: a warm-up of each block right before its windows (V8 re-optimises
 * for the shapes of a block when the process moves to it). With tier-up after 50 and 300 calls
 * (`spawn.ts`), the code of a request is optimised within the first few hundred.
 */
export const SUCCESS_BLOCKS: readonly CountBlockPlan[] = [
  { block: '50B', warmup: 800, windows: [300, 300, 300] },
  { block: '4KB', warmup: 200, windows: [150, 150] },
  { block: '64KB', warmup: 40, windows: [20, 20] },
];

/** The retry path (503, then 200), for jitterbug and the peer: a raw client does not retry. */
export const RETRY_BLOCK: CountBlockPlan = { block: 'retry', warmup: 300, windows: [200, 200] };

/**
 * The raw client over loopback, 16 requests in flight as in the sessions: the denominator of the
 * overhead. Three windows of the 50-byte response: its count follows the wall clock.
 */
export const LOOPBACK_BLOCKS: readonly CountBlockPlan[] = [
  { block: '50B', warmup: 800, windows: [300, 300, 300] },
  { block: '4KB', warmup: 200, windows: [150, 150] },
  { block: '64KB', warmup: 40, windows: [20, 20] },
];
export const LOOPBACK_CONCURRENCY = 16;

/** The A/A of another history: the repeated process with this much more warm-up (its 50-byte block). */
export const OTHER_HISTORY_WARMUP = 1.1;

/** Requests of the bookkeeping loop (`counts-bookkeeping.ts`): warm-up, then each window. */
export const BOOKKEEPING = { warmup: 3000, windows: [2000, 2000] } as const;

/**
 * For the in-memory processes only: no optimising compiler for WebAssembly. Nothing measured runs
 * WebAssembly in memory (undici's HTTP parser only runs over a socket); the TypeScript stripper
 * does, and optimising it cost each process 400 million instructions at start-up.
 */
export const IN_MEMORY_FLAGS = ['--liftoff-only'];

/** Counted processes run side by side, one per CPU (instruction counts do not depend on load). */
export const PARALLEL = 2;
