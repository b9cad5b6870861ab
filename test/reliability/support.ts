/**
 * Shared pieces of the reliability suite: a bounded-concurrency runner,
 * snapshots of the process's active resources, and a collector of unhandled rejections.
 */
import { describeError } from '@jitterbug/core/adapter';
import { sleep as realSleep } from '../../packages/core/src/sleep.ts';

/** Runs `task(i)` for `i` in `[0, count)`, at most `concurrency` at a time. */
export const runPool = async (
  count: number,
  concurrency: number,
  task: (i: number) => Promise<void>,
): Promise<void> => {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const i = next++;
      await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
};

/** Rejects after `ms` with `message()` (evaluated late, so it can say what is still pending). */
export const withTimeout = async <T>(promise: Promise<T>, ms: number, message: () => string): Promise<T> => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message())), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
};

/** Counts of `process.getActiveResourcesInfo()` by type. */
export const activeResources = (): Map<string, number> => {
  const counts = new Map<string, number>();
  for (const type of process.getActiveResourcesInfo()) counts.set(type, (counts.get(type) ?? 0) + 1);
  return counts;
};

/** Resource types that would keep the process alive: sockets and timers. */
const WATCHED = ['TCPSocketWrap', 'TCPWrap', 'Timeout', 'PipeWrap', 'TTYWrap'];

/** Types whose count is above `before`'s, e.g. `{ Timeout: 3 }` (3 more timers than before). */
export const leakedResources = (before: Map<string, number>): Record<string, number> => {
  const after = activeResources();
  const leaked: Record<string, number> = {};
  for (const type of WATCHED) {
    const extra = (after.get(type) ?? 0) - (before.get(type) ?? 0);
    if (extra > 0) leaked[type] = extra;
  }
  return leaked;
};

/** Waits (up to `timeoutMs`) until no watched resource is above `before`; returns what is left. */
export const settleResources = async (
  before: Map<string, number>,
  timeoutMs = 3_000,
): Promise<Record<string, number>> => {
  const until = Date.now() + timeoutMs;
  let leaked = leakedResources(before);
  while (Object.keys(leaked).length > 0 && Date.now() < until) {
    await realSleep(20);
    leaked = leakedResources(before);
  }
  return leaked;
};

/** Collects unhandled rejections while installed. */
export const captureUnhandled = (): { readonly reasons: unknown[]; dispose(): void } => {
  const reasons: unknown[] = [];
  const listener = (reason: unknown): void => {
    reasons.push(reason);
  };
  process.on('unhandledRejection', listener);
  return { reasons, dispose: () => process.off('unhandledRejection', listener) };
};

/** A short label for an error the caller received: its code (on the cause chain), else its name. */
export const errorLabel = (error: unknown): string => describeError(error);

/** A sleep that records what it was asked and waits (almost) nothing; aborts as the real one. */
export const tinySleep = (): {
  readonly waits: number[];
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
} => {
  const waits: number[] = [];
  return {
    waits,
    sleep: (ms, signal) => {
      waits.push(ms);
      return realSleep(0, signal);
    },
  };
};
