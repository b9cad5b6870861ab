/**
 * Debian's `redis-server` as a child process of the test, for the tests of a store shared over
 * Redis: on 127.0.0.1 on a free port, in the foreground, nothing persisted (`--save ''`,
 * `--appendonly no`), its working folder and log in a temp folder. It is ready when it answers
 * `PING`. A test can stop it and start it again on the same port (a store that goes away and comes
 * back), then close it: the process stopped by its pid and the folder removed.
 *
 * redis-server missing is an error saying how to install it, never a reason to skip.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Child, debianExecutable, freePorts, spawnChild, waitUntil } from './child-process.ts';

const EXECUTABLE = debianExecutable(
  'redis-server',
  'redis-server',
  '/usr/bin/redis-server',
  'JITTERBUG_REDIS',
);

export const REDIS_INSTALL_HINT = EXECUTABLE.hint;

/** The redis-server executable (`JITTERBUG_REDIS`, else Debian's), or an error saying it is missing and how to install it. */
export const redisExecutable = EXECUTABLE.find;

/**
 * Where the RESP reply that starts at `at` ends (the index after it), or -1 while it is incomplete:
 * a simple string, error or integer is one line, a bulk string its length line and its bytes, an
 * array its count line and its items.
 */
const replyEnd = (text: string, at: number): number => {
  const line = text.indexOf('\r\n', at);
  if (line === -1) return -1;
  const n = Number(text.slice(at + 1, line));
  switch (text[at]) {
    case '$':
      return n < 0 ? line + 2 : text.length >= line + 2 + n + 2 ? line + 2 + n + 2 : -1;
    case '*': {
      let end = line + 2;
      for (let i = 0; i < n && end !== -1; i++) end = replyEnd(text, end);
      return end;
    }
    default:
      return line + 2;
  }
};

/**
 * Sends one command (RESP) to the server on `port` and resolves with its whole reply as sent
 * (`+PONG\r\n`, `$2\r\n10\r\n`, `-ERR …\r\n`); rejects when it cannot connect or gets no
 * whole reply within `timeoutMs`.
 */
export const redisCommand = (port: number, args: readonly string[], timeoutMs = 1_000): Promise<string> =>
  new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const timer = setTimeout(() => socket.destroy(new Error(`no reply within ${timeoutMs} ms`)), timeoutMs);
    let reply = '';
    socket.on('connect', () => {
      const parts = args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`);
      socket.write(`*${args.length}\r\n${parts.join('')}`);
    });
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString();
      const end = replyEnd(reply, 0);
      if (end === -1) return;
      clearTimeout(timer);
      socket.destroy();
      resolve(reply.slice(0, end));
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });

const answers = (port: number) => (): Promise<boolean> =>
  redisCommand(port, ['PING'], 200).then(
    (reply) => reply === '+PONG\r\n',
    () => false,
  );

export interface RunningRedis {
  readonly port: number;
  /** `redis://127.0.0.1:PORT`. */
  readonly url: string;
  /** The pid of the process running now (a restart makes a new one). */
  readonly pid: number;
  /** The run's folder (its working folder and `redis.log`). */
  readonly dir: string;
  /** Whether a process runs now (between `stop` and `restart`, none does). */
  readonly running: boolean;
  /** Stops the process (TERM, then KILL after `graceMs`); the port and folder are kept for `restart`. */
  stop(graceMs?: number): Promise<void>;
  /** Starts a new process on the same port (a stopped one first, when it runs) and waits until it answers. */
  restart(): Promise<void>;
  /** Stops it and removes its folder. Safe to call twice. */
  close(): Promise<void>;
}

const launch = async (executable: string, port: number, dir: string): Promise<Child> => {
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
    '--logfile',
    join(dir, 'redis.log'),
  ];
  const child = spawnChild(executable, args, { cwd: dir });
  const failed = await waitUntil(child, answers(port), 'redis-server');
  if (failed === undefined) return child;
  await child.stop(0);
  throw new Error(failed);
};

/** Starts redis-server on a free port of 127.0.0.1 and waits until it answers `PING`. */
export const startRedis = async (): Promise<RunningRedis> => {
  const executable = redisExecutable();
  const dir = await mkdtemp(join(tmpdir(), 'jitterbug-redis-'));
  let child: Child;
  let port: number;
  try {
    [port] = (await freePorts(1)) as [number];
    child = await launch(executable, port, dir);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  let closed: Promise<void> | undefined;
  const running = () => child.exited() === undefined;
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    get pid() {
      return child.pid;
    },
    dir,
    get running() {
      return running();
    },
    stop: (graceMs) => child.stop(graceMs),
    async restart() {
      await child.stop();
      child = await launch(executable, port, dir);
    },
    close() {
      closed ??= child.stop().then(() => rm(dir, { recursive: true, force: true }));
      return closed;
    },
  };
};
