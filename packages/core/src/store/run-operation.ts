/**
 * How the core calls a store: whatever the store does (a store written for another backend may
 * throw, reject or answer the wrong shape), the caller gets a {@link StoreResult} and never an
 * exception, so that a feature can always fall back on its local state.
 */
import type { SharedStore, StoreOperation, StoreReply, StoreResult } from './port.ts';

const badReply = (operation: StoreOperation, reply: unknown): StoreReply => ({
  ok: false,
  failure: 'bad-reply',
  error: new TypeError(`${operation.name}: the store answered ${JSON.stringify(reply)}, not a reply`),
});

/** Whether a reply has the operation's shape: `ok` with `results` finite numbers and a finite time. */
const checked = (operation: StoreOperation, reply: unknown): StoreReply => {
  if (typeof reply !== 'object' || reply === null) return badReply(operation, reply);
  const r = reply as StoreReply;
  if (r.ok === false && typeof r.failure === 'string') return r;
  if (
    r.ok !== true ||
    !Number.isFinite(r.atMs) ||
    !Array.isArray(r.result) ||
    r.result.length !== operation.results ||
    !r.result.every(Number.isFinite)
  )
    return badReply(operation, reply);
  return r;
};

/**
 * Runs `operation` on `store` and reads its result with `read`. Never throws, never rejects: a store
 * that does is reported as a failure (`error`, or `bad-reply` for an answer of the wrong shape).
 */
export const runOperation = async <T>(
  store: SharedStore,
  operation: StoreOperation,
  scope: string,
  args: readonly number[],
  read: (result: readonly number[]) => T,
): Promise<StoreResult<T>> => {
  let reply: StoreReply;
  try {
    reply = checked(operation, await store.run(operation, scope, args));
  } catch (error) {
    return { ok: false, failure: 'error', error };
  }
  if (!reply.ok) return reply.error === undefined ? { ok: false, failure: reply.failure } : reply;
  return { ok: true, value: read(reply.result), atMs: reply.atMs };
};
