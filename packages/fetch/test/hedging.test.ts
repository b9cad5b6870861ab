/**
 * Hedged requests through withRetry, where fetch itself is the point: a fetch that throws instead of
 * rejecting for a hedged copy. What every client does with hedging (which copy wins, the budget, the
 * percentile, the caller's abort, per-copy timers, route rules) is in the conformance suite
 * (`test/conformance/hedging.test.ts`).
 */
import { createHedging, createRetryPolicy } from '@jitterbug/core';
import { Agent } from 'undici7';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedServer, startScriptedServer } from '../../../test/support/scripted-server.ts';
import { getRetryInfo, withRetry } from '../src/index.ts';

let server: ScriptedServer;
const agents: Agent[] = [];
const url = (path: string) => server.url + path;

/** withRetry, hedging after 20 ms, over a fetch whose second call throws `thrown` synchronously. */
const throwingOnTheHedge = (thrown: Error) => {
  const agent = new Agent();
  agents.push(agent);
  let calls = 0;
  const throwing: typeof fetch = (input, init) => {
    calls++;
    if (calls === 2) throw thrown;
    return fetch(input, { ...init, dispatcher: agent } as RequestInit);
  };
  const send = withRetry(
    throwing,
    createRetryPolicy({ hedge: createHedging({ delayMs: 20 }), budget: false }),
  );
  return { send, calls: () => calls };
};

beforeAll(async () => {
  server = await startScriptedServer();
});
afterEach(async () => {
  for (const agent of agents.splice(0)) await agent.close();
  expect(await server.waitForIdle(3_000)).toBe(0);
  server.reset();
});
afterAll(() => server.close());

describe('hedged requests over a fetch that throws', () => {
  it('a fetch that throws (not rejects) a network failure for a hedged copy fails that copy; the first still answers', async () => {
    server.route('/thrower', [{ status: 200, body: 'slow', delayMs: 150 }]);
    const { send, calls } = throwingOnTheHedge(new TypeError('Failed to fetch'));
    const response = await send(url('/thrower'));
    expect(await response.text()).toBe('slow');
    expect(calls()).toBe(2);
    expect(getRetryInfo(response)).toMatchObject({ attempts: 1, hedge: { copies: 1, winner: 1 } });
  });

  it('a copy that throws what is not a network failure (a bug in a fetch wrapper) fails the request with it', async () => {
    server.route('/buggy', [{ status: 200, body: 'slow', delayMs: 150 }]);
    const bug = new TypeError("Cannot read properties of undefined (reading 'headers')");
    const error = await throwingOnTheHedge(bug)
      .send(url('/buggy'))
      .catch((e: unknown) => e);
    expect(error).toBe(bug);
    expect(getRetryInfo(error)).toMatchObject({
      reason: 'error-not-retryable',
      hedge: { copies: 1, winner: 2 },
    });
  });
});
