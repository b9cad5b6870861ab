/**
 * The port a shared store implements: state that several processes read and change together (a
 * fleet's retry budget, its pacer, its circuit breaker). It has one method, `run`: apply one named
 * operation, atomically, to one key's state, on the store's own clock, in one round trip.
 *
 * Why one atomic operation rather than a get and a compare-and-set: an operation that runs where the
 * state is costs one round trip and never retries under contention (redis-cell's GCRA, a Lua script
 * in Redis, a method of a Durable Object); a compare-and-set port costs two round trips when nothing
 * contends and more when the fleet does, exactly when the state matters (an outage, a rate limit).
 * Why the store's clock: the operations compare times written by different hosts, and a host's own
 * clock may be seconds off; the store's is one clock for all of them. So no argument is a time of
 * day: a caller passes durations, and every reply says what time it was at the store.
 *
 * An operation is defined once, in the core, twice over: a JavaScript body (what the in-memory store
 * and a Durable Object execute) and a Lua body (what Redis and Valkey execute, reading `TIME` inside
 * the script). Both are a pure step `(state, args, now) → (new state, ttl, result)` over numbers; the
 * tests hold them to the same answers. A store adds only the reading, the single write and the clock
 * around the step (`applyOperation` in JavaScript, `luaScript` for Redis).
 */

/**
 * One operation: a pure step over one key's state. State, arguments and results are finite numbers,
 * so that every store can keep and pass them as text and both bodies compute them alike.
 */
export interface StoreOperation {
  /** What the operation is, unique among operations (`budget.lease`): a Durable Object finds it by it. */
  readonly name: string;
  /**
   * The state it works on, with its layout's version (`budget@1`): the last part of the key. Several
   * operations may share one state (the breaker's report, probe and settle).
   */
  readonly state: string;
  /** How many numbers a reply's result holds. */
  readonly results: number;
  /**
   * The step, in JavaScript. `state` is `undefined` when the key holds nothing, or nothing this
   * layout can read (expired, written by another version, damaged): a step starts afresh then.
   */
  readonly apply: (state: readonly number[] | undefined, args: readonly number[], nowMs: number) => StoreStep;
  /**
   * The same step in Lua 5.1: the body of `local function step(state, args, now)` returning
   * `new_state_or_nil, ttl_ms, result`, with the helpers of `LUA_PRELUDE` in scope.
   */
  readonly lua: string;
}

/** What a step decides. */
export interface StoreStep {
  /** The key's new state (`undefined`: unchanged, nothing written). */
  readonly state?: readonly number[] | undefined;
  /** How long the new state is kept, in ms (at least 1); past that the key holds nothing. */
  readonly ttlMs: number;
  /**
   * What the caller is told, `StoreOperation.results` finite numbers: the operation's whole answer,
   * as the caller cannot read the state itself.
   */
  readonly result: readonly number[];
}

/** Why a store could not answer. */
export type StoreFailure =
  /** No answer within the store's per-call timeout. */
  | 'timeout'
  /** Not connected, the connection refused or lost (nothing was queued for later). */
  | 'unavailable'
  /** Redis is loading its data set (`LOADING`), or the store is otherwise not ready. */
  | 'loading'
  /** An answer that is not the operation's result (its shape, its numbers). */
  | 'bad-reply'
  /** Not called: the store failed a moment ago and is left alone for a while (see its options). */
  | 'paused'
  /** Anything else the store reported (a script error, an unknown operation, a rejected call). */
  | 'error';

/**
 * A store's answer, as a value: a store never rejects and never hangs, so that a caller always has
 * something to fall back on within the store's timeout.
 */
export type StoreReply =
  | {
      /** The operation ran (and its write, if any, is kept). */
      readonly ok: true;
      /** The operation's result (`StoreOperation.results` numbers). */
      readonly result: readonly number[];
      /** The store's clock when the operation ran, in ms since the epoch. */
      readonly atMs: number;
    }
  | {
      /** The store did not answer; the caller falls back on its local state. */
      readonly ok: false;
      /** Why, as the caller needs it: away, slow, paused, or wrong (see {@link StoreFailure}). */
      readonly failure: StoreFailure;
      /** What the store or its client reported, for logs. */
      readonly error?: unknown;
    };

/** A reply's result, read as what an operation means (see `runOperation`). */
export type StoreResult<T> =
  | {
      /** The operation ran. */
      readonly ok: true;
      /** Its result, as the operation's reader made it (a `BudgetLease`, a `Pace`, …). */
      readonly value: T;
      /** The store's clock when the operation ran, in ms since the epoch. */
      readonly atMs: number;
    }
  | {
      /** The store did not answer, or answered what is not a reply; fall back on local state. */
      readonly ok: false;
      /** Why, as in {@link StoreReply}: a store that threw or rejected is an `error`. */
      readonly failure: StoreFailure;
      /** What the store or its client reported, for logs (absent when it reported nothing). */
      readonly error?: unknown;
    };

/** A shared store: see the module's comment, and "Shared stores" in the core's README. */
export interface SharedStore {
  /**
   * Applies `operation` atomically to the state of `scope` (an origin, or a name the user gives a
   * shared budget) with `args`, and answers with its result and the store's time; a failure is a
   * reply too. Never rejects.
   */
  run(operation: StoreOperation, scope: string, args: readonly number[]): Promise<StoreReply>;
}
