/**
 * Server-given delays: `Retry-After` (RFC 9110 §10.2.3) and the millisecond fields, and the parsers
 * of `RateLimit-Reset` / `X-RateLimit-Reset` that `spent-quota.ts` reads after them
 * (`asked-delay.ts` puts the two together). Every parser returns a finite number of milliseconds
 * `>= 0`, or `undefined` for a value it does not understand: garbage never becomes `NaN`, a
 * negative or an infinite wait.
 */

/** Reads one response header by name (any case); `null`/`undefined` when absent. */
export type HeaderGetter = (name: string) => string | null | undefined;

/** The largest delay a parser returns; anything beyond is "too long" for every sane `maxMs`. */
export const MAX_SERVER_DELAY_MS = Number.MAX_SAFE_INTEGER;

const DELTA_SECONDS = /^\d+(?:\.\d+)?$/;
const MONTHS = 'janfebmaraprmayjunjulaugsepoctnovdec';
// IMF-fixdate `Sun, 06 Nov 1994 08:49:37 GMT` and obsolete RFC 850 `Sunday, 06-Nov-94 08:49:37 GMT`
// (day, month, year, time); obsolete asctime `Sun Nov  6 08:49:37 1994` (month, day, time, year).
const FIXDATE = /^[a-z]{3,9}, (\d\d)[ -]([a-z]{3})[ -](\d{4}|\d\d) (\d\d):(\d\d):(\d\d) gmt$/;
const ASCTIME = /^[a-z]{3} ([a-z]{3}) ([ \d]\d) (\d\d):(\d\d):(\d\d) (\d{4})$/;

const clampMs = (ms: number): number => (ms > 0 ? Math.min(ms, MAX_SERVER_DELAY_MS) : 0);

/**
 * A header of digits (`120`, leniently `1.5`) in ms, as `toMs` reads its number; `undefined` for
 * anything else, and the largest delay for digits too many to be a finite number.
 */
const digitsMs = (value: string | null | undefined, toMs: (n: number) => number): number | undefined => {
  const text = value?.trim() ?? '';
  if (!DELTA_SECONDS.test(text)) return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? clampMs(toMs(n)) : MAX_SERVER_DELAY_MS;
};

/**
 * Epoch ms of a date's parts (strings as matched; `clock`: hours, minutes, seconds), or `undefined`
 * for an impossible one.
 */
const utc = (year: number, monthName: string, day: string, clock: string[]): number | undefined => {
  const month = MONTHS.indexOf(monthName);
  const [d, h, m, s] = [day, ...clock].map(Number) as [number, number, number, number];
  if (month % 3 !== 0 || d < 1 || d > 31 || h > 23 || m > 59 || s > 60) return undefined;
  // Date.UTC maps years 0-99 to 1900-1999; setUTCFullYear takes the year as written. A leap
  // second (:60, which RFC 9110 allows) is the instant after :59.
  const time = new Date(0).setUTCFullYear(year, month / 3, d);
  return Number.isFinite(time) ? time + ((h * 60 + m) * 60 + s) * 1000 : undefined;
};

/**
 * Parses an HTTP-date in any of the three forms RFC 9110 §5.6.7 requires recipients to accept.
 * Returns the time in epoch milliseconds, or `undefined`.
 */
export const parseHttpDate = (value: string): number | undefined => {
  const text = value.trim().toLowerCase();
  const fix = FIXDATE.exec(text);
  if (fix) {
    const [, day, month, written] = fix as unknown as string[];
    let year = Number(written);
    // A comma after the weekday, an IMF year of four digits or an RFC 850 one of two.
    if (text.includes('-') !== (written!.length === 2)) return undefined;
    if (written!.length === 2) {
      // RFC 9110: a two-digit year more than 50 years in the future means the past century.
      year += 2000;
      if (year > new Date().getUTCFullYear() + 50) year -= 100;
    }
    return utc(year, month!, day!, fix.slice(4));
  }
  const asc = ASCTIME.exec(text);
  return asc ? utc(Number(asc[6]), asc[1]!, asc[2]!, asc.slice(3, 6)) : undefined;
};

/**
 * Parses a `Retry-After` value: delta-seconds (`120`, leniently also `1.5`) or an HTTP-date.
 *
 * @param value - the header value.
 * @param nowMs - the current time in epoch ms, for HTTP-dates (default `Date.now()`).
 * @returns the delay in ms (a date in the past gives 0), or `undefined` for an unparseable value.
 */
export const parseRetryAfter = (
  value: string | null | undefined,
  nowMs: number = Date.now(),
): number | undefined => {
  const seconds = digitsMs(value, (n) => n * 1000);
  if (seconds !== undefined || value == null) return seconds;
  const date = parseHttpDate(value);
  return date === undefined ? undefined : clampMs(date - nowMs);
};

/**
 * Parses `RateLimit-Reset` / `X-RateLimit-Reset`: delta-seconds (IETF draft, most APIs) or, for
 * values that can only be timestamps, epoch seconds (GitHub) or epoch milliseconds.
 */
export const parseRateLimitReset = (
  value: string | null | undefined,
  nowMs: number = Date.now(),
): number | undefined =>
  // Values from 10^9 on are read as an epoch time, not a delta (10^9 s is 2001, and no server asks
  // a client to wait 31 years); from 10^12 on, in milliseconds.
  digitsMs(value, (n) => (n >= 1e12 ? n - nowMs : n >= 1e9 ? n * 1000 - nowMs : n * 1000));

/** The field a delay asked for as such came from (the rate-limit window's: `QuotaResetSource`). */
export type ServerDelaySource = 'retry-after-ms' | 'x-ms-retry-after-ms' | 'retry-after';

/** A delay in milliseconds (`retry-after-ms: 1500`, `x-ms-retry-after-ms`), or `undefined`. */
export const parseDelayMs = (value: string | null | undefined): number | undefined =>
  digitsMs(value, (ms) => ms);

/** A header that gives a delay, with its parser; its name is the source. */
type DelayField = readonly [
  ServerDelaySource,
  (value: string | null | undefined, nowMs: number) => number | undefined,
];

/** The fields that ask for a delay as such, in the order they are read. */
const DELAY_FIELDS: readonly DelayField[] = [
  ['retry-after-ms', parseDelayMs],
  ['x-ms-retry-after-ms', parseDelayMs],
  ['retry-after', parseRetryAfter],
];

/** A server-given delay: how long, and the header it came from. */
export interface ServerDelay {
  /** The delay, in ms, within `[0, MAX_SERVER_DELAY_MS]`. */
  readonly ms: number;
  /** The header it came from. */
  readonly source: ServerDelaySource;
}

/** The first of `fields` that parses. */
const firstDelay = (
  fields: readonly DelayField[],
  headers: HeaderGetter,
  nowMs: number,
): ServerDelay | undefined => {
  for (const [source, parse] of fields) {
    const ms = parse(headers(source), nowMs);
    if (ms !== undefined) return { ms, source };
  }
  return undefined;
};

/**
 * The delay a response asks for in so many words: `retry-after-ms` (OpenAI, Anthropic), then
 * `x-ms-retry-after-ms` (Azure), both as precise as servers give, then `Retry-After`. It takes
 * precedence over what the rate-limit fields say (draft-ietf-httpapi-ratelimit-headers: "the
 * Retry-After field MUST take precedence").
 */
export const explicitDelay = (headers: HeaderGetter, nowMs: number = Date.now()): ServerDelay | undefined =>
  firstDelay(DELAY_FIELDS, headers, nowMs);
