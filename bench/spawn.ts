/** Starting the server process, the client processes and the one-shot children (all with the source condition). */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { availableParallelism } from 'node:os';
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

/**
 * Also for the server and the measured clients, each of which has one CPU to itself:
 * - `--single-threaded-gc`: V8's parallel and concurrent GC helpers cannot run in parallel on one
 *   CPU; with them, the same scavenge (about 28 MB freed) took from 0.8 to 30 ms, which made blocks
 *   of 2,000 requests swing by half. Without them scavenges take about 1 ms each.
 * - `--no-memory-reducer`: a client process sleeps while the others take their turns, and V8's
 *   memory reducer takes a sleeping process for an idle one and shrinks its heap, which the next
 *   block then grows back. A process that sends requests without pause never sleeps that long.
 */
export const GC_FLAGS = ['--single-threaded-gc', '--no-memory-reducer'];

/**
 * The same memory layout and seeds in every measured process: address-space randomisation off
 * (`setarch -R`, util-linux, where it works) and V8's hash and random seeds fixed. Processes of the
 * same variant differed by 10–20 % for their whole life now and then; with these, raw/raw pairs
 * stayed within about 2 % in 5 of 5 sessions against 3 of 5 without (a small sample: one cause
 * taken away, not all).
 */
export const SEED_FLAGS = ['--hash-seed=1', '--random-seed=1'];
const SAME_LAYOUT: readonly string[] | undefined = (() => {
  const setarch = ['setarch', process.arch === 'x64' ? 'x86_64' : process.arch, '-R'];
  try {
    execFileSync(setarch[0]!, [...setarch.slice(1), 'true'], { stdio: 'ignore' });
    return setarch;
  } catch {
    return undefined;
  }
})();

/** Every process whose CPU is measured, and the server. */
export const MEASURED_FLAGS = [...STEADY_STATE_FLAGS, ...GC_FLAGS, ...SEED_FLAGS];

/** Whether measured processes run with address-space randomisation off (for the report). */
export const LAYOUT_FIXED = SAME_LAYOUT !== undefined;

/**
 * For diagnosis: `BENCH_CHILD_FLAGS` adds Node/V8 flags to the conversation children (clients and
 * server, e.g. `--trace-gc`), `BENCH_CHILD_LOG` names a directory for their stdout (`<pid>.log`).
 */
const CHILD_FLAGS = process.env['BENCH_CHILD_FLAGS']?.split(' ').filter(Boolean) ?? [];
const CHILD_LOG = process.env['BENCH_CHILD_LOG'];

export const benchFile = (name: string): string => fileURLToPath(new URL(name, import.meta.url));

/**
 * CPUs for the server and for measured clients: with two or more, the server gets CPU 0 and the
 * clients the others, so that a client never waits for the server's time slice, and its CPU per
 * request does not depend on how the scheduler interleaves the two (bench/profiling.md, fifth
 * pass). `undefined` with one CPU, without `taskset` (util-linux), or with `BENCH_PIN=0`.
 */
export const PINNING: { readonly server: string; readonly client: string } | undefined = (() => {
  const cpus = availableParallelism();
  if (cpus < 2 || process.env['BENCH_PIN'] === '0') return undefined;
  try {
    execFileSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' });
  } catch {
    return undefined;
  }
  return { server: '0', client: cpus === 2 ? '1' : `1-${cpus - 1}` };
})();

type Role = 'server' | 'client' | 'any';

/**
 * Node with `flags` running `file`, under `taskset` for a pinned role: pinned from its first
 * instruction (taskset execs node), so its start-up, JIT and GC threads stay on those CPUs too.
 */
const nodeProcess = (
  file: string,
  args: readonly string[],
  flags: readonly string[],
  role: Role,
  ipc: boolean,
): ChildProcess => {
  const argv = [...NODE_FLAGS, ...flags, benchFile(file), ...args];
  const cpus = role === 'any' ? undefined : PINNING?.[role];
  const pinned = cpus ? ['taskset', '-c', cpus, process.execPath, ...argv] : [process.execPath, ...argv];
  const [command, ...commandArgs] = role !== 'any' && SAME_LAYOUT ? [...SAME_LAYOUT, ...pinned] : pinned;
  // The IPC channel's descriptor (and NODE_CHANNEL_FD) survive setarch's and taskset's exec.
  return spawn(command!, commandArgs, {
    stdio: ['ignore', 'pipe', 'pipe', ...(ipc ? ['ipc' as const] : [])],
  });
};

