/**
 * The Worker the workerd tests run (bundled by esbuild): it exports the store's object and two that
 * misbehave (one never answers, one answers nonsense), and runs the calls each test posts to it
 * through `durableObjectStore`, at once, answering their replies in order.
 */
import { STORE_OPERATIONS, type StoreOperation, type StoreReply } from '@jitterbug/core/store';
import {
  durableObjectStore,
  JitterbugStoreObject,
  type StoreObjectNamespace,
} from '@jitterbug/durable-object';

export { JitterbugStoreObject };

/** An object that takes every request and never answers it. */
export class SilentObject {
  fetch(): Promise<Response> {
    return new Promise(() => {});
  }
}

/** An object that answers every request with 200 and a body that is not a reply. */
export class GarbledObject {
  fetch(): Response {
    return Response.json({ result: ['one'], atMs: 'now' });
  }
}

interface Env {
  readonly STORE: StoreObjectNamespace;
  readonly SILENT: StoreObjectNamespace;
  readonly GARBLED: StoreObjectNamespace;
}

/** One call: which binding, which operation (by name; an unknown name is sent as it is), its scope and arguments. */
export interface Call {
  readonly binding: keyof Env;
  readonly operation: string;
  readonly scope: string;
  readonly args: readonly number[];
  readonly timeoutMs?: number;
}

/** A reply with the time the call took, as the Worker saw it. */
export type TimedReply = StoreReply & { readonly ms: number };

const operationNamed = (name: string): StoreOperation =>
  STORE_OPERATIONS.get(name) ?? { ...STORE_OPERATIONS.get('budget.lease')!, name };

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const { calls, sequential } = (await request.json()) as { calls: Call[]; sequential?: boolean };
    const stores = new Map<string, ReturnType<typeof durableObjectStore>>();
    const storeFor = (call: Call) => {
      const key = `${call.binding}:${call.timeoutMs}`;
      let store = stores.get(key);
      if (!store) {
        store = durableObjectStore(env[call.binding], { timeoutMs: call.timeoutMs ?? 1_000, pauseMs: 0 });
        stores.set(key, store);
      }
      return store;
    };
    const one = async (call: Call): Promise<TimedReply> => {
      const start = performance.now();
      const reply = await storeFor(call).run(operationNamed(call.operation), call.scope, call.args);
      // workerd's clock moves on I/O only; the reply's own time comes from the object.
      const { error, ...rest } = reply as StoreReply & { error?: unknown };
      return {
        ...rest,
        ...(error === undefined ? {} : { error: String(error) }),
        ms: performance.now() - start,
      } as TimedReply;
    };
    const replies: TimedReply[] = [];
    if (sequential) for (const call of calls) replies.push(await one(call));
    else replies.push(...(await Promise.all(calls.map(one))));
    return Response.json(replies);
  },
};
