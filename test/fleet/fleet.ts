/**
 * Runs processes of a fleet (`fleet-process.ts`) as child processes of the test, and an origin on
 * 127.0.0.1 whose answers a test scripts and counts.
 */
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { SharedStore, StoreReply } from '@jitterbug/core/store';
import type { FleetProcessConfig, FleetProcessReport } from './fleet-process.ts';

const SCRIPT = join(import.meta.dirname, 'fleet-process.ts');

/** A fleet process running: its report, and a hook on each request it finished. */
export interface FleetProcess {
  readonly report: Promise<FleetProcessReport>;
}

/** Starts one process of the fleet; `onSent(n)` hears of each request it finished. */
export const startProcess = (config: FleetProcessConfig, onSent?: (n: number) => void): FleetProcess => {
  const child = spawn(process.execPath, ['--conditions=@jitterbug/source', SCRIPT, JSON.stringify(config)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    for (const line of chunk.split('\n')) if (line.startsWith('sent ')) onSent?.(Number(line.slice(5)));
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  const report = new Promise<FleetProcessReport>((resolve, reject) => {
    child.on('exit', (code) => {
      const last = out.trim().split('\n').pop() ?? '';
      if (code === 0 && last.startsWith('{')) resolve(JSON.parse(last) as FleetProcessReport);
      else reject(new Error(`a fleet process exited with ${code}: ${err}`));
    });
  });
  return { report };
};

/** Runs `n` processes of `config` at once, and resolves with their reports. */
export const runFleet = (n: number, config: FleetProcessConfig): Promise<FleetProcessReport[]> =>
  Promise.all(Array.from({ length: n }, () => startProcess(config).report));

/** An origin whose every answer `answer` gives; it counts the requests it got. */
export interface Origin {
  readonly url: string;
  requests: number;
  answer: (req: IncomingMessage, res: ServerResponse) => void;
  close(): Promise<void>;
}

/** Starts an origin on 127.0.0.1 that answers 503 until told otherwise. */
export const startOrigin = async (): Promise<Origin> => {
  let server: Server | undefined;
  const origin: Origin = {
    url: '',
    requests: 0,
    answer: (_req, res) => res.writeHead(503, { 'content-length': '0' }).end(),
    close: () => new Promise((resolve) => (server ? server.close(() => resolve()) : resolve())),
  };
  server = createServer((req, res) => {
    origin.requests++;
    origin.answer(req, res);
  });
  server.keepAliveTimeout = 100;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  (origin as { url: string }).url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return origin;
};

/** Starts an origin that answers every request with `status()`, no body. */
export const startStatusOrigin = async (status: () => number): Promise<Origin> => {
  const origin = await startOrigin();
  origin.answer = (_req, res) => res.writeHead(status(), { 'content-length': '0' }).end();
  return origin;
};

/** A store that counts its calls, over `inner`. */
export const countedStore = (inner: SharedStore): SharedStore & { calls: number } => {
  const store = {
    calls: 0,
    run: (...args: Parameters<SharedStore['run']>): Promise<StoreReply> => {
      store.calls++;
      return inner.run(...args);
    },
  };
  return store;
};
