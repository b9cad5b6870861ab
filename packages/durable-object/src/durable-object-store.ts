/**
 * A shared store in Workers: one Durable Object per scope (`idFromName(scope)`), each operation
 * posted to it by name and run inside it (see `store-object.ts`). A call never rejects and never
 * outlasts `timeoutMs`; after a timeout the store answers `paused` for `pauseMs`.
 */
import { numberIn } from '@jitterbug/core/adapter';
import {
  createCallGuard,
  type SharedStore,
  type StoreOperation,
  type StoreReply,
} from '@jitterbug/core/store';
import { RUN_URL, type RunAnswer } from './protocol.ts';

/** The part of a `DurableObjectNamespace` binding the store uses. */
export interface StoreObjectNamespace<Id = unknown> {
  /**
   * The id of the object named `name`: the store names each object by its scope, so that every
   * Worker that uses one scope reaches the same object, wherever it runs.
   */
  idFromName(name: string): Id;
  /** A stub of the object `id`: what the store posts each operation to. */
  get(id: Id): {
    /**
     * Sends a request to the object, which runs its `fetch`: the store posts a `RunRequest`
     * with the call's `signal`, so that a call that times out is abandoned.
     */
    fetch(input: string, init?: RequestInit): Promise<Response>;
  };
}

/** Options of {@link durableObjectStore}. */
export interface DurableObjectStoreOptions {
  /** The longest a call waits for the object, in ms. Default 100. */
  readonly timeoutMs?: number;
  /** After a timeout, calls answer `paused` at once for this long, in ms. Default 1000; 0: never. */
  readonly pauseMs?: number;
}

/** The defaults of {@link DurableObjectStoreOptions}. */
export const DURABLE_OBJECT_STORE_DEFAULTS = Object.freeze({ timeoutMs: 100, pauseMs: 1000 });

const readAnswer = async (operation: StoreOperation, response: Response): Promise<StoreReply> => {
  const text = await response.text();
  if (response.status !== 200)
    return { ok: false, failure: 'error', error: new Error(`${operation.name}: ${response.status} ${text}`) };
  let body: RunAnswer;
  try {
    body = JSON.parse(text) as RunAnswer;
  } catch {
    body = {} as RunAnswer;
  }
  if (
    typeof body !== 'object' ||
    body === null ||
    !Number.isFinite(body.atMs) ||
    !Array.isArray(body.result) ||
    body.result.length !== operation.results ||
    !body.result.every(Number.isFinite)
  )
    return {
      ok: false,
      failure: 'bad-reply',
      error: new TypeError(`${operation.name}: the object answered ${text}`),
    };
  return { ok: true, result: body.result, atMs: body.atMs };
};

/**
 * Creates a store over a Durable Object namespace bound to {@link JitterbugStoreObject}.
 *
 * @throws TypeError naming the option when an option is invalid.
 */
export const durableObjectStore = <Id>(
  namespace: StoreObjectNamespace<Id>,
  options: DurableObjectStoreOptions = {},
): SharedStore => {
  const timeoutMs = numberIn(
    options.timeoutMs ?? DURABLE_OBJECT_STORE_DEFAULTS.timeoutMs,
    'timeoutMs',
    1,
    60_000,
  );
  const pauseMs = numberIn(options.pauseMs ?? DURABLE_OBJECT_STORE_DEFAULTS.pauseMs, 'pauseMs', 0, 3_600_000);
  const guard = createCallGuard({ timeoutMs, pauseMs, now: Date.now });
  return {
    run: (operation, scope, args) =>
      guard(operation, args, async (signal) => {
        try {
          const stub = namespace.get(namespace.idFromName(scope));
          const response = await stub.fetch(RUN_URL, {
            method: 'POST',
            body: JSON.stringify({ operation: operation.name, args }),
            signal,
          });
          return await readAnswer(operation, response);
        } catch (error) {
          return { ok: false, failure: 'unavailable', error };
        }
      }),
  };
};
