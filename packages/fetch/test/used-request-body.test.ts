/**
 * A `Request` input with a body that ky's adapter says is replayable, when the connection is lost
 * without an error code as in a browser: a request that may be sent again has its body read into
 * bytes once, and every attempt sends the `Request` with those bytes (never a clone: Chromium
 * abandons the upload of a cloned `Request`'s body when its connection goes away); one sent once
 * is sent as it is. A failure must not look like the caller's malformed request. Node's fetch sends
 * for real to a loopback server that destroys the connection; its error is then reported as a
 * browser reports it.
 */

import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { createRetryPolicy, type RetryPolicyOptions } from '@jitterbug/core';
import { Agent } from 'undici7';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ScriptedServer, startScriptedServer } from '../../../test/support/scripted-server.ts';
import { sleep as realSleep } from '../../core/src/sleep.ts';
import { Call, execute, type FetchFunction } from '../src/engine-entry.ts';
import { getRetryInfo } from '../src/index.ts';

let server: ScriptedServer;
let agent: Agent;
beforeAll(async () => {
  server = await startScriptedServer();
  agent = new Agent();
});
afterAll(async () => {
  await agent.close();
  await server.close();
});

/**
 * Node's fetch, failing as a browser's does: a network failure as a bare `TypeError('Failed to
 * fetch')`, no code, no cause; a request fetch refuses before sending with its own `TypeError`, as a
 * browser refuses it with its own words.
 */
const browserLike: FetchFunction = async (input, init) => {
  try {
    return await fetch(input, { ...init, dispatcher: agent } as RequestInit);
  } catch (error) {
    if ((error as Error).message === 'fetch failed') throw new TypeError('Failed to fetch');
    throw error;
  }
};

const send = async (request: Request, init?: RequestInit, options: RetryPolicyOptions = {}) => {
  const policy = createRetryPolicy({
    random: () => 0,
    sleep: (_ms, signal) => realSleep(0, signal),
    ...options,
  });
  const call = new Call(request, init, 'replayable');
  const run = policy.begin({ method: call.method, url: call.url, headers: call.headers, body: call.body });
  try {
    await execute(browserLike, call, run);
  } catch (error) {
    return { error, used: request.bodyUsed };
  }
  throw new Error('expected a rejection');
};

describe('a lost connection after the original Request was sent', () => {
  it('a POST without an idempotency key: not retried by the method rule', async () => {
    server.route('/charge', () => ({ destroy: 'before-headers' }));
    const { error, used } = await send(new Request(`${server.url}/charge`, { method: 'POST', body: 'x' }));
    expect(used).toBe(true);
    expect(error).toBeInstanceOf(TypeError);
    expect(getRetryInfo(error)).toMatchObject({ attempts: 1, reason: 'method-not-idempotent' });
    expect(server.seen('/charge')).toHaveLength(1);
  });

  it('a PUT: its body read once, every attempt sends it, and the run ends at max-attempts', async () => {
    server.route('/item', () => ({ destroy: 'before-headers' }));
    const request = new Request(`${server.url}/item`, { method: 'PUT', body: 'v=1' });
    const clone = vi.spyOn(Request.prototype, 'clone');
    const { error, used } = await send(request, undefined, { maxAttempts: 2 }).finally(() =>
      clone.mockRestore(),
    );
    expect(clone).not.toHaveBeenCalled();
    expect(used).toBe(true);
    expect(getRetryInfo(error)).toMatchObject({ attempts: 2, retries: ['error'], reason: 'max-attempts' });
    expect(server.seen('/item').map((r) => r.body.toString())).toEqual(['v=1', 'v=1']);
  });

  it('a POST to a refused connection: each transparent retry sends the body read once', async () => {
    // A port with nothing listening: the connection is refused, which proves nothing was sent.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const request = new Request(`http://127.0.0.1:${port}/charge`, { method: 'POST', body: '{"a":1}' });
    const call = new Call(request, undefined, 'replayable');
    const policy = createRetryPolicy({ sleep: (_ms, signal) => realSleep(0, signal) });
    const run = policy.begin({ method: call.method, url: call.url, headers: call.headers, body: call.body });
    const error = await execute((input, init) => fetch(input, init), call, run).catch((e: unknown) => e);
    // The connection's own error, not a complaint about a used body.
    expect((error as Error).message).toBe('fetch failed');
    expect((error as { cause?: { code?: string } }).cause?.code).toBe('ECONNREFUSED');
    expect(getRetryInfo(error)).toMatchObject({ attempts: 3, retries: ['unprocessed', 'unprocessed'] });
    expect(request.bodyUsed).toBe(true);
  });

  it.each([
    ['a bad header name', { headers: { 'bad header': 'x' } }],
    ['GET over a Request that has a body', { method: 'GET' }],
  ])(
    "still tells the caller's malformed init apart: %s (fetch refuses it before sending)",
    async (_what, init) => {
      const request = new Request(`${server.url}/never`, { method: 'PUT', body: 'x' });
      const { error, used } = await send(request, init);
      // Read for the retries a PUT may make, before fetch refused the init.
      expect(used).toBe(true);
      expect(getRetryInfo(error)).toMatchObject({ attempts: 1, reason: 'error-not-retryable' });
      expect(server.seen('/never')).toEqual([]);
    },
  );
});
