/**
 * The delay an answer asks for, read one way for everything that waits for it: the retry's decision,
 * and the herd line, the pacer and the fleet's pacer, which hold an origin until then. Read two
 * ways, a 429 whose fields disagree (a spent quota beside a window's reset) held the origin until
 * one time and retried at another.
 */
import { explicitDelay, type HeaderGetter, type ServerDelaySource } from './retry-after.ts';
import { type QuotaResetSource, windowDelay } from './spent-quota.ts';

/** A server-given delay in ms, within `[0, MAX_SERVER_DELAY_MS]`, and the field it came from. */
export interface AskedDelay {
  readonly ms: number;
  readonly source: ServerDelaySource | QuotaResetSource;
  /** A spent quota's reset: nothing goes through before then. */
  readonly spent?: true;
}

/**
 * The delay a response asks for, and whether it is a spent quota's: a delay asked for as such
 * (`Retry-After` and the millisecond fields, which take precedence), else what the rate-limit
 * window's fields say (`windowDelay`: a spent quota's reset, else the window's). Each field is read
 * once, and only when the ones before it said nothing.
 */
export const askedDelay = (headers: HeaderGetter, nowMs: number): AskedDelay | undefined =>
  explicitDelay(headers, nowMs) ?? windowDelay(headers, nowMs);
