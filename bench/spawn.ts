/** Starting the server process and the one-shot child processes (all with the source condition). */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Every child runs the workspace packages from their TypeScript source. */
export const NODE_FLAGS = ['--conditions=@jitterbug/source', '--expose-gc'];

export const benchFile = (name: string): string => fileURLToPath(new URL(name, import.meta.url));

export interface BenchServer {
  readonly origin: string;
  /** Requests the server has answered so far. */
  stats(): Promise<{ requests: number; pendingFlaky: number }>;
  stop(): Promise<void>;
}

export const startServer = async (): Promise<BenchServer> => {
  const child: ChildProcess = fork(benchFile('server.ts'), [], { execArgv: NODE_FLAGS, stdio: 'inherit' });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { port: number }).port));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`bench server exited (${code})`)));
  });
  return {
    origin: `http://127.0.0.1:${port}`,
    stats: () =>
      new Promise((resolve) => {
        child.once('message', (m) => resolve(m as { requests: number; pendingFlaky: number }));
        child.send('stats');
      }),
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.send('stop');
      }),
  };
};

/** The line of a child's stderr that says what went wrong (`Error: …`), else its first line. */
const errorLine = (stderr: string): string => {
  const lines = stderr.trim().split('\n');
  return (lines.find((l) => /^\w*Error\b|^Error \[/.test(l)) ?? lines[0] ?? '').trim();
};

/**
 * Runs `file` in a fresh Node process with `args` and returns the JSON of its last stdout line.
 * Rejects with its stderr when it fails.
 */
export const runChild = <T>(
  file: string,
  args: readonly string[],
  extraFlags: readonly string[] = [],
): Promise<T> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...NODE_FLAGS, ...extraFlags, benchFile(file), ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      out += s;
    });
    child.stderr.setEncoding('utf8').on('data', (s: string) => {
      err += s;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const last = out.trim().split('\n').at(-1) ?? '';
      if (code !== 0 || !last.startsWith('{')) {
        reject(new Error(`${file} failed (exit ${code}): ${errorLine(err)}`));
        return;
      }
      resolve(JSON.parse(last) as T);
    });
  });
