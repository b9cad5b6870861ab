/**
 * The fleet's pacer: GCRA (the generic cell rate algorithm), with redis-cell's formula, on the
 * store's clock. One key per origin holds the theoretical arrival time (TAT) and the rate the fleet
 * learned, with how long that rate is remembered.
 *
 * With an emission interval T (ms per request) and a burst b, the delay variation tolerance is
 * τ = T·(b + 1); a request of `quantity` q at `now` would move the TAT to max(TAT, now) + T·q, and is
 * allowed once `now ≥ newTAT − τ`. redis-cell refuses a request that is early; `take` can also book
 * it (as Go's `rate.Limiter.Reserve` does): with `maxWaitMs` > 0 a request that is early by at most
 * that takes its slot and is told how long to wait for it. With `maxWaitMs` 0 it is redis-cell's
 * answer exactly (its test table is in the core's tests).
 *
 * A hold (a 429's `Retry-After`, a `RateLimit` quota that is spent) moves the TAT forward so that
 * nothing is allowed before the hold ends and the requests after it go at the rate, not in a burst:
 * TAT = max(TAT, now + hold + T·b). A learned rate is stored with the TAT (`limit`); the rate a caller
 * passes (`take`'s `intervalMs`, say from an advertised policy) is used with it, the slower winning.
 * With no rate at all only a hold paces, and a request that nothing paces writes nothing.
 *
 * State `[tat, intervalMs, intervalUntil]` (store times in ms).
 */
import type { SharedStore, StoreOperation, StoreResult } from './port.ts';
import { runOperation } from './run-operation.ts';

/**
 * `take`: arguments `[quantity, intervalMs, burst, maxWaitMs]` (`intervalMs` 0: only the learned
 * rate); result `[allowed (1/0), waitMs, remaining, resetAfterMs, intervalMs]`: the wait before the
 * booked slot (or, refused, before one would be allowed; −1 when none ever would: a quantity above
 * the burst), the requests still allowed at once (−1: no rate), when the state is back to idle, and
 * the interval in force.
 */
export const GCRA_TAKE: StoreOperation = {
  name: 'gcra.take',
  state: 'gcra@1',
  results: 5,
  apply(state, [quantity = 0, intervalMs = 0, burst = 0, maxWaitMs = 0], now) {
    const live = state?.length === 3 && state[2]! > now;
    const tat = state?.length === 3 ? state[0]! : now;
    const learned = live ? state[1]! : 0;
    const until = live ? state[2]! : 0;
    const interval = Math.max(0, intervalMs, learned);
    const tolerance = interval * (burst + 1);
    const increment = interval * quantity;
    const newTat = Math.max(tat, now) + increment;
    const wait = newTat - tolerance - now;
    const fits = increment <= tolerance;
    const allowed = fits && wait <= maxWaitMs;
    const resetAfter = Math.max(0, (allowed ? newTat : tat) - now);
    const remaining = interval > 0 ? Math.max(0, Math.floor((tolerance - resetAfter) / interval)) : -1;
    const waitMs = allowed ? Math.max(0, wait) : fits ? wait : -1;
    return {
      state: allowed && increment > 0 ? [newTat, learned, until] : undefined,
      ttlMs: Math.max(newTat, until) - now,
      result: [allowed ? 1 : 0, waitMs, remaining, resetAfter, interval],
    };
  },
  lua: `
  local quantity, interval_arg, burst, max_wait = args[1], args[2], args[3], args[4]
  local tat, learned, until_ = now, 0, 0
  if state and #state == 3 then
    tat = state[1]
    if state[3] > now then learned, until_ = state[2], state[3] end
  end
  local interval = math.max(0, interval_arg, learned)
  local tolerance = interval * (burst + 1)
  local increment = interval * quantity
  local new_tat = math.max(tat, now) + increment
  local wait = new_tat - tolerance - now
  local fits = increment <= tolerance
  local allowed = fits and wait <= max_wait
  local reset_after = math.max(0, tat - now)
  if allowed then reset_after = math.max(0, new_tat - now) end
  local remaining = -1
  if interval > 0 then remaining = math.max(0, math.floor((tolerance - reset_after) / interval)) end
  local wait_ms = -1
  if allowed then wait_ms = math.max(0, wait) elseif fits then wait_ms = wait end
  local new = nil
  if allowed and increment > 0 then new = { new_tat, learned, until_ } end
  local flag = 0
  if allowed then flag = 1 end
  return new, math.max(new_tat, until_) - now, { flag, wait_ms, remaining, reset_after, interval }`,
};

/**
 * `limit`: arguments `[holdMs, intervalMs, burst, rememberMs]`: hold the origin for `holdMs` (0: no
 * hold) and, when `intervalMs` > 0, store it as the learned rate for `rememberMs`. Result
 * `[holdLeftMs, intervalMs]`: how long until the next request is allowed, and the learned interval.
 */
