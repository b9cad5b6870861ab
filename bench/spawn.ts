/** Starting the server process and the one-shot child processes (all with the source condition). */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Every child runs the workspace packages from their TypeScript source. */
export const NODE_FLAGS = ['--conditions=@jitterbug/source', '--expose-gc'];

/**
 * For the server and the client processes: V8 optimises a function with TurboFan after 300 calls
 * instead of 3,000 (Maglev after 50 instead of 400), the same for every variant. With the default
 * thresholds a loopback client was still compiling its per-request functions after 15,000–20,000
 * requests (`--trace-opt`: a burst of TurboFan jobs at 10,000); with these the compiles end within
 * the first 3,000, so a few thousand warm-up requests reach the steady state a long-running process
 * reaches after tens of thousands, and the measured phase no longer counts the background compiler's
 * CPU, which is larger for a wrapped client (more functions) and made it look slower than it is.
 */
export const STEADY_STATE_FLAGS = ['--invocation-count-for-maglev=50', '--invocation-count-for-turbofan=300'];

export const benchFile = (name: string): string => fileURLToPath(new URL(name, import.meta.url));

export interface BenchServer {
  readonly origin: string;
  /** The server process, for a probe that pins it to a CPU. */
  readonly pid: number;
  /** Requests the server has answered so far. */
  stats(): Promise<{ requests: number; pendingFlaky: number }>;
  stop(): Promise<void>;
}

export const startServer = async (): Promise<BenchServer> => {
  const child: ChildProcess = fork(benchFile('server.ts'), [], {
    execArgv: [...NODE_FLAGS, ...STEADY_STATE_FLAGS],
    stdio: 'inherit',
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { port: number }).port));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`bench server exited (${code})`)));
  });
  return {
    origin: `http://127.0.0.1:${port}`,
    pid: child.pid ?? 0,
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