/** The line of a child's stderr that says what went wrong (`Error: …`), else its first line. */
const errorLine = (stderr: string): string => {
  const lines = stderr.trim().split('\n');
  return (lines.find((l) => /^\w*Error\b|^Error \[/.test(l)) ?? lines[0] ?? '').trim();
};

/** Collects a child's stderr (for the error when it fails). */
const stderrOf = (child: ChildProcess): (() => string) => {
  let err = '';
  child.stderr?.setEncoding('utf8').on('data', (s: string) => {
    err += s;
  });
  return () => err;
};

/**
 * Runs `file` in a fresh Node process with `args` and returns the JSON of its last stdout line.
 * Rejects with its stderr when it fails. `role: 'client'` pins it to the clients' CPUs.
 */
export const runChild = <T>(
  file: string,
  args: readonly string[],
  extraFlags: readonly string[] = [],
  role: Role = 'any',
): Promise<T> =>
  new Promise((resolve, reject) => {
    const child = nodeProcess(file, args, extraFlags, role, false);
    let out = '';
    child.stdout?.setEncoding('utf8').on('data', (s: string) => {
      out += s;
    });
    const stderr = stderrOf(child);
    child.on('error', reject);
    child.on('close', (code) => {
      const last = out.trim().split('\n').at(-1) ?? '';
      if (code !== 0 || !last.startsWith('{')) {
        reject(new Error(`${file} failed (exit ${code}): ${errorLine(stderr())}`));
        return;
      }
      resolve(JSON.parse(last) as T);
    });
  });

/** A long-lived child that answers each message with one message, in order. */
export interface Conversation {
  readonly pid: number;
  /** Sends `message` and resolves with the child's next message; rejects if the child dies first. */
  ask<T>(message: unknown): Promise<T>;
  /** Sends `message` and waits for the child to exit. */
  end(message: unknown): Promise<void>;
  /** Ends the child at once (after a failure elsewhere). */
  kill(): void;
}

/**
 * Starts `file` with an IPC channel. The child's first message (its "ready", after its set-up)
 * resolves `ready`; after that each `ask` gets the next message.
 */
export const startConversation = (
  file: string,
  args: readonly string[],
  flags: readonly string[],
  role: Role,
): { conversation: Conversation; ready: Promise<unknown> } => {
  const child = nodeProcess(file, args, [...flags, ...CHILD_FLAGS], role, true);
  if (CHILD_LOG) child.stdout?.pipe(createWriteStream(`${CHILD_LOG}/${child.pid}.log`));
  else child.stdout?.resume();
  const stderr = stderrOf(child);
  const waiting: { resolve: (m: unknown) => void; reject: (e: Error) => void }[] = [];
  let exited: Error | undefined;
  const next = (): Promise<unknown> =>
    exited ? Promise.reject(exited) : new Promise((resolve, reject) => waiting.push({ resolve, reject }));
  child.on('message', (m) => waiting.shift()?.resolve(m));
  child.on('exit', (code, signal) => {
    exited = new Error(`${file} exited (${code ?? signal}): ${errorLine(stderr())}`);
    for (const w of waiting.splice(0)) w.reject(exited);
  });
  const ready = next();
  const conversation: Conversation = {
    pid: child.pid ?? 0,
    ask: <T>(message: unknown) => {
      const reply = next();
      child.send(message as object);
      return reply as Promise<T>;
    },
    end: (message) =>
      new Promise((resolve) => {
        if (exited) return resolve();
        child.once('exit', () => resolve());
        child.send(message as object);
      }),
    kill: () => {
      if (!exited) child.kill();
    },
  };
  return { conversation, ready };
};

export interface BenchServer {
  readonly origin: string;
  /** The server process. */
  readonly pid: number;
  /** Requests the server has answered so far. */
  stats(): Promise<{ requests: number; pendingFlaky: number }>;
  stop(): Promise<void>;
}

/** The loopback server (`server.ts`), pinned to its CPU where there are two or more. */
export const startServer = async (): Promise<BenchServer> => {
  const { conversation, ready } = startConversation('server.ts', [], MEASURED_FLAGS, 'server');
  const { port } = (await ready) as { port: number };
  return {
    origin: `http://127.0.0.1:${port}`,
    pid: conversation.pid,
    stats: () => conversation.ask('stats'),
    stop: () => conversation.end('stop'),
  };
};
