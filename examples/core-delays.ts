/**
 * The delays each backoff strategy chooses, retry after retry, with the core's defaults
 * (base 100 ms, cap 20 s). Run: node --conditions=@jitterbug/source examples/core-delays.ts
 */
import { type BackoffState, DEFAULTS, initialBackoffState, nextDelay, seededRandom } from '@jitterbug/core';
import { backoffStrategies } from '@jitterbug/core/adapter';

const retries = 8;
const params = { baseMs: DEFAULTS.backoff.baseMs, capMs: DEFAULTS.backoff.capMs };

/** Delays of `retries` consecutive retries for one client. */
export const delaysOf = (name: keyof typeof backoffStrategies, seed: number): number[] => {
  const random = seededRandom(seed);
  let state: BackoffState = initialBackoffState;
  const delays: number[] = [];
  for (let i = 0; i < retries; i++) {
    const [delay, next] = nextDelay(backoffStrategies[name], state, params, random);
    delays.push(delay);
    state = next;
  }
  return delays;
};

export const printCoreDelays = (log: (line: string) => void = console.log): void => {
  log(`Delays (ms) before retries 1..${retries}, base ${params.baseMs} ms, cap ${params.capMs} ms.`);
  log('Three clients per strategy (seeds 1, 2, 3): jitter spreads clients that failed together.\n');
  const header = `${'strategy'.padEnd(14)}${'client'.padEnd(8)}${Array.from({ length: retries }, (_, i) => `#${i + 1}`.padStart(8)).join('')}`;
  log(header);
  for (const name of Object.keys(backoffStrategies) as (keyof typeof backoffStrategies)[]) {
    for (const seed of [1, 2, 3]) {
      const row = delaysOf(name, seed)
        .map((d) => Math.round(d).toString().padStart(8))
        .join('');
      log(`${(seed === 1 ? name : '').padEnd(14)}${String(seed).padEnd(8)}${row}`);
    }
  }
};

if (import.meta.main) printCoreDelays();
