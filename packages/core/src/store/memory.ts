/**
 * The in-memory store: the port's reference implementation, for tests and the simulator, and for
 * several policies of one process that should share state as a fleet would. It keeps each key's text
 * as Redis would, with its expiry, and runs an operation synchronously (so atomically) on its own
 * clock.
 */
import { applyOperation } from './apply.ts';
import { argsWithinLimit, NUMBER_LIMIT } from './codec.ts';
import type { SharedStore, StoreOperation, StoreReply } from './port.ts';

/** Options of {@link createMemoryStore}. */
export interface MemoryStoreOptions {
  /** The store's clock, in ms since the epoch. Default `Date.now`. */
  readonly now?: () => number;
  /** Keys kept at most; past that the expired ones go, then the oldest. Default 10 000. */
  readonly maxKeys?: number;
}

/** The in-memory store, with what a test may look at. */
export interface MemoryStore extends SharedStore {
  /** The text a key of `scope` holds for `state` (an operation's `state`), as Redis would hold it. */
  peek(scope: string, state: string): string | undefined;
  /** Forgets every key, as a restarted store without persistence would. */
  clear(): void;
}

interface Entry {
  readonly text: string;
  readonly expiresAt: number;
}

/** Creates an in-memory store. */
export const createMemoryStore = (options: MemoryStoreOptions = {}): MemoryStore => {
  const now = options.now ?? Date.now;
  const maxKeys = options.maxKeys ?? 10_000;
  const entries = new Map<string, Entry>();
  const keyOf = (scope: string, state: string): string => `${scope}\u0000${state}`;

  const read = (key: string, at: number): string | undefined => {
    const entry = entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt > at) return entry.text;
    entries.delete(key);
    return undefined;
  };

  const makeRoom = (at: number): void => {
    if (entries.size < maxKeys) return;
    for (const [key, entry] of entries) if (entry.expiresAt <= at) entries.delete(key);
    // Insertion order: the first key is the one written longest ago.
    while (entries.size >= maxKeys) entries.delete(entries.keys().next().value as string);
  };

  const run = (operation: StoreOperation, scope: string, args: readonly number[]): StoreReply => {
    if (!argsWithinLimit(args))
      return {
        ok: false,
        failure: 'error',
        error: new TypeError(`${operation.name}: an argument is not a number within ${NUMBER_LIMIT}`),
      };
    const at = now();
    const key = keyOf(scope, operation.state);
    let applied: ReturnType<typeof applyOperation>;
    try {
      applied = applyOperation(operation, read(key, at), args, at);
    } catch (error) {
      return { ok: false, failure: 'error', error };
    }
    if (applied.write) {
      entries.delete(key);
      makeRoom(at);
      entries.set(key, { text: applied.write.text, expiresAt: at + applied.write.ttlMs });
    }
    return { ok: true, result: applied.result, atMs: at };
  };

  return {
    run: (operation, scope, args) => Promise.resolve(run(operation, scope, args)),
    peek: (scope, state) => read(keyOf(scope, state), now()),
    clear: () => entries.clear(),
  };
};
