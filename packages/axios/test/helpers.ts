/**
 * Test helpers: an axios instance with jitterbug attached (by default as `attachRetry` is by
 * default; `attach` for its own options, e.g. `{ discardedBodyCap: createDiscardedBodyCap() }`), its own keep-alive agent
 * (closed by `close()`, so tests can wait for the server to see no sockets), and a sleep that
 * records the delays asked for and returns at once.
 */
import { Agent } from 'node:http';
import { createRetryPolicy, type RetryPolicyOptions } from '@jitterbug/core';
import axios, { type AxiosInstance, type CreateAxiosDefaults } from 'axios';
import { type AxiosAdapterOptions, attachRetry } from '../src/index.ts';

export interface TestClient {
  readonly api: AxiosInstance;
  /** Delays the policy asked the sleep for, in order. */
  readonly delays: number[];
  readonly detach: () => void;
  close(): void;
}

/** A sleep that records `ms` and resolves at once, but still rejects on an aborted signal. */
export const recordingSleep =
  (delays: number[]) =>
  (ms: number, signal?: AbortSignal): Promise<void> => {
    delays.push(ms);
    return signal?.aborted ? Promise.reject(signal.reason) : Promise.resolve();
  };

export const createTestClient = (
  baseURL: string,
  options: RetryPolicyOptions = {},
  defaults: CreateAxiosDefaults = {},
  attach?: AxiosAdapterOptions,
): TestClient => {
  const agent = new Agent({ keepAlive: true });
  const api = axios.create({ baseURL, httpAgent: agent, ...defaults });
  const delays: number[] = [];
  const detach = attachRetry(
    api,
    createRetryPolicy({ random: () => 0.5, sleep: recordingSleep(delays), ...options }),
    attach,
  );
  return { api, delays, detach, close: () => agent.destroy() };
};

/** The error a promise rejects with (fails the test when it resolves). */
export const rejection = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
};
