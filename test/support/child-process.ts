/**
 * A real server (nginx, HAProxy, Caddy, Redis) as a child process of the test: free ports on
 * 127.0.0.1 for it, its start under `setpriv --pdeathsig KILL` where util-linux has it (so that a
 * test process killed outright leaves no server behind), its stderr kept for the error a failed
 * start reports, and its stop by pid: TERM, then KILL after a grace period.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';

/** A Debian package's executable, as a test finds it. */
export interface DebianExecutable {
  /** How to install it, for the error that says it is missing. */
  readonly hint: string;
  /** Its path (the variable's, else the package's), or an error saying it is missing and how to install it. */
  find(): string;
}

/**
 * The executable `name` of the Debian package `debianPackage`, at `path`, or at the one the
 * environment variable `variable` names.
 */
export const debianExecutable = (
  name: string,
  debianPackage: string,
  path: string,
  variable: string,
): DebianExecutable => {
  const hint = `run \`sh scripts/install-debian-packages.sh\` as root (it runs: apt-get install -y --no-install-recommends ${debianPackage}), or set ${variable} to the path of another ${name}`;
  return {
    hint,
    find() {
      const found = process.env[variable] ?? path;
      if (existsSync(found)) return found;
      throw new Error(`${name} is not installed: ${found} does not exist; ${hint}`);
    },
  };
};

/** Runs `f` with the environment variable `name` set to `value`, and puts it back after. */
export const withEnv = async <T>(name: string, value: string, f: () => Promise<T>): Promise<T> => {
  const before = process.env[name];
  process.env[name] = value;
  try {
    return await f();
  } finally {
    if (before === undefined) delete process.env[name];
    else process.env[name] = before;
  }
};

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const listenOn = (server: Server): Promise<number> =>
  new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : 0);
    });
  });

/** `count` distinct free ports on 127.0.0.1 (held together, then released for the server to bind). */
export const freePorts = async (count: number): Promise<number[]> => {
  const servers = Array.from({ length: count }, () => createServer());
  try {
    return await Promise.all(servers.map(listenOn));
  } finally {
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  }
};

/** Whether `pid` runs (a zombie, killed but not yet reaped by its new parent, does not). */
export const alive = (pid: number): boolean => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
};

/** How a child ended. */
export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** A server process the test started. */
export interface Child {
  readonly pid: number;
  /** Settles when it exits. */
  readonly exit: Promise<Exit>;
  /** How it ended, once it has. */
  exited(): Exit | undefined;
  /** What it wrote to stderr so far. */
  stderr(): string;
  /** Sends it a signal (a reload), while it runs. */
  signal(signal: NodeJS.Signals): void;
  /** TERM, then KILL after `graceMs`; resolves once it exited. Safe to call twice. */
  stop(graceMs?: number): Promise<void>;
}

/** Every child this process started and has not seen exit: killed if the process exits first. */
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

const SETPRIV = '/usr/bin/setpriv';

export interface SpawnOptions {
  /** A file descriptor its stdout goes to (a log file); default: ignored. */
  readonly stdout?: number;
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
}

/** Starts `executable` with `args`; the kernel kills it when this process dies (where `setpriv` exists). */
export const spawnChild = (
  executable: string,
  args: readonly string[],
  options: SpawnOptions = {},
): Child => {
  const [command, argv] = existsSync(SETPRIV)
    ? [SETPRIV, ['--pdeathsig', 'KILL', '--', executable, ...args]]
    : [executable, [...args]];
  const child = spawn(command, argv, {
    stdio: ['ignore', options.stdout ?? 'ignore', 'pipe'],
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.env === undefined ? {} : { env: options.env }),
  });
  live.add(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  let ended: Exit | undefined;
  const exit = new Promise<Exit>((resolve) => {
    child.once('exit', (code, signal) => {
      live.delete(child);
      ended = { code, signal };
      resolve(ended);
    });
    child.once('error', (error) => {
      stderr += String(error);
    });
  });
  let stopped: Promise<void> | undefined;
  const stop = async (graceMs: number): Promise<void> => {
    if (ended === undefined) {
      child.kill('SIGTERM');
      const done = await Promise.race([exit.then(() => true), sleep(graceMs).then(() => false)]);
      if (!done) {
        child.kill('SIGKILL');
        await exit;
      }
    }
  };
  return {
    pid: child.pid!,
    exit,
    exited: () => ended,
    stderr: () => stderr,
    signal(signal) {
      if (ended === undefined) child.kill(signal);
    },
    stop(graceMs = 2_000) {
      stopped ??= stop(graceMs);
      return stopped;
    },
  };
};

/**
 * Waits until `ready()` holds, checking every 5 ms for at most `timeoutMs`; `undefined` then, else
 * why not: the child exited first (with its stderr), or the time ran out.
 */
export const waitUntil = async (
  child: Child,
  ready: () => boolean | Promise<boolean>,
  name: string,
  timeoutMs = 5_000,
): Promise<string | undefined> => {
  const until = Date.now() + timeoutMs;
  while (child.exited() === undefined) {
    if (await ready()) return undefined;
    if (Date.now() > until) return `${name} did not start within ${timeoutMs} ms: ${child.stderr()}`;
    await sleep(5);
  }
  const { code, signal } = child.exited()!;
  return `${name} exited (code ${code}, signal ${signal}): ${child.stderr()}`;
};
