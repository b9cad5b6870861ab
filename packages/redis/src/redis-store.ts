/**
 * A shared store over Redis or Valkey: each operation is a Lua script run with `EVALSHA` on one key,
 * `{scope}` hash-tagged so that a cluster finds it, on the server's clock (`TIME` inside the script).
 * One round trip per operation; after a restart or `SCRIPT FLUSH` the server answers `NOSCRIPT` once
 * and the call sends the script itself (`EVAL`, which also caches it).
 *
 * A call never waits longer than `timeoutMs`, and never rejects: a timeout, a client that is offline,
 * a refused connection, `LOADING`, an error reply or an answer of the wrong shape is a failure reply
 * the caller falls back on. Only a timeout costs the caller time (the client fails at once while it
 * is offline); after one the store is left alone for `pauseMs`, so that a Redis that stops answering
 * costs each process at most one timeout per pause rather than one per request.
 */
import { fail, numberIn } from '@jitterbug/core/adapter';
import {
  createCallGuard,
  parseNumber,
  type SharedStore,
  type StoreOperation,
  type StoreReply,
} from '@jitterbug/core/store';
import { createClient } from '@redis/client';
import { type RedisClientLike, type Send, senderOf } from './client.ts';
import { failureOf, isNoScript } from './failures.ts';
import { scriptOf } from './scripts.ts';

/** Options of {@link redisStore}. */
export interface RedisStoreOptions {
  /** The longest a call waits for Redis, in ms, `EVAL` after a `NOSCRIPT` included. Default 10. */
  readonly timeoutMs?: number;
  /** After a timeout, calls answer `paused` at once for this long, in ms. Default 1000; 0: never. */
  readonly pauseMs?: number;
  /** What every key starts with, before its `{scope}` hash tag. No braces. Default `jitterbug:`. */
  readonly prefix?: string;
}

/** A shared store over Redis. */
export interface RedisStore extends SharedStore {
  /** The key that holds `state` (an operation's `state`) of `scope`: `prefix{scope}:state`. */
  keyOf(scope: string, state: string): string;
  /** Closes the client the store created from a URL (a client passed in is the caller's to close). */
  close(): Promise<void>;
}

/** The defaults of {@link RedisStoreOptions}. */
export const REDIS_STORE_DEFAULTS = Object.freeze({ timeoutMs: 10, pauseMs: 1000, prefix: 'jitterbug:' });

/**
 * A client the store makes from a URL: no offline queue, errors kept rather than thrown, and a way
 * to wait for its first connection: calls made before it wait for it within their timeout, so that
 * a store made at start-up answers its first call. Once it connected, or failed to, a client that
 * is offline fails at once. A call that times out stops waiting (nothing is kept for it).
 */
const clientFor = (url: string) => {
  const client = createClient({ url, disableOfflineQueue: true });
  // node-redis emits every connection error; with no listener Node would throw it. The store learns
  // of an outage from its calls.
  client.on('error', () => {});
  let settled = false;
  const waiting = new Set<() => void>();
  const wakeAll = (): void => {
    settled = true;
    for (const wake of waiting) wake();
    waiting.clear();
  };
  client.once('ready', wakeAll);
  client.once('error', wakeAll);
  client.connect().catch(() => {});
  const firstConnection = (signal: AbortSignal): Promise<void> | undefined =>
    settled
      ? undefined
      : new Promise<void>((resolve) => {
          waiting.add(resolve);
          signal.addEventListener('abort', () => waiting.delete(resolve), { once: true });
        });
  return { client, firstConnection };
};

/** The reply a script's answer makes: `{now, ...result}` as text, or a `bad-reply`. */
const replyOf = (operation: StoreOperation, answer: unknown): StoreReply => {
  const numbers = Array.isArray(answer)
    ? answer.map((part) =>
        typeof part === 'string' ? parseNumber(part, Number.POSITIVE_INFINITY) : undefined,
      )
    : [];
  if (numbers.length !== operation.results + 1 || numbers.some((n) => n === undefined))
    return {
      ok: false,
      failure: 'bad-reply',
      error: new TypeError(`${operation.name}: Redis answered ${JSON.stringify(answer)}`),
    };
  const [atMs, ...result] = numbers as number[];
  return { ok: true, result, atMs: atMs! };
};

/**
 * Creates a store over Redis or Valkey: from a `redis://` or `rediss://` URL (the store makes its
 * node-redis client and closes it on `close()`), or from a node-redis client or cluster of yours,
 * created with `disableOfflineQueue: true`.
 *
 * @throws TypeError naming the option when the client or an option is invalid.
 */
export const redisStore = (
  urlOrClient: string | RedisClientLike,
  options: RedisStoreOptions = {},
): RedisStore => {
  const timeoutMs = numberIn(options.timeoutMs ?? REDIS_STORE_DEFAULTS.timeoutMs, 'timeoutMs', 1, 60_000);
  const pauseMs = numberIn(options.pauseMs ?? REDIS_STORE_DEFAULTS.pauseMs, 'pauseMs', 0, 3_600_000);
  const prefix = options.prefix ?? REDIS_STORE_DEFAULTS.prefix;
  if (typeof prefix !== 'string' || /[{}]/.test(prefix)) fail('prefix', 'a string without { or }', prefix);
  let owned: ReturnType<typeof clientFor>['client'] | undefined;
  let firstConnection: ReturnType<typeof clientFor>['firstConnection'] = () => undefined;
  let send: Send;
  if (typeof urlOrClient === 'string') {
    if (!/^rediss?:\/\//.test(urlOrClient))
      fail('redisStore', 'a redis:// or rediss:// URL, or a node-redis client', urlOrClient);
    const made = clientFor(urlOrClient);
    owned = made.client;
    firstConnection = made.firstConnection;
    send = senderOf(owned, 'redisStore');
  } else send = senderOf(urlOrClient, 'redisStore');

  const keyOf = (scope: string, state: string): string => `${prefix}{${scope}}:${state}`;

  const evaluate = async (operation: StoreOperation, key: string, args: string[], signal: AbortSignal) => {
    const script = scriptOf(operation);
    try {
      return await send(key, ['EVALSHA', script.sha, '1', key, ...args], signal);
    } catch (error) {
      if (!isNoScript(error)) throw error;
      return send(key, ['EVAL', script.text, '1', key, ...args], signal);
    }
  };

  const guard = createCallGuard({ timeoutMs, pauseMs });
  const run = (operation: StoreOperation, scope: string, args: readonly number[]): Promise<StoreReply> =>
    guard(operation, args, async (signal) => {
      const key = keyOf(scope, operation.state);
      const text = args.map(String);
      try {
        await firstConnection(signal);
        return replyOf(operation, await evaluate(operation, key, text, signal));
      } catch (error) {
        return { ok: false, failure: failureOf(error), error };
      }
    });

  return {
    run,
    keyOf,
    // At once, not QUIT: a QUIT would wait behind commands a frozen server never answers, and a
    // store has nothing to flush.
    async close() {
      if (owned?.isOpen) owned.destroy();
      owned = undefined;
    },
  };
};
