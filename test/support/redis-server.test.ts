/**
 * The Redis harness itself: the server it starts answers on its port, keeps nothing on disk, goes
 * away when stopped (a client is refused) and comes back on the same port empty, and leaves no
 * process and no folder after close. A missing redis-server fails saying how to install it.
 */
import { existsSync, readdirSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { alive, withEnv } from './child-process.ts';
import { REDIS_INSTALL_HINT, type RunningRedis, redisCommand, startRedis } from './redis-server.ts';

describe('redis-server started by a test', () => {
  let redis: RunningRedis | undefined;
  afterEach(async () => {
    await redis?.close();
    redis = undefined;
  });

  it('answers on 127.0.0.1 on its own port, and keeps what it is given while it runs', async () => {
    redis = await startRedis();
    expect(redis.url).toBe(`redis://127.0.0.1:${redis.port}`);
    expect(await redisCommand(redis.port, ['PING'])).toBe('+PONG\r\n');
    expect(await redisCommand(redis.port, ['SET', 'budget', '10'])).toBe('+OK\r\n');
    expect(await redisCommand(redis.port, ['INCRBY', 'budget', '5'])).toBe(':15\r\n');
    expect(await redisCommand(redis.port, ['GET', 'budget'])).toBe('$2\r\n15\r\n');
    // Nothing is ever saved to disk.
    expect(await redisCommand(redis.port, ['CONFIG', 'GET', 'save'])).toBe('*2\r\n$4\r\nsave\r\n$0\r\n\r\n');
    expect(await redisCommand(redis.port, ['CONFIG', 'GET', 'appendonly'])).toBe(
      '*2\r\n$10\r\nappendonly\r\n$2\r\nno\r\n',
    );
  });

  it('stops mid-test (clients are refused) and restarts on the same port, empty', async () => {
    redis = await startRedis();
    const { port } = redis;
    const first = redis.pid;
    await redisCommand(port, ['SET', 'k', 'v']);
    await redis.stop();
    expect(redis.running).toBe(false);
    expect(alive(first)).toBe(false);
    await expect(redisCommand(port, ['PING'])).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await redis.restart();
    expect(redis.running).toBe(true);
    expect(redis.pid).not.toBe(first);
    expect(redis.port).toBe(port);
    // Nothing was saved: `$-1` is a missing key.
    expect(await redisCommand(port, ['GET', 'k'])).toBe('$-1\r\n');
    expect(readdirSync(redis.dir)).toEqual(['redis.log']);
  });

  it('restarts a server that still runs (stopped first), and leaves no process and no folder after close', async () => {
    redis = await startRedis();
    const first = redis.pid;
    await redis.restart();
    expect(alive(first)).toBe(false);
    expect(await redisCommand(redis.port, ['PING'])).toBe('+PONG\r\n');
    const { pid, dir } = redis;
    await redis.close();
    await redis.close();
    expect(alive(pid)).toBe(false);
    expect(existsSync(dir)).toBe(false);
  });

  it('a missing redis-server fails saying how to install it', async () => {
    const start = withEnv('JITTERBUG_REDIS', '/nonexistent/redis-server', () => startRedis());
    await expect(start).rejects.toThrow(
      `redis-server is not installed: /nonexistent/redis-server does not exist; ${REDIS_INSTALL_HINT}`,
    );
  });
});
