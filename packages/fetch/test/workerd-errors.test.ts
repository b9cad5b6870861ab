/**
 * workerd's fetch failures, as test/runtimes/ saw them in workerd itself (miniflare): a connection
 * destroyed before any response byte, or refused, is `Error: Network connection lost.` with
 * `retryable: true` and `remote: true`; a host that does not resolve is `Error: internal error;
 * reference = <id>` with `remote: true` only; bad input is a `TypeError`. Here a fetch throws those
 * same shapes before handing over to Node's fetch and a real loopback server.
 */
import { createRetryPolicy } from '@jitterbug/core';
import { Agent } from 'undici7';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedServer, startScriptedServer } from '../../../test/support/scripted-server.ts';
import { sleep as realSleep } from '../../core/src/sleep.ts';
import { getRetryInfo, withRetry } from '../src/index.ts';

/** An error as workerd makes it: a plain `Error` with its own flags as own properties. */
const workerdError = (message: string, flags: Readonly<Record<string, boolean>>): Error =>
  Object.assign(new Error(message), flags);

const disconnected = () => workerdError('Network connection lost.', { remote: true, retryable: true });

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

/** Throws `errors` one per call, then sends for real. */
const failing = (...errors: Error[]) => {
  let calls = 0;
  const fetchLike = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const error = errors[calls++];
    if (error) throw error;
    return fetch(input, { ...init, dispatcher: agent } as RequestInit);
  }) as typeof fetch;
  return { fetchLike, calls: () => calls };
};

const client = (inner: typeof fetch) =>
  withRetry(inner, createRetryPolicy({ random: () => 0, sleep: (_ms, signal) => realSleep(0, signal) }));

const errorOf = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
};

describe("workerd's network failures", () => {
  it('retries a GET after workerd lost (or could not open) the connection, read as ERR_NETWORK', async () => {
    server.route('/lost', [{ status: 200, body: 'back' }]);
    const f = failing(disconnected(), disconnected());
    const response = await client(f.fetchLike)(`${server.url}/lost`);
    expect(await response.text()).toBe('back');
    expect(f.calls()).toBe(3);
    expect(getRetryInfo(response)).toMatchObject({ attempts: 3, retries: ['error', 'error'] });
  });

  it('never retries a POST without an idempotency key after it: the method rule, not an unknown error', async () => {
    const f = failing(disconnected(), disconnected());
    const error = await errorOf(client(f.fetchLike)(`${server.url}/pay`, { method: 'POST', body: 'x' }));
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe('Network connection lost.');
    expect(f.calls()).toBe(1);
    expect(getRetryInfo(error)).toMatchObject({ attempts: 1, reason: 'method-not-idempotent' });
  });

  it.each([
    [
      'an unresolvable host (workerd tells it from none of its own faults)',
      'internal error; reference = g6od',
      { remote: true },
    ],
    ['the same message without workerd’s retryable flag', 'Network connection lost.', {}],
    ['a retryable flag on another message', 'quota exceeded', { retryable: true }],
  ])('does not retry %s', async (_what, message, flags) => {
    const f = failing(workerdError(message, flags));
    const error = await errorOf(client(f.fetchLike)(`${server.url}/other`));
    expect((error as Error).message).toBe(message);
    expect(f.calls()).toBe(1);
    expect(getRetryInfo(error)).toMatchObject({ attempts: 1, reason: 'error-not-retryable' });
  });
});
