/** Runs `n` requests at a fixed concurrency and measures this process's CPU time over them. */
import type { BenchClient } from './clients/types.ts';

export interface PhaseResult {
  readonly requests: number;
  /** user + system CPU of this process during the phase, µs. */
  readonly cpuUs: number;
  readonly userUs: number;
  readonly systemUs: number;
  readonly wallMs: number;
  /** Requests whose final status was not 200. */
  readonly failures: number;
  /** Garbage-collection pauses during the phase (where observed), ms, and their number. */
  readonly gcMs?: number;
  readonly gcs?: number;
}

/** Sends `n` GETs of `pathOf(i)`, `concurrency` at a time. */
export const runRequests = async (
  client: BenchClient,
  n: number,
  concurrency: number,
  pathOf: (i: number) => string,
): Promise<number> => {
  let next = 0;
  let failures = 0;
  const worker = async (): Promise<void> => {
    while (next < n) {
      const i = next++;
      const status = await client.get(pathOf(i));
      if (status !== 200) failures++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
  return failures;
};

/** This process's user and system CPU so far (or since `since`), µs. */
export const cpuNow = (since?: NodeJS.CpuUsage): NodeJS.CpuUsage => process.cpuUsage(since);

const gc = (): void => (globalThis as { gc?: () => void }).gc?.();

/** One measured phase: a forced GC first (when exposed), then the requests under `process.cpuUsage()`. */
export const measure = async (
  client: BenchClient,
  n: number,
  concurrency: number,
  pathOf: (i: number) => string,
): Promise<PhaseResult> => {
  gc();
  const start = process.cpuUsage();
  const t0 = performance.now();
  const failures = await runRequests(client, n, concurrency, pathOf);
  const wallMs = performance.now() - t0;
  const { user, system } = process.cpuUsage(start);
  return { requests: n, cpuUs: user + system, userUs: user, systemUs: system, wallMs, failures };
};
