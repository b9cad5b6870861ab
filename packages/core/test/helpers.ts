import {
  createRetryPolicy,
  type HeaderGetter,
  initialBackoffState,
  type RetryPolicyOptions,
  type Sleep,
} from '@jitterbug/core';
import type { AttemptOutcome } from '../src/decide.ts';
import type { ResolvedOptions } from '../src/options.ts';
import { type QuotaResetSource, windowDelay } from '../src/spent-quota.ts';

/** A case-insensitive header getter over a plain object. */
export const headers = (values: Record<string, string> = {}): HeaderGetter => {
  const lower = new Map(Object.entries(values).map(([k, v]) => [k.toLowerCase(), v]));
  return (name) => lower.get(name.toLowerCase());
};

/** A fixed random source. */
export const fixed =
  (value: number): (() => number) =>
  () =>
    value;

/** A sleep that resolves at once and records every wait. */
export const recordingSleep = (): Sleep & { calls: number[] } => {
  const calls: number[] = [];
  const sleep = (ms: number, signal?: AbortSignal): Promise<void> => {
    calls.push(ms);
    if (signal?.aborted) return Promise.reject(signal.reason);
    return Promise.resolve();
  };
  return Object.assign(sleep, { calls });
};

/** A controllable clock. */
export const clock = (start = 1_700_000_000_000): { now: () => number; advance: (ms: number) => void } => {
  let t = start;
  return {
    now: () => t,
    advance: (ms) => {
      t += ms;
    },
  };
};

/** Resolved options with deterministic defaults (random 0.5, no budget unless given). */
export const resolved = (options: RetryPolicyOptions = {}): ResolvedOptions =>
  createRetryPolicy({ random: fixed(0.5), budget: false, ...options }).options;

/** An outcome for `decide` with sensible defaults: GET, first attempt, 503, no headers. */
export const outcome = (overrides: Partial<AttemptOutcome> = {}): AttemptOutcome => ({
  method: 'GET',
  url: 'https://api.example.com/items',
  requestHeaders: headers(),
  bodyReplayable: true,
  attempt: 1,
  elapsedMs: 0,
  nowMs: 1_700_000_000_000,
  backoffState: initialBackoffState,
  status: 503,
  responseHeaders: headers(),
  ...overrides,
});

/** fetch's wrapper around a socket error. */
export const fetchFailed = (code: string): TypeError =>
  new TypeError('fetch failed', { cause: Object.assign(new Error(`socket: ${code}`), { code }) });

/** A decision the run made without a promise (every hook synchronous): fails the test otherwise. */
export const decided = <T>(value: T | Promise<T>): T => {
  if (value instanceof Promise) throw new Error('expected a synchronous decision');
  return value;
};

/**
 * The wait until a spent quota is back, when the response says one is: the spent part of the
 * decision's `windowDelay` (`undefined` when no quota is spent or none says when it resets).
 */
export const spentQuota = (
  headers: HeaderGetter,
  nowMs: number,
): { readonly ms: number; readonly source: QuotaResetSource } | undefined => {
  const delay = windowDelay(headers, nowMs);
  return delay?.spent ? { ms: delay.ms, source: delay.source } : undefined;
};
