/**
 * The Durable Object that holds one scope's shared state (one object per origin, or per budget
 * name): each operation the core defines runs inside it, by name, on its own clock. The step and its
 * write to the object's in-memory copy happen with no `await` between them, so that the object's
 * single thread makes them atomic; the write then goes to the object's storage, and the output gate
 * holds the answer until storage has it. The copy is loaded from storage before the first request
 * (`blockConcurrencyWhile`), so a restarted object carries on where it was.
 */
import { applyOperation, STORE_OPERATIONS, type StoreOperation } from '@jitterbug/core/store';
import type { RunAnswer, RunRequest } from './protocol.ts';

/** What the object keeps per state: its text and when it expires, on the object's clock. */
interface Kept {
  readonly text: string;
  readonly expiresAt: number;
}

/** The part of `DurableObjectStorage` the object uses. */
export interface StoreObjectStorage {
  /** The value kept under `key` (`undefined`: none). */
  get<T>(key: string): Promise<T | undefined>;
  /**
   * Keeps `value` under `key`: the object writes each new state here after its in-memory copy, and
   * the output gate holds the answer until storage has it.
   */
  put<T>(key: string, value: T): Promise<void>;
  /** Forgets `key`: the object drops a state that expired when it reads it. */
  delete(key: string): Promise<boolean>;
  /** Every key and its value: what the object loads before its first request. */
  list<T>(): Promise<Map<string, T>>;
}

/** The part of `DurableObjectState` the object uses. */
export interface StoreObjectState {
  /** The object's own storage, where each scope's states outlive an eviction or a restart. */
  readonly storage: StoreObjectStorage;
  /**
   * Runs `callback` before any request reaches the object: the object loads its states from storage
   * this way, so that no operation steps from a state it has not read yet.
   */
  blockConcurrencyWhile<T>(callback: () => Promise<T>): Promise<T>;
}

const answer = (status: number, body: unknown): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

const isRunRequest = (value: unknown): value is RunRequest =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as RunRequest).operation === 'string' &&
  Array.isArray((value as RunRequest).args) &&
  (value as RunRequest).args.every((n) => typeof n === 'number');

/**
 * The Durable Object class: export it from your Worker and bind it (see the package's README).
 * `operations` are those it runs, by name: the core's by default.
 */
export class JitterbugStoreObject {
  readonly #storage: StoreObjectStorage;
  readonly #operations: ReadonlyMap<string, StoreOperation>;
  readonly #kept = new Map<string, Kept>();

  constructor(
    state: StoreObjectState,
    _env?: unknown,
    operations: ReadonlyMap<string, StoreOperation> = STORE_OPERATIONS,
  ) {
    this.#storage = state.storage;
    this.#operations = operations;
    void state.blockConcurrencyWhile(async () => {
      for (const [key, value] of await state.storage.list<Kept>()) this.#kept.set(key, value);
    });
  }

  /** Runs one operation: `POST` with a {@link RunRequest} body. */
  async fetch(request: Request): Promise<Response> {
    let body: unknown;
    try {
      body = await request.json();
    } catch {
      return answer(400, { error: 'the body is not JSON' });
    }
    if (!isRunRequest(body)) return answer(400, { error: 'the body is not { operation, args }' });
    const operation = this.#operations.get(body.operation);
    if (operation === undefined) return answer(404, { error: `no operation ${body.operation}` });
    // From here to the write, nothing awaits: no other request runs in between.
    const now = Date.now();
    const key = operation.state;
    let kept = this.#kept.get(key);
    if (kept !== undefined && kept.expiresAt <= now) {
      this.#kept.delete(key);
      void this.#storage.delete(key);
      kept = undefined;
    }
    let applied: ReturnType<typeof applyOperation>;
    try {
      applied = applyOperation(operation, kept?.text, body.args, now);
    } catch (error) {
      return answer(500, { error: String(error) });
    }
    if (applied.write) {
      const next = { text: applied.write.text, expiresAt: now + applied.write.ttlMs };
      this.#kept.set(key, next);
      await this.#storage.put(key, next);
    }
    return answer(200, { result: applied.result, atMs: now } satisfies RunAnswer);
  }
}