export const GCRA_LIMIT: StoreOperation = {
  name: 'gcra.limit',
  state: 'gcra@1',
  results: 2,
  apply(state, [holdMs = 0, intervalMs = 0, burst = 0, rememberMs = 0], now) {
    const live = state?.length === 3 && state[2]! > now;
    let tat = state?.length === 3 ? state[0]! : now;
    let learned = live ? state[1]! : 0;
    let until = live ? state[2]! : 0;
    if (intervalMs > 0) {
      learned = intervalMs;
      until = now + rememberMs;
    }
    if (holdMs > 0) tat = Math.max(tat, now + holdMs + learned * burst);
    return {
      state: [tat, learned, until],
      ttlMs: Math.max(tat, until) - now,
      result: [Math.max(0, tat - learned * burst - now), learned],
    };
  },
  lua: `
  local hold, interval_arg, burst, remember = args[1], args[2], args[3], args[4]
  local tat, learned, until_ = now, 0, 0
  if state and #state == 3 then
    tat = state[1]
    if state[3] > now then learned, until_ = state[2], state[3] end
  end
  if interval_arg > 0 then
    learned = interval_arg
    until_ = now + remember
  end
  if hold > 0 then tat = math.max(tat, now + hold + learned * burst) end
  return { tat, learned, until_ }, math.max(tat, until_) - now, { math.max(0, tat - learned * burst - now), learned }`,
};

/** What {@link takePace} asks. */
export interface PaceRequest {
  /** Requests to book (0: only look). */
  readonly quantity: number;
  /** The caller's own interval, ms per request (0: only the learned one). */
  readonly intervalMs: number;
  /** Requests allowed back to back beyond the first. */
  readonly burst: number;
  /** The longest wait the caller accepts for a booked slot (0: redis-cell's allow or refuse). */
  readonly maxWaitMs: number;
}

/** The store's answer to {@link takePace}. */
export interface Pace {
  /**
   * Whether the requests may go: at once, or after `waitMs` (a slot booked within `maxWaitMs`).
   * Refused, nothing was booked.
   */
  readonly allowed: boolean;
  /** Allowed: the wait before the booked slot. Refused: before one would be allowed (−1: never). */
  readonly waitMs: number;
  /** Requests still allowed at once (−1: no rate paces the origin). */
  readonly remaining: number;
  /**
   * How long until the origin's pace is idle again, in ms: the whole burst is allowed at once then
   * (redis-cell's `reset_after`).
   */
  readonly resetAfterMs: number;
  /** The interval in force, ms per request (0: none). */
  readonly intervalMs: number;
}

/** Books (or refuses) `quantity` requests to `scope` on the fleet's pace. */
export const takePace = (
  store: SharedStore,
  scope: string,
  request: PaceRequest,
): Promise<StoreResult<Pace>> =>
  runOperation(
    store,
    GCRA_TAKE,
    scope,
    [request.quantity, request.intervalMs, request.burst, request.maxWaitMs],
    ([allowed = 0, waitMs = 0, remaining = 0, resetAfterMs = 0, intervalMs = 0]) => ({
      allowed: allowed === 1,
      waitMs,
      remaining,
      resetAfterMs,
      intervalMs,
    }),
  );

/** What {@link limitPace} tells the fleet. */
export interface PaceLimit {
  /** Nothing goes to the origin for this long, in ms (0: no hold). */
  readonly holdMs: number;
  /** The learned interval, ms per request (0: keep the one stored). */
  readonly intervalMs: number;
  /**
   * The burst the fleet's takes pass ({@link PaceRequest.burst}): a hold uses it up, so that the
   * requests that waited for the hold's end go at the rate, not all at once.
   */
  readonly burst: number;
  /** How long the learned interval is remembered, in ms. */
  readonly rememberMs: number;
}

/** The store's answer to {@link limitPace}. */
export interface PaceHold {
  /** How long until the next request is allowed, in ms. */
  readonly holdLeftMs: number;
  /** The learned interval now stored, ms per request (0: none is). */
  readonly intervalMs: number;
}

/** Tells the fleet's pace of `scope` of a hold and of a learned rate. */
export const limitPace = (
  store: SharedStore,
  scope: string,
  limit: PaceLimit,
): Promise<StoreResult<PaceHold>> =>
  runOperation(
    store,
    GCRA_LIMIT,
    scope,
    [limit.holdMs, limit.intervalMs, limit.burst, limit.rememberMs],
    ([holdLeftMs = 0, intervalMs = 0]) => ({ holdLeftMs, intervalMs }),
  );
