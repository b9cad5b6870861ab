/**
 * The keep-alive race through withRetry over Node's fetch (issue 36): a request written on a
 * connection kept from an earlier answer, which the server closes before any byte of the answer,
 * fails with `fetch failed` caused by undici's `SocketError` on a socket that had read that answer.
 * The engine reports it as `staleConnection`: a GET or a keyed POST is retried without a budget
 * token, a POST without a key is sent once, and a new connection the server closes is an ordinary
 * failure. Against the scripted server on 127.0.0.1, through an undici 7 agent of each test's own.
 */
import { createRetryPolicy, type RetryEvent } from '@jitterbug/core';
import { Agent } from 'undici7';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedServer, startScriptedServer } from '../../../test/support/scripted-server.ts';
import { sleep as realSleep } from '../../core/src/sleep.ts';
import { getRetryInfo, withRetry } from '../src/index.ts';

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(async () => {
  await server.close();
});

const lostThenAnswered = (path: string) =>
  server.route(path, [{ destroy: 'before-headers' }, { status: 200, body: 'answered' }]);

/** withRetry over Node's fetch on an agent of its own, with one budget token that no request refills. */
const clientOf = () => {
  const agent = new Agent();
  const retried: [RetryEvent['reason'], number | undefined][] = [];
  const fetchWithRetry = withRetry(
    ((input: RequestInfo | URL, init?: RequestInit) =>
      fetch(input, { ...init, dispatcher: agent } as RequestInit)) as typeof fetch,
    createRetryPolicy({
      random: () => 0,
      sleep: (_ms, signal) => realSleep(0, signal),
      budget: { burst: 1, ratio: 0 },
      onRetry: (event) => void retried.push([event.reason, event.budgetTokens]),
    }),
  );
  const send = (path: string, init: RequestInit = {}) =>
    fetchWithRetry(`${server.url}${path}`, init).then(
      async (response) => ({
        status: response.status,
        body: await response.text(),
        info: getRetryInfo(response),
      }),
      (error: unknown) => ({ status: undefined, body: undefined, info: getRetryInfo(error) }),
    );
  /** One request answered, then undici's check of the idle socket before it reuses it (a later turn). */
  const warm = async () => {
    expect((await send('/warm')).status).toBe(200);
    await realSleep(20);
  };
  return { send, warm, retried, close: () => agent.close() };
};

describe('withRetry over Node fetch: a connection lost before the answer', () => {
  it('a GET on a kept connection is retried as stale-connection, and takes no budget token', async () => {
    const client = clientOf();
    try {
      await client.warm();
      lostThenAnswered('/get');
      const sent = await client.send('/get');
      expect(sent).toMatchObject({ status: 200, body: 'answered' });
      expect(sent.info).toMatchObject({ attempts: 2, retries: ['stale-connection'] });
      expect(client.retried).toEqual([['stale-connection', 1]]);
    } finally {
      await client.close();
    }
  });

  it('a keyed POST too; a POST without a key is sent once', async () => {
    const client = clientOf();
    try {
      await client.warm();
      lostThenAnswered('/keyed');
      const keyed = await client.send('/keyed', {
        method: 'POST',
        body: 'order',
        headers: { 'Idempotency-Key': 'k-1' },
      });
      expect(keyed.info).toMatchObject({ attempts: 2, retries: ['stale-connection'] });
      lostThenAnswered('/post');
      const post = await client.send('/post', { method: 'POST', body: 'order' });
      expect(post).toMatchObject({ status: undefined });
      expect(post.info).toMatchObject({ attempts: 1, reason: 'method-not-idempotent' });
      expect(server.seen('/post')).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  it('a GET on a new connection is an ordinary retry, which takes the token', async () => {
    const client = clientOf();
    try {
      lostThenAnswered('/fresh');
      const sent = await client.send('/fresh');
      expect(sent.info).toMatchObject({ attempts: 2, retries: ['error'] });
      expect(client.retried).toEqual([['error', 0]]);
    } finally {
      await client.close();
    }
  });
});
