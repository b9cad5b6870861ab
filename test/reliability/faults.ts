/**
 * The load test's seeded fault schedule. Dependency-free (plain Node can load it with its type
 * stripping), because the fault server runs it in a worker thread.
 */
import type { Step } from '../support/scripted-server.ts';

/** A seeded [0, 1) generator (mulberry32 with a mixed seed). */
const mulberry32 = (seed: number): (() => number) => {
  let a = seed >>> 0;
  a = Math.imul(a ^ (a >>> 16), 0x85ebca6b);
  a = Math.imul(a ^ (a >>> 13), 0xc2b2ae35);
  a = (a ^ (a >>> 16)) >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

/** The faults the load server draws from. `ok` is a normal answer. */
export type Fault = 'ok' | '503' | '429' | 'destroy' | 'mid-body' | 'slow' | 'huge';

/** Share of each fault among all attempts (the rest is `ok`): about 30 % in all. */
export const FAULT_SHARES: ReadonlyArray<readonly [Fault, number]> = [
  ['503', 0.09],
  ['429', 0.06],
  ['destroy', 0.05],
  ['mid-body', 0.04],
  ['huge', 0.04],
  ['slow', 0.02],
];

/**
 * The fault for attempt `nth` (0-based) of request `id`: a pure function of (seed, id, nth), so the
 * schedule is the same whatever order the concurrent attempts reach the server in.
 */
export const faultFor = (seed: number, id: number, nth: number): { fault: Fault; roll: number } => {
  const random = mulberry32(seed ^ Math.imul(id + 1, 0x9e3779b1) ^ Math.imul(nth + 1, 0x85ebca6b));
  const r = random();
  const roll = random();
  let acc = 0;
  for (const [fault, share] of FAULT_SHARES) {
    acc += share;
    if (r < acc) return { fault, roll };
  }
  return { fault: 'ok', roll };
};

/** Settings of the load server's faults. */
export interface FaultSettings {
  /** How long a `slow` answer holds its headers back (beyond the clients' `attemptTimeoutMs`). */
  readonly slowMs: number;
  /** Size of a `huge` error body (above `discardBodyMaxBytes`). */
  readonly hugeBytes: number;
}

/** The scripted-server step for a fault; `okBody` is what a successful answer carries. */
export const stepFor = (fault: Fault, roll: number, okBody: string, settings: FaultSettings): Step => {
  switch (fault) {
    case 'ok':
      return { status: 200, body: okBody };
    case '503':
      return { status: 503, body: 'unavailable' };
    case '429':
      // Seconds (0-2) or an HTTP-date in the past: waits are injected, so the value only has to parse.
      return {
        status: 429,
        headers: { 'retry-after': roll < 0.8 ? String(Math.floor(roll * 3)) : new Date(0).toUTCString() },
        body: 'slow down',
      };
    case 'destroy':
      return { destroy: 'before-headers' };
    case 'mid-body':
      return { destroy: 'mid-body', status: roll < 0.5 ? 200 : 503, sentBytes: 100, declaredBytes: 4096 };
    case 'slow':
      return { status: 200, body: okBody, delayMs: settings.slowMs };
    case 'huge':
      return { status: 503, bodyBytes: settings.hugeBytes };
  }
};
