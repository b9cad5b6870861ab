/**
 * The opt-in `infoHeaders`: the retry summary as response headers, the one carrier that survives
 * every client (undici `request()`, undici `fetch()`, Node's global `fetch`), since fetch copies
 * headers into its own `Response` and drops any object identity.
 */
import type { RetryInfo } from '@jitterbug/core';
import type { Controller, HeaderRecord } from './types.ts';

/** Response header with the number of attempts made (when `infoHeaders` is on). */
export const ATTEMPTS_HEADER = 'x-jitterbug-attempts';
/** Response header with the sum of the waits between attempts, in ms (when `infoHeaders` is on). */
export const TOTAL_DELAY_HEADER = 'x-jitterbug-total-delay-ms';

/** Copies of `headers` (and of the raw headers, when the controller has them) with the summary added. */
export const withInfoHeaders = (
  headers: HeaderRecord,
  raw: Controller['rawHeaders'],
  summary: RetryInfo,
): { headers: HeaderRecord; raw: Controller['rawHeaders'] } => {
  const attempts = String(summary.attempts);
  const delay = String(Math.round(summary.totalDelayMs));
  const out: HeaderRecord = { ...headers, [ATTEMPTS_HEADER]: attempts, [TOTAL_DELAY_HEADER]: delay };
  if (!Array.isArray(raw)) return { headers: out, raw: raw === undefined || raw === null ? raw : out };
  return {
    headers: out,
    raw: [
      ...raw,
      Buffer.from(ATTEMPTS_HEADER, 'latin1'),
      Buffer.from(attempts, 'latin1'),
      Buffer.from(TOTAL_DELAY_HEADER, 'latin1'),
      Buffer.from(delay, 'latin1'),
    ],
  };
};

/**
 * Reads the info headers back from any headers object (`Headers`, undici's header record):
 * `undefined` when they are absent (the option is off, or jitterbug did not handle the request).
 */
export const readInfoHeaders = (
  headers: { get(name: string): string | null } | HeaderRecord,
):
  | {
      /** Attempts made, counting the first (`x-jitterbug-attempts`). */
      readonly attempts: number;
      /** Sum of the waits between them, in ms (`x-jitterbug-total-delay-ms`). */
      readonly totalDelayMs: number;
    }
  | undefined => {
  // Duck-typed: undici's fetch has its own `Headers` class, not the global one.
  const get = (name: string): string | undefined => {
    const value = typeof headers.get === 'function' ? headers.get(name) : (headers as HeaderRecord)[name];
    return Array.isArray(value) ? value[0] : (value ?? undefined);
  };
  const attempts = Number(get(ATTEMPTS_HEADER));
  const totalDelayMs = Number(get(TOTAL_DELAY_HEADER));
  return Number.isInteger(attempts) && attempts > 0 && Number.isFinite(totalDelayMs)
    ? { attempts, totalDelayMs }
    : undefined;
};
