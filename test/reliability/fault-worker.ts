/**
 * The load test's fault server, run in a worker thread (its own event loop and core, so the clients
 * under test are not slowed by the server's work, nor the server by theirs). It is the scripted
 * server with every `/load/<id>` path answering from the seeded fault schedule. Plain Node loads it
 * (type stripping): it imports only dependency-free files.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { startScriptedServer } from '../support/scripted-server.ts';
import { type FaultSettings, faultFor, stepFor } from './faults.ts';

interface Config {
  readonly seed: number;
  readonly count: number;
  readonly settings: FaultSettings;
}

/** One attempt as the server saw it, sent back to the test. */
export interface LoggedAttempt {
  readonly id: number;
  readonly nth: number;
  readonly method: string;
  readonly path: string;
  readonly idempotencyKey: string | undefined;
  readonly body: string;
  readonly bodyComplete: boolean;
}

/** Messages the worker answers: `{ call, ... }` gets `{ call, result }`. */
export type Call =
  | { readonly call: 'log' }
  | { readonly call: 'idle'; readonly timeoutMs: number }
  | { readonly call: 'close' };

const { seed, count, settings } = workerData as Config;
const server = await startScriptedServer();
const faults: string[][] = Array.from({ length: count }, () => []);
const times: number[][] = Array.from({ length: count }, () => []);
for (let id = 0; id < count; id++) {
  server.route(`/load/${id}`, (seen) => {
    const { fault, roll } = faultFor(seed, id, seen.nth);
    // By arrival order: an abandoned attempt's script may run after its successor's.
    faults[id]![seen.nth] = fault;
    times[id]![seen.nth] = Date.now();
    return stepFor(fault, roll, `ok:${id}`, settings);
  });
}

const port = parentPort!;
port.on('message', async (message: Call) => {
  switch (message.call) {
    case 'log': {
      const attempts: LoggedAttempt[] = server.requests.map((r) => ({
        id: Number(r.headers['x-request-id']),
        nth: r.nth,
        method: r.method,
        path: r.path,
        idempotencyKey: r.headers['idempotency-key'] as string | undefined,
        body: r.body.toString(),
        bodyComplete: r.bodyComplete,
      }));
      port.postMessage({ call: 'log', result: { attempts, faults, times } });
      break;
    }
    case 'idle':
      port.postMessage({ call: 'idle', result: await server.waitForIdle(message.timeoutMs) });
      break;
    case 'close':
      await server.close();
      port.postMessage({ call: 'close', result: null });
      port.close();
      break;
  }
});
port.postMessage({ call: 'ready', result: server.url });
