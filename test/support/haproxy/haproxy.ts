/**
 * Debian's HAProxy as a child process of the test, in master-worker mode in the foreground
 * (`haproxy -W`): its own folder (config, certificate, stats socket, log), its own ports on
 * 127.0.0.1, reloaded gracefully as an operator does (`SIGUSR2` to the master: a new worker takes
 * the listening sockets over and the old one finishes what it has in flight), stopped by the
 * master's pid (TERM, then KILL; its worker exits with it) and its folder removed.
 *
 * HAProxy missing is an error saying how to install it, never a reason to skip.
 */
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Child, debianExecutable, freePorts, spawnChild, waitUntil } from '../child-process.ts';
import type { RunningProxy } from '../running-proxy.ts';
import { testCertificate } from '../tls.ts';
import { type HaproxyPlacement, type HaproxySetup, haproxyConfig } from './config.ts';
import { type HaproxyLog, type HaproxyLogLine, haproxyLog } from './log.ts';

const EXECUTABLE = debianExecutable('haproxy', 'haproxy', '/usr/sbin/haproxy', 'JITTERBUG_HAPROXY');

export const HAPROXY_INSTALL_HINT = EXECUTABLE.hint;

/** The haproxy executable (`JITTERBUG_HAPROXY`, else Debian's), or an error saying it is missing and how to install it. */
export const haproxyExecutable = EXECUTABLE.find;

export interface RunningHaproxy extends RunningProxy<HaproxyLogLine> {
  /** What the master and its workers wrote to stderr (start-up, reloads, workers leaving). */
  stderr(): string;
}

/** HAProxy starts in 0.1-1 s here, and in several on a machine busy with other tests. */
const START_TIMEOUT_MS = 15_000;
const LOADED = 'Loading success.';
const FAILED = 'Loading failure!';
const RELOADING = 'Reloading HAProxy';

const count = (text: string, word: string): number => text.split(word).length - 1;

const accepts = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/** Starts HAProxy for `setup` in front of the Node backend at `backend` (`http://127.0.0.1:PORT`). */
export const startHaproxy = async (setup: HaproxySetup, backend: string): Promise<RunningHaproxy> => {
  const executable = haproxyExecutable();
  const { cert, key } = await testCertificate();
  const dir = await mkdtemp(join(tmpdir(), 'jitterbug-haproxy-'));
  let child: Child | undefined;
  try {
    // One PEM file, certificate then key, each on lines of its own.
    await writeFile(join(dir, 'site.pem'), `${cert.trim()}\n${key.trim()}\n`, { mode: 0o600 });
    const [port, closedPort] = (await freePorts(2)) as [number, number];
    const where: HaproxyPlacement = { dir, port, backend: new URL(backend).host, closedPort };
    const config = haproxyConfig(setup, where);
    const configPath = join(dir, 'haproxy.cfg');
    await writeFile(configPath, config);
    const logPath = join(dir, 'haproxy.log');
    const logFile = await open(logPath, 'a');
    try {
      child = spawnChild(executable, ['-W', '-f', configPath], { stdout: logFile.fd });
    } finally {
      await logFile.close();
    }
    const started = child;
    const failed = await waitUntil(
      started,
      async () => count(started.stderr(), LOADED) === 1 && (await accepts(port)),
      'haproxy',
      START_TIMEOUT_MS,
    );
    if (failed) throw new Error(failed);
    return running(started, dir, cert, config, port, haproxyLog(logPath));
  } catch (error) {
    await child?.stop(0);
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
};

const running = (
  child: Child,
  dir: string,
  ca: string,
  config: string,
  port: number,
  log: HaproxyLog,
): RunningHaproxy => {
  let stopped: Promise<void> | undefined;
  return {
    pid: child.pid,
    dir,
    ca,
    config,
    port,
    url: `https://127.0.0.1:${port}`,
    log,
    stderr: child.stderr,
    async reload() {
      const loaded = (text: string) => count(text, LOADED) + count(text, FAILED);
      const loads = loaded(child.stderr());
      const reloads = count(child.stderr(), RELOADING);
      // The master re-executes itself on a reload and, just after one, misses a signal that comes
      // while it does: signalled again until it says it is reloading.
      let signalled = 0;
      const failed = await waitUntil(
        child,
        () => {
          const text = child.stderr();
          if (count(text, RELOADING) > reloads) return loaded(text) > loads;
          if (Date.now() - signalled >= 250) {
            child.signal('SIGUSR2');
            signalled = Date.now();
          }
          return false;
        },
        'haproxy reload',
        START_TIMEOUT_MS,
      );
      if (failed) throw new Error(failed);
      if (count(child.stderr(), FAILED) > 0) throw new Error(`haproxy reload failed: ${child.stderr()}`);
    },
    stop(graceMs = 2_000) {
      stopped ??= child.stop(graceMs).then(() => rm(dir, { recursive: true, force: true }));
      return stopped;
    },
  };
};
