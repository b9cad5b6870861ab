/**
 * What a store that runs JavaScript does around an operation's step (the in-memory store, the
 * Durable Object): read the key's text, decode it, step, encode the new state. The same as the Lua
 * epilogue does in Redis, so that a store written for another backend in JavaScript needs only to
 * keep the text and call this atomically.
 */
import { decodeState, encodeState } from './codec.ts';
import type { StoreOperation } from './port.ts';

/** The most a state is kept: 30 days, longer than any step asks and well inside every store's range. */
export const MAX_TTL_MS = 30 * 24 * 3600 * 1000;

/** What applying an operation comes to: what to write (if anything) and what to answer. */
export interface AppliedOperation {
  /** The key's new text and for how long to keep it (`undefined`: write nothing). */
  readonly write:
    | {
        /** The new state as the store keeps it (`encodeState`): numbers separated by spaces. */
        readonly text: string;
        /**
         * How long the store keeps it, in ms: the step's ttl made a whole number from 1 to
         * `MAX_TTL_MS` (`keptFor`), so that every store can pass it to its own expiry.
         */
        readonly ttlMs: number;
      }
    | undefined;
  /** What the store answers as the reply's `result`: the step's numbers, `-0` read as `0`. */
  readonly result: readonly number[];
}

/** A step's ttl as a store keeps it: a whole number of ms from 1 to `MAX_TTL_MS`. */
export const keptFor = (ttlMs: number): number =>
  Math.min(MAX_TTL_MS, Math.max(1, Math.ceil(Number.isFinite(ttlMs) ? ttlMs : 1)));

/**
 * Applies `operation` to a key that holds `text` (`undefined`: nothing), at the store's `nowMs`.
 * Pure; the caller makes it atomic (a Durable Object's single thread, a synchronous map update).
 */
export const applyOperation = (
  operation: StoreOperation,
  text: string | undefined,
  args: readonly number[],
  nowMs: number,
): AppliedOperation => {
  const step = operation.apply(decodeState(text), args, nowMs);
  return {
    write:
      step.state === undefined ? undefined : { text: encodeState(step.state), ttlMs: keptFor(step.ttlMs) },
    result: step.result.map((n) => (n === 0 ? 0 : n)),
  };
};
