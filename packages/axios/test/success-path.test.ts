/**
 * The success path's shortcuts: in stream mode (`discardedBodyCap`) a body that has fully arrived
 * is taken in one read (no flowing mode) and its connection still goes back to the pool; by
 * default nothing is read by jitterbug at all; the retrying adapter made once per `adapter` setting
 * still runs each request on its own setting.
 */
import { Agent, request as httpRequest, type IncomingMessage } from 'node:http';
import axios, { type AxiosAdapter, type AxiosResponse, type InternalAxiosRequestConfig } from 'axios';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedServer, startScriptedServer } from '../../../test/support/scripted-server.ts';
import { attachRetry, createDiscardedBodyCap, getRetryInfo } from '../src/index.ts';
import { readArrivedBody } from '../src/node/http-body.ts';
import { recordingSleep } from './helpers.ts';

let server: ScriptedServer;
const agents: Agent[] = [];
beforeAll(async () => {
  server = await startScriptedServer();
});
afterEach(() => {
  for (const a of agents.splice(0)) a.destroy();
  server.reset();
});
afterAll(async () => {
  await server.close();
});

/** A keep-alive agent that counts the connections it opens. */
const countingAgent = (): { agent: Agent; opened: () => number } => {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  agents.push(agent);
  let opened = 0;
  const create = agent.createConnection.bind(agent);
  agent.createConnection = ((...args: Parameters<typeof create>) => {
    opened++;
    return create(...args);
  }) as typeof agent.createConnection;
  return { agent, opened: () => opened };
};

/** A raw `IncomingMessage` for `path`, not yet read. */
const incoming = (path: string): Promise<IncomingMessage> =>
  new Promise((resolve, reject) => {
    const { port } = new URL(server.url);
    httpRequest({ host: '127.0.0.1', port, path, agent: false }, resolve).on('error', reject).end();
  });

const asResponse = (data: unknown): AxiosResponse =>
  ({ data, status: 200, statusText: 'OK', headers: {}, config: {}, request: {} }) as AxiosResponse;

describe('readArrivedBody', () => {
  it('takes a body that has fully arrived in one read, and the stream still ends', async () => {
    server.route('/whole', [{ status: 200, body: 'all of it' }]);
    const res = await incoming('/whole');
    await new Promise((r) => setTimeout(r, 20));
    expect(res.complete).toBe(true);
    const ended = new Promise<void>((r) => res.once('end', r));
    expect(readArrivedBody(asResponse(res))?.toString()).toBe('all of it');
    await ended;
  });

  it('an empty body that has arrived is an empty buffer', async () => {
    server.route('/empty', [{ status: 204 }]);
    const res = await incoming('/empty');
    await new Promise((r) => setTimeout(r, 20));
    expect(readArrivedBody(asResponse(res))).toEqual(Buffer.alloc(0));
  });

  it('leaves a body still arriving, a flowing stream and non-streams to the reader', async () => {
    server.route('/slow', [{ status: 200, bodyBytes: 8 * 1024 * 1024 }]);
    const res = await incoming('/slow');
    expect(res.complete).toBe(false);
    expect(readArrivedBody(asResponse(res))).toBeUndefined();
    res.resume();
    expect(readArrivedBody(asResponse(res))).toBeUndefined();
    res.destroy();
    expect(readArrivedBody(asResponse('text'))).toBeUndefined();
    expect(readArrivedBody(asResponse(null))).toBeUndefined();
  });
});

describe.each([
  ['by default', undefined],
  ['with discardedBodyCap', { discardedBodyCap: createDiscardedBodyCap() }],
] as const)('connections on the success path, %s', (_mode, attach) => {
  it('responses read at once free their connection: 20 GETs and a retried 503 use one socket', async () => {
    server.route('/ok', [
      { status: 200, body: '{"ok":true}', headers: { 'content-type': 'application/json' } },
    ]);
    server.route('/flaky', [
      { status: 503, body: 'busy' },
      { status: 200, body: 'ok' },
    ]);
    const { agent, opened } = countingAgent();
    const api = axios.create({ baseURL: server.url, httpAgent: agent });
    attachRetry(api, { sleep: recordingSleep([]) }, attach);
    for (let i = 0; i < 20; i++) expect((await api.get('/ok')).data).toEqual({ ok: true });
    expect((await api.get('/flaky')).data).toBe('ok');
    expect(server.seen('/flaky')).toHaveLength(2);
    expect(opened()).toBe(1);
  });
});

describe('adapter settings', () => {
  it('each request runs on its own adapter setting, and its config shows that setting', async () => {
    server.route('/which', () => ({ status: 200, body: 'ok' }));
    const custom: string[] = [];
    const http = axios.getAdapter('http');
    const mine = ((config: InternalAxiosRequestConfig) => {
      custom.push(String(config.url));
      return http(config);
    }) as AxiosAdapter;
    const api = axios.create({ baseURL: server.url });
    attachRetry(api, { sleep: recordingSleep([]) });
    const byDefault = await api.get('/which');
    const byFetch = await api.get('/which', { adapter: 'fetch' });
    const byMine = await api.get('/which', { adapter: mine });
    const byDefaultAgain = await api.get('/which');
    expect(byDefault.config.adapter).toEqual(axios.defaults.adapter);
    expect(byDefault.config.adapter).not.toBe(byDefaultAgain.config.adapter);
    expect(byFetch.config.adapter).toBe('fetch');
    expect(byFetch.data).toBe('ok');
    expect(byMine.config.adapter).toBe(mine);
    expect(custom).toEqual(['/which']);
    for (const r of [byDefault, byFetch, byMine, byDefaultAgain])
      expect(getRetryInfo(r)).toMatchObject({ attempts: 1, outcome: 'success' });
  });

  it('a custom adapter whose response carries no config still gets its retry info', async () => {
    const api = axios.create();
    attachRetry(api, { sleep: recordingSleep([]) });
    const bare = (async () => ({
      data: 1,
      status: 200,
      statusText: 'OK',
      headers: {},
    })) as unknown as AxiosAdapter;
    const response = await api.get('http://127.0.0.1:1/bare', { adapter: bare });
    expect(response.config).toBeUndefined();
    expect(getRetryInfo(response)).toMatchObject({ attempts: 1, outcome: 'success', status: 200 });
  });

  it('a URL object as the url (no base URL) is retried like a string', async () => {
    server.route('/as-url', [{ status: 503 }, { status: 200, body: 'ok' }]);
    const api = axios.create();
    attachRetry(api, { sleep: recordingSleep([]) });
    const response = await api.get(new URL(`${server.url}/as-url`) as unknown as string);
    expect(response.data).toBe('ok');
    expect(getRetryInfo(response)).toMatchObject({ attempts: 2, url: `${server.url}/as-url` });
  });

  it('a new adapter function per request is still retried with, however many there are', async () => {
    const http = axios.getAdapter('http');
    const api = axios.create({ baseURL: server.url });
    // 12 retries in a row: more than the default budget's burst.
    attachRetry(api, { sleep: recordingSleep([]), budget: { ratio: 1, burst: 100 } });
    let calls = 0;
    for (let i = 0; i < 12; i++) {
      server.route(`/f${i}`, [{ status: 503 }, { status: 200, body: `ok ${i}` }]);
      const adapter = ((config: InternalAxiosRequestConfig) => {
        calls++;
        return http(config);
      }) as AxiosAdapter;
      const response = await api.get(`/f${i}`, { adapter });
      expect(response.data).toBe(`ok ${i}`);
      expect(response.config.adapter).toBe(adapter);
    }
    expect(calls).toBe(24);
  });
});
