/**
 * The keep-alive race through undici (issue 36): a request written on a connection kept from an
 * earlier answer, which the server closes before any byte of the answer, fails with undici's
 * `SocketError` on a socket that had read that earlier answer; the interceptor reports it as
 * `staleConnection`, and the core retries a GET or a keyed POST without a budget token, and sends a
 * POST without a key once. A new connection the server closes is an ordinary failure. For undici
 * 8's `request()` and `fetch()` and Node's global fetch through an undici 7 agent, over HTTP/1.1
 * (TLS) and HTTP/2, against the scripted servers on 127.0.0.1.
 */
import type { RetryEvent, RetryInfo } from '@jitterbug/core';
import * as undici8 from 'undici';
import * as undici7 from 'undici7';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type H2ScriptedServer, startH2ScriptedServer } from '../../../test/support/h2-scripted-server.ts';
import type { ScriptedServer } from '../../../test/support/scripted-server.ts';
import { trustingAgentOptions } from '../../../test/support/tls.ts';
import { startTlsScriptedServer, type TlsScriptedServer } from '../../../test/support/tls-scripted-server.ts';
import { sleep as realSleep } from '../../core/src/sleep.ts';
import { retryInterceptor } from '../src/index.ts';

type ClientName = 'undici 8 request()' | 'undici 8 fetch()' | 'Node fetch + undici 7 Agent';
const CLIENTS: readonly ClientName[] = [
  'undici 8 request()',
  'undici 8 fetch()',
  'Node fetch + undici 7 Agent',
];

let h1: TlsScriptedServer;
let h2: H2ScriptedServer;
beforeAll(async () => {
  [h1, h2] = await Promise.all([startTlsScriptedServer(), startH2ScriptedServer()]);
});
afterAll(async () => {
  await Promise.all([h1.close(), h2.close()]);
});

/** A client on an agent of its own, with one budget token that no request refills. */
const clientOf = (name: ClientName, server: ScriptedServer & { readonly ca: string }, allowH2: boolean) => {
  const retried: [RetryEvent['reason'], number | undefined][] = [];
  const finished: RetryInfo[] = [];
  const undici = name === 'Node fetch + undici 7 Agent' ? undici7 : undici8;
  const agent = new undici.Agent(trustingAgentOptions(server.ca, { allowH2 }));
  const dispatcher = (agent as undici8.Agent).compose(
    retryInterceptor({
      random: () => 0,
      sleep: (_ms, signal) => realSleep(0, signal),
      budget: { burst: 1, ratio: 0 },
      onRetry: (event) => void retried.push([event.reason, event.budgetTokens]),
      onFinish: (info) => void finished.push(info),
    }),
  );
  const send = async (path: string, method = 'GET', headers: Record<string, string> = {}) => {
    const init = { method, headers, ...(method === 'POST' ? { body: 'payload' } : {}) };
    const url = `${server.url}${path}`;
    try {
      if (name === 'undici 8 request()') {
        const res = await undici8.request(url, { ...init, dispatcher });
        return { status: res.statusCode, body: await res.body.text(), info: finished.at(-1) };
      }
      const run = (name === 'undici 8 fetch()' ? undici8.fetch : globalThis.fetch) as (
        url: string,
        init: object,
      ) => Promise<Response>;
      const res = await run(url, { ...init, dispatcher });
      return { status: res.status, body: await res.text(), info: finished.at(-1) };
    } catch (error) {
      return { status: undefined, body: undefined, error, info: finished.at(-1) };
    }
  };
  /**
   * One request answered, its connection then idle and kept: undici checks an idle socket in a
   * later turn of the event loop before it writes to it again, and meanwhile sends a new request on
   * a new connection, so the next request waits for that check to pass.
   */
  const warm = async (path: string) => {
    expect((await send(path)).status).toBe(200);
    await realSleep(20);
  };
  return { send, warm, retried, close: () => agent.close() };
};

describe.each(CLIENTS)('%s', (name) => {
  describe.each([
    ['HTTP/1.1', false],
    ['HTTP/2', true],
  ])('over %s', (protocol, allowH2) => {
    const server = () => (allowH2 ? h2 : h1);
    const lostThenAnswered = (path: string) =>
      server().route(path, [{ destroy: 'before-headers' }, { status: 200, body: 'answered' }]);
    const prefix = `/${name.replace(/\W+/g, '-')}-${protocol.replace(/\W+/g, '')}`;

    it('a GET lost on a kept connection is retried as stale-connection, and takes no budget token', async () => {
      const client = clientOf(name, server(), allowH2);
      try {
        await client.warm(`${prefix}/warm`);
        lostThenAnswered(`${prefix}/get`);
        const sent = await client.send(`${prefix}/get`);
        expect(sent).toMatchObject({ status: 200, body: 'answered' });
        expect(sent.info).toMatchObject({ attempts: 2, retries: ['stale-connection'] });
        expect(client.retried).toEqual([['stale-connection', 1]]);
      } finally {
        await client.close();
      }
    });

    it('a keyed POST too; a POST without a key is sent once', async () => {
      const client = clientOf(name, server(), allowH2);
      try {
        await client.warm(`${prefix}/warm`);
        lostThenAnswered(`${prefix}/keyed`);
        const keyed = await client.send(`${prefix}/keyed`, 'POST', { 'idempotency-key': 'k-1' });
        expect(keyed.info).toMatchObject({ attempts: 2, retries: ['stale-connection'] });
        lostThenAnswered(`${prefix}/post`);
        const post = await client.send(`${prefix}/post`, 'POST');
        expect(post).toMatchObject({ status: undefined });
        expect(post.info).toMatchObject({ attempts: 1, reason: 'method-not-idempotent' });
        expect(server().seen(`${prefix}/post`)).toHaveLength(1);
      } finally {
        await client.close();
      }
    });

    it('a GET lost on a new connection is an ordinary retry, which takes the token', async () => {
      const client = clientOf(name, server(), allowH2);
      try {
        lostThenAnswered(`${prefix}/fresh`);
        const sent = await client.send(`${prefix}/fresh`);
        expect(sent).toMatchObject({ status: 200, body: 'answered' });
        expect(sent.info).toMatchObject({ attempts: 2, retries: ['error'] });
        expect(client.retried).toEqual([['error', 0]]);
      } finally {
        await client.close();
      }
    });
  });
});
