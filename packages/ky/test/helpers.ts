/**
 * Test helpers: a sleep that records the waits asked for and resolves at once (or on abort), both
 * ky majors, a call's rejection, and the scripted loopback server of a test file.
 */

import ky2 from 'ky';
import ky1 from 'ky1';
import { Agent } from 'undici7';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { type ScriptedServer, startScriptedServer } from '../../../test/support/scripted-server.ts';
import { sleep as realSleep } from '../../core/src/sleep.ts';

export const recordingSleep = (): {
  waits: number[];
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
} => {
  const waits: number[] = [];
  return {
    waits,
    sleep: (ms, signal) => {
      waits.push(ms);
      return realSleep(0, signal);
    },
  };
};

/** Both ky majors, typed as ky 2 (their runtime options are the same). */
export const kys: readonly (readonly [string, typeof ky2])[] = [
  ['ky 2', ky2],
  ['ky 1', ky1 as unknown as typeof ky2],
];

/** What `promise` rejected with (it must reject). */
export const errorOf = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
};

export interface Loopback {
  /** The scripted server (started before the first test of the file or `describe`). */
  readonly server: ScriptedServer;
  /** An undici 7 Agent for one client (ky passes `dispatcher` to Node's fetch), closed after the test. */
  newAgent(): Agent;
}

/**
 * A scripted loopback server for the tests of a file or a `describe` (call it there): after each
 * test the agents made are closed and no socket may stay open; the server's scripts are reset.
 */
export const loopback = (): Loopback => {
  let started: ScriptedServer | undefined;
  const agents: Agent[] = [];
  beforeAll(async () => {
    started = await startScriptedServer();
  });
  afterEach(async () => {
    for (const agent of agents.splice(0)) await agent.close();
    expect(await started!.waitForIdle(3_000)).toBe(0);
    started!.reset();
  });
  afterAll(() => started?.close());
  const server = new Proxy({} as ScriptedServer, {
    get: (_target, key) => {
      const value = (started as unknown as Record<PropertyKey, unknown>)[key];
      return typeof value === 'function' ? value.bind(started) : value;
    },
  });
  return {
    server,
    newAgent: () => {
      const agent = new Agent();
      agents.push(agent);
      return agent;
    },
  };
};
