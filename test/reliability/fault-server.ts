/**
 * The test's side of the fault server (`fault-worker.ts`, in a worker thread): start it, read its
 * log, wait until its sockets are closed, close it.
 */
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import type { Call, LoggedAttempt } from './fault-worker.ts';
import type { Fault, FaultSettings } from './faults.ts';

export interface FaultServer {
  readonly url: string;
  /**
   * Every attempt the server saw, the fault it answered each request's n-th arrival with, and when
   * (epoch ms, once the request was read: after the client sent it).
   */
  log(): Promise<{ attempts: LoggedAttempt[]; faults: Fault[][]; times: number[][] }>;
  /** Waits until the clients closed every socket (or `timeoutMs` passed); returns how many remain. */
  waitForIdle(timeoutMs: number): Promise<number>;
  close(): Promise<void>;
}

interface Reply {
  readonly call: string;
  readonly result: unknown;
}

export const startFaultServer = async (
  seed: number,
  count: number,
  settings: FaultSettings,
): Promise<FaultServer> => {
  const worker = new Worker(new URL('./fault-worker.ts', import.meta.url), {
    workerData: { seed, count, settings },
  });
  const replies: Array<(reply: Reply) => void> = [];
  let failure: unknown;
  worker.on('error', (error) => {
    failure = error;
  });
  const ready = new Promise<string>((resolve, reject) => {
    worker.once('message', (reply: Reply) => resolve(reply.result as string));
    worker.once('error', reject);
  });
  const url = await ready;
  worker.on('message', (reply: Reply) => replies.shift()?.(reply));
  const ask = <T>(message: Call): Promise<T> => {
    if (failure) return Promise.reject(failure);
    return new Promise<T>((resolve) => {
      replies.push((reply) => resolve(reply.result as T));
      worker.postMessage(message);
    });
  };
  return {
    url,
    log: () => ask({ call: 'log' }),
    waitForIdle: (timeoutMs) => ask({ call: 'idle', timeoutMs }),
    async close() {
      // Listened for first: the worker exits right after its reply, and an 'exit' already emitted
      // would leave this waiting with nothing keeping the process alive.
      const exited = once(worker, 'exit');
      await ask({ call: 'close' });
      await exited;
    },
  };
};
