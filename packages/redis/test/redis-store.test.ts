/**
 * `redisStore` against Debian's redis-server, started by the test on 127.0.0.1 and stopped by pid:
 * its operations run as scripts on `{scope}` keys on the server's clock, agree with the JavaScript
 * bodies, reload after `SCRIPT FLUSH` and after a restart, and every call returns within its
 * timeout when the server is killed, restarted or frozen. The failures a real Redis cannot be made
 * to give on demand (`LOADING`, a reply of the wrong shape, a connection that never answers) come
 * from a scripted RESP server (`support/resp-server.ts`).
 */
import { createHash } from 'node:crypto';
import {
  applyOperation,
  BREAKER_PROBE,
  BREAKER_REPORT,
  BREAKER_SETTLE,
  BUDGET_LEASE,
  GCRA_LIMIT,
  GCRA_TAKE,
  luaScript,
  type StoreOperation,
  type StoreReply,
} from '@jitterbug/core/store';
import { REDIS_STORE_DEFAULTS, type RedisStore, redisStore } from '@jitterbug/redis';
import { createClient } from '@redis/client';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePorts } from '../../../test/support/child-process.ts';
import { type RunningRedis, redisCommand, startRedis } from '../../../test/support/redis-server.ts';
import { array, errorReply, type RespServer, startRespServer } from './support/resp-server.ts';

/** How much later than its timeout a call may return before it counts as hanging (a loaded machine). */
const SLACK_MS = 250;

let redis: RunningRedis;
const stores: RedisStore[] = [];
const servers: RespServer[] = [];
const made = (store: RedisStore): RedisStore => {
  stores.push(store);
  return store;
};

beforeAll(async () => {
  redis = await startRedis();
});

afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(stores.splice(0).map((s) => s.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

afterAll(async () => {
  await redis?.close();
});

/** A RESP reply's text, read back: a bulk string's content, or the line of anything else. */
const text = (reply: string): string | undefined =>
  reply.startsWith('$-1') ? undefined : reply.startsWith('$') ? reply.split('\r\n')[1] : reply.trim();

/** The server's clock, in ms. */
const serverTime = async (): Promise<number> => {
  const [, , seconds, , micros] = (await redisCommand(redis.port, ['TIME'])).split('\r\n');
  return Number(seconds) * 1000 + Number(micros) / 1000;
};

/** A call's reply and how long it took. */
const timed = async (store: RedisStore, operation: StoreOperation, args: readonly number[], scope = 'o') => {
  const start = performance.now();
  const reply = await store.run(operation, scope, args);
  return { reply, ms: performance.now() - start };
};

const sha = (operation: StoreOperation): string =>
  createHash('sha1').update(luaScript(operation)).digest('hex');

const WINDOW = 10_000;
const calls: readonly (readonly [StoreOperation, readonly number[]])[] = [
  [BUDGET_LEASE, [0, 3, 10, 60_000]],
  [BUDGET_LEASE, [0.5, 8, 10, 60_000]],
  [GCRA_LIMIT, [2_000, 100, 2, 60_000]],
  [GCRA_TAKE, [1, 0, 2, 5_000]],
  [GCRA_TAKE, [1, 0, 2, 0]],
  [BREAKER_REPORT, [11, 1, WINDOW, 2, 50, 60_000]],
  [BREAKER_REPORT, [12, 1, WINDOW, 2, 50, 60_000]],
  [BREAKER_PROBE, [11, 1_000, 60_000]],
  [BREAKER_PROBE, [12, 1_000, 60_000]],
  [BREAKER_SETTLE, [12, 1, 50, 60_000]],
];

describe('redisStore on a real Redis', () => {
  it('runs each operation as one script on prefix{scope}:state, and agrees with the JavaScript body at the server’s time', async () => {
    const store = made(redisStore(redis.url, { timeoutMs: 1_000 }));
    const scope = `https://api.example.com:${redis.port}`;
    for (const [operation, args] of calls) {
      if (operation === BREAKER_PROBE) await new Promise((r) => setTimeout(r, 60));
      const key = store.keyOf(scope, operation.state);
      expect(key).toBe(`jitterbug:{${scope}}:${operation.state}`);
      const before = text(await redisCommand(redis.port, ['GET', key]));
      const reply = await store.run(operation, scope, args);
      if (!reply.ok) throw new Error(`${operation.name}: ${reply.failure} ${String(reply.error)}`);
      const js = applyOperation(operation, before, args, reply.atMs);
      expect(reply.result).toEqual(js.result);
      const after = text(await redisCommand(redis.port, ['GET', key]));
      expect(after === undefined ? undefined : after.split(' ').map(Number)).toEqual(
        (js.write?.text ?? before)?.split(' ').map(Number),
      );
    }
  });

  it('takes its time from the server: a host clock 5 s ahead or behind changes no answer', async () => {
    const answers = async (skewMs: number) => {
      const hostNow = Date.now.bind(Date);
      vi.spyOn(Date, 'now').mockImplementation(() => hostNow() + skewMs);
      const store = made(redisStore(redis.url, { timeoutMs: 1_000 }));
      const scope = `skew${skewMs}`;
      const seen: number[][] = [];
      for (let i = 0; i < 4; i++) {
        const before = await serverTime();
        const reply = await store.run(GCRA_TAKE, scope, [1, 10_000, 1, 0]);
        if (!reply.ok) throw new Error(reply.failure);
        expect(reply.atMs).toBeGreaterThanOrEqual(before);
        expect(reply.atMs).toBeLessThanOrEqual(await serverTime());
        // allowed, and the remaining count: what decides (the waits move with the real time).
        seen.push([reply.result[0]!, reply.result[2]!]);
      }
      vi.restoreAllMocks();
      return seen;
    };
    const straight = await answers(0);
    expect(straight).toEqual([
      [1, 1],
      [1, 0],
      [0, 0],
      [0, 0],
    ]);
    expect(await answers(5_000)).toEqual(straight);
    expect(await answers(-5_000)).toEqual(straight);
  });

  it('sends the script itself once after SCRIPT FLUSH (NOSCRIPT), then EVALSHA again', async () => {
    const store = made(redisStore(redis.url, { timeoutMs: 1_000 }));
    expect((await store.run(BUDGET_LEASE, 'flush', [0, 1, 10, 60_000])).ok).toBe(true);
    await redisCommand(redis.port, ['SCRIPT', 'FLUSH']);
    expect(await redisCommand(redis.port, ['SCRIPT', 'EXISTS', sha(BUDGET_LEASE)])).toBe('*1\r\n:0\r\n');
    expect(await store.run(BUDGET_LEASE, 'flush', [0, 1, 10, 60_000])).toMatchObject({
      ok: true,
      result: [1, 8],
    });
    expect(await redisCommand(redis.port, ['SCRIPT', 'EXISTS', sha(BUDGET_LEASE)])).toBe('*1\r\n:1\r\n');
  });

  it('refuses an argument past the limit without calling Redis, and without pausing', async () => {
    const store = made(redisStore(redis.url, { timeoutMs: 1_000 }));
    expect(await store.run(BUDGET_LEASE, 'o', [Number.NaN, 1, 10, 1])).toMatchObject({
      ok: false,
      failure: 'error',
    });
    expect((await store.run(BUDGET_LEASE, 'o', [0, 1, 10, 1])).ok).toBe(true);
  });

  it('a call that fails in the script leaves the key as it was; text of no layout is taken as no state', async () => {
    const store = made(redisStore(redis.url, { timeoutMs: 1_000 }));
    const key = store.keyOf('damaged', BUDGET_LEASE.state);
    // A key of another type: GET fails inside the script, before anything is written.
    await redisCommand(redis.port, ['HSET', key, 'field', 'value']);
    expect(await store.run(BUDGET_LEASE, 'damaged', [0, 1, 10, 60_000])).toMatchObject({
      ok: false,
      failure: 'error',
    });
    expect(await redisCommand(redis.port, ['HGET', key, 'field'])).toBe('$5\r\nvalue\r\n');
    // Text that is not the layout: a fresh bucket, written over.
    await redisCommand(redis.port, ['SET', key, '12 x']);
    expect(await store.run(BUDGET_LEASE, 'damaged', [0, 1, 10, 60_000])).toMatchObject({
      ok: true,
      result: [1, 9],
    });
    expect(text(await redisCommand(redis.port, ['GET', key]))).toBe('9');
  });

  it('works through a client of yours, and leaves it open on close', async () => {
    const client = createClient({ url: redis.url, disableOfflineQueue: true });
    client.on('error', () => {});
    await client.connect();
    try {
      const store = redisStore(client, { prefix: 'mine:', timeoutMs: 1_000 });
      expect(store.keyOf('a', 'budget@1')).toBe('mine:{a}:budget@1');
      expect((await store.run(BUDGET_LEASE, 'a', [0, 1, 10, 60_000])).ok).toBe(true);
      await store.close();
      expect(await client.sendCommand(['GET', 'mine:{a}:budget@1'])).toBe('9');
    } finally {
      await client.close();
    }
  });
});

describe('redisStore when Redis goes away', () => {
  it('killed and restarted mid-run: every call returns within its timeout and none rejects; after the restart it answers again, NOSCRIPT handled', async () => {
    const timeoutMs = 50;
    const store = made(redisStore(redis.url, { timeoutMs, pauseMs: 0 }));
    const outcomes: { reply: StoreReply; ms: number; phase: string }[] = [];
    let phase = 'up';
    let running = true;
    const worker = async () => {
      while (running) {
        outcomes.push({ ...(await timed(store, BUDGET_LEASE, [0.1, 1, 10, 60_000], 'restart')), phase });
        await new Promise((r) => setTimeout(r, 5));
      }
    };
    const workers = [worker(), worker(), worker()];
    await new Promise((r) => setTimeout(r, 100));
    phase = 'down';
    process.kill(redis.pid, 'SIGKILL');
    await redis.stop();
    await new Promise((r) => setTimeout(r, 300));
    await redis.restart();
    phase = 'back';
    // Until a few calls after the restart have been answered (the client reconnects on its own).
    for (let i = 0; i < 200 && outcomes.filter((o) => o.phase === 'back' && o.reply.ok).length < 10; i++)
      await new Promise((r) => setTimeout(r, 25));
    running = false;
    await Promise.all(workers);

    for (const o of outcomes) expect(o.ms).toBeLessThan(timeoutMs + SLACK_MS);
    const up = outcomes.filter((o) => o.phase === 'up');
    const down = outcomes.filter((o) => o.phase === 'down');
    const back = outcomes.filter((o) => o.phase === 'back');
    expect(up.length).toBeGreaterThan(0);
    expect(up.every((o) => o.reply.ok)).toBe(true);
    expect(down.length).toBeGreaterThan(0);
    for (const o of down) if (!o.reply.ok) expect(['unavailable', 'timeout']).toContain(o.reply.failure);
    expect(down.some((o) => !o.reply.ok)).toBe(true);
    expect(back.filter((o) => o.reply.ok).length).toBeGreaterThanOrEqual(10);
    // The new server knew no script: each call that met NOSCRIPT (the first of each worker, at most,
    // as they run at once) sent it with EVAL, and every later call used EVALSHA.
    const stats = await redisCommand(redis.port, ['INFO', 'commandstats']);
    const evals = Number(/cmdstat_eval:calls=(\d+),/.exec(stats)?.[1]);
    const noScript = Number(/cmdstat_evalsha:calls=\d+,.*failed_calls=(\d+)/.exec(stats)?.[1]);
    expect(evals).toBeGreaterThanOrEqual(1);
    expect(evals).toBeLessThanOrEqual(workers.length);
    expect(noScript).toBe(evals);
    expect(Number(/cmdstat_evalsha:calls=(\d+),/.exec(stats)?.[1])).toBeGreaterThan(noScript);
  });

  it('frozen (SIGSTOP): calls time out within their timeout, and it answers again after SIGCONT', async () => {
    const store = made(redisStore(redis.url, { timeoutMs: 30, pauseMs: 0 }));
    while (!(await store.run(BUDGET_LEASE, 'freeze', [0, 0, 10, 60_000])).ok)
      await new Promise((r) => setTimeout(r, 20));
    process.kill(redis.pid, 'SIGSTOP');
    try {
      for (let i = 0; i < 5; i++) {
        const { reply, ms } = await timed(store, BUDGET_LEASE, [0, 1, 10, 60_000], 'freeze');
        expect(reply).toEqual({ ok: false, failure: 'timeout' });
        expect(ms).toBeLessThan(30 + SLACK_MS);
      }
    } finally {
      process.kill(redis.pid, 'SIGCONT');
    }
    let reply: StoreReply = { ok: false, failure: 'timeout' };
    for (let i = 0; i < 50 && !reply.ok; i++)
      reply = await store.run(BUDGET_LEASE, 'freeze', [0, 0, 10, 60_000]);
    expect(reply.ok).toBe(true);
  });

  it('nothing listening: unavailable at once, never queued', async () => {
    const [port] = await freePorts(1);
    const store = made(redisStore(`redis://127.0.0.1:${port}`, { timeoutMs: 1_000 }));
    const { reply, ms } = await timed(store, BUDGET_LEASE, [0, 1, 10, 60_000]);
    expect(reply).toMatchObject({ ok: false, failure: 'unavailable' });
    expect(ms).toBeLessThan(1_000);
  });
});

describe('redisStore against a scripted RESP server', () => {
  const scripted = async (evalAnswer: (command: string[]) => string | 'never') => {
    const server = await startRespServer((command) =>
      command[0] === 'EVALSHA' || command[0] === 'EVAL' ? evalAnswer(command) : undefined,
    );
    servers.push(server);
    return server;
  };
  /** Calls until the client has connected (a first call may find it still offline). */
  const firstAnswer = async (store: RedisStore, server: RespServer): Promise<StoreReply> => {
    for (let i = 0; i < 100; i++) {
      const reply = await store.run(BUDGET_LEASE, 'o', [0, 1, 10, 60_000]);
      if (server.commands.some((c) => c[0] === 'EVALSHA')) return reply;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error('the store never sent a script');
  };

  it('LOADING is loading; a server that is away (CLUSTERDOWN) unavailable; another error reply an error', async () => {
    for (const [reply, failure] of [
      [errorReply('LOADING Redis is loading the dataset in memory'), 'loading'],
      [errorReply('CLUSTERDOWN The cluster is down'), 'unavailable'],
      [errorReply('ERR something else'), 'error'],
    ] as const) {
      const server = await scripted(() => reply);
      const store = made(redisStore(server.url, { timeoutMs: 1_000, pauseMs: 0 }));
      expect(await firstAnswer(store, server)).toMatchObject({ ok: false, failure });
    }
  });

  it('a reply of the wrong shape is a bad reply', async () => {
    for (const reply of [
      ':5\r\n',
      array(['1', '2']),
      array(['1', 'x', '3']),
      array(['1', '2', '3', '4']),
      '$1\r\n7\r\n',
    ]) {
      const server = await scripted(() => reply);
      const store = made(redisStore(server.url, { timeoutMs: 1_000, pauseMs: 0 }));
      expect(await firstAnswer(store, server)).toMatchObject({ ok: false, failure: 'bad-reply' });
    }
  });

  it('a connection that never answers times out, within the default timeout of 10 ms', async () => {
    expect(REDIS_STORE_DEFAULTS.timeoutMs).toBe(10);
    const server = await scripted(() => 'never');
    const store = made(redisStore(server.url, { pauseMs: 0 }));
    await firstAnswer(store, server);
    for (let i = 0; i < 5; i++) {
      const { reply, ms } = await timed(store, BUDGET_LEASE, [0, 1, 10, 60_000]);
      expect(reply).toEqual({ ok: false, failure: 'timeout' });
      expect(ms).toBeLessThan(10 + SLACK_MS);
    }
  });

  it('after a failure it pauses: the calls answer paused without a command, then it tries again', async () => {
    const server = await scripted(() => 'never');
    const store = made(redisStore(server.url, { timeoutMs: 20, pauseMs: 150 }));
    await firstAnswer(store, server);
    const sent = () => server.commands.filter((c) => c[0] === 'EVALSHA').length;
    const before = sent();
    expect(await store.run(BUDGET_LEASE, 'o', [0, 1, 10, 60_000])).toEqual({ ok: false, failure: 'paused' });
    expect(sent()).toBe(before);
    await new Promise((r) => setTimeout(r, 200));
    expect(await store.run(BUDGET_LEASE, 'o', [0, 1, 10, 60_000])).toEqual({ ok: false, failure: 'timeout' });
    expect(sent()).toBe(before + 1);
  });

  it('sends EVAL with the script after NOSCRIPT, within the same call', async () => {
    const server = await scripted((command) =>
      command[0] === 'EVALSHA' ? errorReply('NOSCRIPT No matching script.') : array(['1', '1', '9']),
    );
    const store = made(redisStore(server.url, { timeoutMs: 1_000, pauseMs: 0 }));
    expect(await firstAnswer(store, server)).toEqual({ ok: true, result: [1, 9], atMs: 1 });
    const evalCommand = server.commands.find((c) => c[0] === 'EVAL')!;
    expect(evalCommand.slice(2)).toEqual(['1', 'jitterbug:{o}:budget@1', '0', '1', '10', '60000']);
    expect(evalCommand[1]).toBe(luaScript(BUDGET_LEASE));
  });
});

describe('redisStore options', () => {
  it('refuses a client that queues commands while offline, naming the fix', () => {
    const client = createClient({ url: 'redis://127.0.0.1:1' });
    expect(() => redisStore(client)).toThrow(/disableOfflineQueue: true/);
  });

  it('refuses what is not a client or a redis URL, a prefix with braces, a timeout out of range', () => {
    expect(() => redisStore('http://127.0.0.1:6379')).toThrow(TypeError);
    expect(() => redisStore({} as never)).toThrow(/node-redis client/);
    expect(() => redisStore('redis://127.0.0.1:1', { prefix: 'a{b' })).toThrow(/prefix/);
    expect(() => redisStore('redis://127.0.0.1:1', { timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(() => redisStore('redis://127.0.0.1:1', { pauseMs: -1 })).toThrow(/pauseMs/);
  });
});
