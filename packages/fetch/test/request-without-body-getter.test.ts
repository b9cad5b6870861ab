/**
 * A `Request` input where `Request.prototype.body` does not exist (Firefox 153: its requests keep
 * their bodies in memory, and a stream given as a body becomes the text "[object ReadableStream]").
 * The engine decides how such a body replays when its module loads, so the module is loaded anew
 * with the getter removed from Node's `Request`; requests still go through Node's fetch to a real
 * loopback server. test/runtimes/ runs the same through ky in Firefox itself.
 */
import { createRetryPolicy, type RetryPolicy } from '@jitterbug/core';
import { Agent } from 'undici7';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ScriptedServer, startScriptedServer } from '../../../test/support/scripted-server.ts';
import { sleep as realSleep } from '../../core/src/sleep.ts';
import type * as EngineModule from '../src/engine-entry.ts';
import { getRetryInfo } from '../src/index.ts';

let server: ScriptedServer;
let agent: Agent;
let engine: typeof EngineModule;

beforeAll(async () => {
  server = await startScriptedServer();
  agent = new Agent();
  const getter = Object.getOwnPropertyDescriptor(Request.prototype, 'body');
  if (!getter) throw new Error("Node's Request has no body getter to remove");
  Reflect.deleteProperty(Request.prototype, 'body');
  try {
    vi.resetModules();
    engine = await import('../src/engine-entry.ts');
  } finally {
    Object.defineProperty(Request.prototype, 'body', getter);
  }
});
afterAll(async () => {
  await agent.close();
  await server.close();
});

const policy = (): RetryPolicy =>
  createRetryPolicy({ random: () => 0, sleep: (_ms, signal) => realSleep(0, signal) });
const send: EngineModule.FetchFunction = (input, init) =>
  fetch(input, { ...init, dispatcher: agent } as RequestInit);

/** Sends `request` through the engine as ky's adapter does, with its hint about the body. */
const execute = (request: Request, hint?: 'stream' | 'replayable') => {
  const call = new engine.Call(request, undefined, hint);
  const run = policy().begin({ method: call.method, url: call.url, headers: call.headers, body: call.body });
  return { call, response: engine.execute(send, call, run) };
};

describe('a Request whose body the runtime keeps in memory (Firefox)', () => {
  it('is sent once when the caller gave a stream (ky says so), even answered 503', async () => {
    server.route('/upload', [{ status: 503 }, { status: 200 }]);
    // What Firefox holds after `new Request(url, { body: stream })`.
    const request = new Request(`${server.url}/upload`, { method: 'PUT', body: '[object ReadableStream]' });
    const { call, response } = execute(request, 'stream');
    expect(call.body).toBe('stream');
    const answer = await response;
    expect(answer.status).toBe(503);
    await answer.arrayBuffer();
    expect(server.seen('/upload').map((r) => r.body.toString())).toEqual(['[object ReadableStream]']);
    expect(getRetryInfo(answer)).toMatchObject({ attempts: 1, reason: 'body-not-replayable' });
  });

  it('is cloned and sent again otherwise (its body is bytes in memory)', async () => {
    server.route('/put', [{ status: 503 }, { status: 200, body: 'stored' }]);
    const request = new Request(`${server.url}/put`, { method: 'PUT', body: 'v=1' });
    const { call, response } = execute(request);
    expect(call.body).toBe('replayable');
    const answer = await response;
    expect(await answer.text()).toBe('stored');
    expect(server.seen('/put').map((r) => r.body.toString())).toEqual(['v=1', 'v=1']);
    expect(getRetryInfo(answer)).toMatchObject({ attempts: 2, outcome: 'success' });
  });
});
