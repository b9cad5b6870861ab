/** Starting the bench's processes: the server, the measured clients, one-shot children. */
import { execFileSync, spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';

export const benchFile = (name: string): string => fileURLToPath(new URL(name, import.meta.url));

/** Every child runs the workspace packages from their TypeScript source. */
const NODE_FLAGS = ['--conditions=@jitterbug/source', '--expose-gc'];
/**
 * For the measured processes and the server. Tier-up after 50 (Maglev) and 300 (TurboFan) calls,
 * not 400 and 3,000: with the defaults a client was still compiling its per-request code after
 * 15,000 requests, in the measured blocks. A single-threaded GC: on one CPU parallel GC helpers only
 * wait for each other (the same scavenge took 0.8 to 30 ms with them). No memory reducer: it takes a
 * process sleeping between its turns for an idle one and shrinks its heap. Fixed seeds (and
 * address-space randomisation off, where `setarch -R` works): twins ran 10–20 % apart less often.
 */
export const MEASURED_FLAGS = [
  ...['--invocation-count-for-maglev=50', '--invocation-count-for-turbofan=300'],
  ...['--single-threaded-gc', '--no-memory-reducer', '--hash-seed=1', '--random-seed=1'],
];
export const MEASURED_ARGS = [...NODE_FLAGS, ...MEASURED_FLAGS];

const works = (command: string[]): boolean => {
  try {
    execFileSync(command[0]!, [...command.slice(1), 'true'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
const SAME_LAYOUT = ['setarch', process.arch === 'x64' ? 'x86_64' : process.arch, '-R'];
export const LAYOUT_FIXED = works(SAME_LAYOUT);
/** The server on CPU 0, the clients on the others, from their first instruction (`BENCH_PIN=0`: not). */
const cpus = availableParallelism();
export const PINNING =
  cpus >= 2 && process.env['BENCH_PIN'] !== '0' && works(['taskset', '-c', '0'])
    ? { server: '0', client: cpus === 2 ? '1' : `1-${cpus - 1}` }
    : undefined;

/** Node running `file`; a measured process (`role`) with the flags above, pinned, with a fixed layout. */
const start = (file: string, args: readonly string[], role?: 'server' | 'client', ipc = false) => {
  let command = [process.execPath, ...(role ? MEASURED_ARGS : NODE_FLAGS), benchFile(file), ...args];
  if (role && PINNING) command = ['taskset', '-c', PINNING[role], ...command];
  if (role && LAYOUT_FIXED) command = [...SAME_LAYOUT, ...command];
  const child = spawn(command[0]!, command.slice(1), {
    stdio: ['ignore', 'pipe', 'pipe', ipc ? 'ipc' : 'ignore'],
  });
  let [out, err] = ['', ''];
  child.stdout!.setEncoding('utf8').on('data', (s: string) => (out += s));
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (err += s));
  const lines = (): string[] => err.trim().split('\n');
  const failure = (code: number | string | null): Error =>
    new Error(`${file} exited (${code}): ${lines().find((l) => /^\w*Error\b/.test(l)) ?? lines()[0]}`);
  return { child, lastLine: () => out.trim().split('\n').at(-1) ?? '', failure };
};

/** Runs `file` in a fresh Node process and resolves with the JSON of its last line of stdout. */
export const runChild = <T>(file: string, args: readonly string[] = []): Promise<T> =>
  new Promise((resolve, reject) => {
    const { child, lastLine, failure } = start(file, args);
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(lastLine()) as T) : reject(failure(code))));
  });

/** A long-lived child that answers each message with one message; its first says it is ready. */
export const converse = (file: string, args: readonly string[], role: 'server' | 'client') => {
  const { child, failure } = start(file, args, role, true);
  const waiting: { resolve: (m: unknown) => void; reject: (e: Error) => void }[] = [];
  let exited: Error | undefined;
  const next = (): Promise<unknown> =>
    exited ? Promise.reject(exited) : new Promise((resolve, reject) => waiting.push({ resolve, reject }));
  child.on('message', (m) => waiting.shift()?.resolve(m));
  child.on('exit', (code, signal) => {
    exited = failure(code ?? signal);
    for (const w of waiting.splice(0)) w.reject(exited);
  });
  const ready = next();
  ready.catch(() => {}); // awaited later, perhaps after it failed
  return {
    ready,
    ask: <T>(message: unknown): Promise<T> => {
      const reply = next();
      child.send(message as object);
      return reply as Promise<T>;
    },
    end: (message: unknown): Promise<void> =>
      new Promise((resolve) => {
        if (exited) return resolve();
        child.once('exit', () => resolve());
        child.send(message as object);
      }),
  };
};

/** The loopback server (`server.ts`), on its own CPU. */
export const startServer = async () => {
  const server = converse('server.ts', [], 'server');
  const { port } = (await server.ready) as { port: number };
  return {
    origin: `http://127.0.0.1:${port}`,
    served: async () => (await server.ask<{ requests: number }>('stats')).requests,
    stop: () => server.end('stop'),
  };
};
