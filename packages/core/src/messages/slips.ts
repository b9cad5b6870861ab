/**
 * Values that are valid but almost surely a slip, warned of once when a policy is made (development
 * builds only): a time option far below what a millisecond count of its kind is (`deadlineMs: 30`,
 * seconds meant), and an `errorCodes` entry no client gives an error (`'ECONNRESETT'`). The
 * thresholds are where a value written in seconds, read as milliseconds, leaves nothing the option
 * is for, and where no real setting of the option lies:
 *
 * - `deadlineMs` and `attemptTimeoutMs` below 100 ms: the default first wait alone is up to 100 ms,
 *   and an HTTP answer across a network takes tens of ms; 1 to 99 seconds are common settings.
 * - `retryAfter.maxMs` below 1 000 ms: `Retry-After` counts whole seconds, so every server delay
 *   would be refused.
 * - `backoff.baseMs` and `backoff.capMs` between 0 and 1 ms: a fraction of a millisecond is a
 *   number of seconds (`0.5`), since no timer waits less than a millisecond.
 */
import { editDistance } from './closest.ts';
import { CODE_FAMILIES, KNOWN_ERROR_CODES } from './known-codes.ts';
import { type WarningCode, warn } from './warn.ts';

/** `n` ms as the user likely meant it: `n` seconds. */
const asSeconds = (key: string, n: number): string =>
  `${key}: ${String(Math.round(n * 1000)).replace(/\B(?=(\d{3})+$)/g, '_')} for ${n} seconds?`;

/** A fraction of a millisecond (`0.5`, seconds meant). */
const fraction = (n: number, key: string): string | undefined =>
  n > 0 && n < 1
    ? `is a fraction of a millisecond, so every wait rounds to none and retries follow at once: ${asSeconds(key, n)}`
    : undefined;

/** What a time option's value does when it is a slip, and the likely fix; `undefined` when it is none. */
const TIME_SLIPS: Readonly<Record<string, (n: number, key: string) => string | undefined>> = {
  deadlineMs: (n, key) =>
    n === 0
      ? `is 0: no retry that waits is ever made (leave ${key} out for no deadline)`
      : n < 100
        ? `is ${n} ms for the whole run, waits included, less than the first wait (up to backoff.baseMs, 100 ms by default) and most answers take: ${asSeconds(key, n)}`
        : undefined,
  attemptTimeoutMs: (n, key) =>
    n < 100
      ? `gives each attempt ${n} ms before it is cut off, less than most answers take: ${asSeconds(key, n)}`
      : undefined,
  maxMs: (n, key) =>
    n < 1000
      ? `is ${n} ms, and Retry-After counts whole seconds: every server delay is refused (the answer handed back, or the wait cut to ${n} ms): ${asSeconds(key, n)} (retryAfter: false ignores server delays)`
      : undefined,
  baseMs: fraction,
  capMs: fraction,
};

/** The listed code `code` is a typo of: the same in another case, or one or two letters off. */
const typoOf = (code: string): string | undefined => {
  const upper = code.toUpperCase();
  const limit = code.length >= 6 ? 2 : 1;
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const known of KNOWN_ERROR_CODES) {
    const distance = editDistance(upper, known);
    if (distance < bestDistance) {
      best = known;
      bestDistance = distance;
    }
  }
  return best;
};

/** The warning for `errorCodes[i]`, `code`, when no client gives an error that code. */
const codeSlip = (code: string, name: string): string | undefined => {
  if (KNOWN_ERROR_CODES.includes(code)) return undefined;
  const typo = typoOf(code);
  if (typo === undefined && CODE_FAMILIES.test(code)) return undefined;
  const fix =
    typo === undefined
      ? 'if a client of your own gives its errors this code, ignore this'
      : `did you mean ${JSON.stringify(typo)}? (codes are compared exactly)`;
  return `option "${name}" is ${JSON.stringify(code)}, which is not a code Node, undici, axios or jitterbug gives an error, so it matches no failure: ${fix}`;
};

/** The slips in one source of options (a policy's, or a route rule's), each named by its `path`. */
const slipsIn = (source: Record<string, unknown>, path: string, found: [string, WarningCode][]): void => {
  const time = (value: unknown, key: string, name: string): void => {
    const slip = typeof value === 'number' ? TIME_SLIPS[key]?.(value, key) : undefined;
    if (slip) found.push([`option "${name}" ${slip}`, 'JITTERBUG_UNIT']);
  };
  time(source.deadlineMs, 'deadlineMs', `${path}deadlineMs`);
  time(source.attemptTimeoutMs, 'attemptTimeoutMs', `${path}attemptTimeoutMs`);
  const { backoff, retryAfter, errorCodes } = source as Record<string, Record<string, unknown> | undefined>;
  if (typeof backoff === 'object') {
    time(backoff.baseMs, 'baseMs', `${path}backoff.baseMs`);
    time(backoff.capMs, 'capMs', `${path}backoff.capMs`);
  }
  if (typeof retryAfter === 'object') time(retryAfter.maxMs, 'maxMs', `${path}retryAfter.maxMs`);
  if (Array.isArray(errorCodes)) {
    errorCodes.forEach((code: string, i) => {
      const slip = codeSlip(code, `${path}errorCodes[${i}]`);
      if (slip) found.push([slip, 'JITTERBUG_ERROR_CODE']);
    });
  }
};

/**
 * Warns of each slip in a policy's options and its route rules (`options`: as given, and valid),
 * once each: a policy is made once, and checked when it is.
 */
export const warnSlips = (options: Record<string, unknown>): void => {
  const found: [string, WarningCode][] = [];
  slipsIn(options, '', found);
  const { routes } = options;
  if (Array.isArray(routes)) {
    routes.forEach((rule: Record<string, unknown>, i) => {
      slipsIn(rule, `routes[${i}].`, found);
    });
  }
  for (const [slip, code] of found) warn(`jitterbug: ${slip}`, code);
};
