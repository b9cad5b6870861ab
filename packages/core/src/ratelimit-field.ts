/**
 * The `RateLimit` field (draft-ietf-httpapi-ratelimit-headers: `"daily";r=0;t=36000`): its service
 * limits, parsed strictly (a malformed field MUST be ignored, whole), and the wait one that is spent
 * gives. The decision reads it for a spent quota (`spent-quota.ts`), the herd line and the pacer for
 * the delay of a refused request (`retry-after.ts`), the pacer for what is left (`rate-limit-fields.ts`).
 */
import { integer, readField } from './structured-field.ts';

/** A service limit of `RateLimit`: `remaining` requests within the next `resetSeconds`. */
export interface ServiceLimit {
  /** The policy it belongs to (the member's token or string). */
  readonly name: string;
  /** `r`: the requests left. */
  readonly remaining: number;
  /** `t`: the seconds until the quota is reset, when given. */
  readonly resetSeconds: number | undefined;
}

/**
 * Parses `RateLimit`: each item a policy name with `r` (an Integer >= 0, required) and `t` (an
 * Integer >= 0, seconds). `undefined` when the field is absent or malformed.
 */
export const parseRateLimit = (value: string | null | undefined): ServiceLimit[] | undefined =>
  readField(value, (name, params): ServiceLimit | undefined => {
    const remaining = integer(params.get('r'), 0);
    const t = params.get('t');
    const resetSeconds = integer(t, 0);
    if (remaining === undefined || (t !== undefined && resetSeconds === undefined)) return undefined;
    return { name, remaining, resetSeconds };
  });

/**
 * The wait parsed `RateLimit` items give a request their quota refused: the longest `t` (seconds) of
 * the items with `r=0` (all of them must be back before a request goes through), in ms. `undefined`
 * when no item is spent or says when it resets.
 */
export const spentWaitMs = (limits: readonly ServiceLimit[]): number | undefined => {
  let seconds: number | undefined;
  for (const { remaining, resetSeconds } of limits) {
    if (remaining === 0 && resetSeconds !== undefined) seconds = Math.max(seconds ?? 0, resetSeconds);
  }
  return seconds === undefined ? undefined : seconds * 1000;
};
