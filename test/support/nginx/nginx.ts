/**
 * Debian's nginx as a child process of the test: its own folder (config, pid, logs, the five temp
 * paths, the certificate), its own ports on 127.0.0.1, stopped by its pid (TERM, then KILL) and its
 * folder removed. nginx runs as one process (`master_process off`) under `setpriv --pdeathsig KILL`
 * where util-linux has it, so that even a test process killed outright leaves no nginx behind.
 *
 * nginx missing is an error saying how to install it, never a reason to skip.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Child, debianExecutable, freePorts, spawnChild, waitUntil } from '../child-process.ts';
import { type AccessLog, accessLog } from './access-log.ts';
import { nginxCertificate } from './certificate.ts';
import { type Listener, type NginxSetup, nginxConfig, type Placement } from './config.ts';

const EXECUTABLE = debianExecutable('nginx', 'nginx', '/usr/sbin/nginx', 'JITTERBUG_NGINX');

export const NGINX_INSTALL_HINT = EXECUTABLE.hint;

/** The nginx executable (`JITTERBUG_NGINX`, else Debian's), or an error saying it is missing and how to install it. */
export const nginxExecutable = EXECUTABLE.find;

export interface StartNginxOptions {
  /** The Node backend's URL (`http://127.0.0.1:PORT`), for locations that proxy to it. */
  readonly backend?: string;
}

export interface RunningNginx {
  readonly pid: number;
  /** The run's folder. */
  readonly dir: string;
  /** The certificate its TLS listeners serve (self-signed: a client's `ca`). */
  readonly ca: string;
  readonly config: string;
  /** A server's port for a listener. */
  port(server: string, listener: Listener): number;
  /** `http://` or `https://` `host:port` of a server's listener (host default `127.0.0.1`). */
  url(server: string, listener: Listener, host?: string): string;
  readonly accessLog: AccessLog;
  errorLog(): Promise<string>;
  /** TERM, then KILL after `graceMs`; then the folder is removed. Safe to call twice. */
  stop(graceMs?: number): Promise<void>;
}

const place = async (setup: NginxSetup, dir: string, backend: string | undefined): Promise<Placement> => {
  const listeners = setup.servers.flatMap((s) => s.listen.map((l) => [s.name, l] as const));
  const needsClosed = setup.servers.some((s) =>
    s.locations.some((l) => 'proxy' in l.to && l.to.proxy === 'closed-port'),
  );
  const ports = await freePorts(listeners.length + (needsClosed ? 1 : 0));
  const byServer = new Map<string, Partial<Record<Listener, number>>>();
  listeners.forEach(([server, listener], i) => {
    const own = byServer.get(server) ?? {};
    own[listener] = ports[i]!;
    byServer.set(server, own);
  });
  return {
    dir,
    ports: byServer,
    ...(backend === undefined ? {} : { backend: new URL(backend).host }),
    ...(needsClosed ? { closedPort: ports.at(-1)! } : {}),
  };
};

/**
 * Spawns nginx on `config` and waits until it has written its pid file (it does so once every
 * listening socket is bound). Resolves with the child, or the reason it exited.
 */
const launch = async (dir: string, executable: string): Promise<{ child: Child } | { failed: string }> => {
  const args = ['-p', `${dir}/`, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')];
  const child = spawnChild(executable, args);
  const pidFile = join(dir, 'nginx.pid');
  const wrote = async () => (await readFile(pidFile, 'utf8').catch(() => '')).trim() === String(child.pid);
  const failed = await waitUntil(child, wrote, 'nginx');
  if (failed === undefined) return { child };
  if (child.exited() === undefined) await child.stop(0);
  const errors = await readFile(join(dir, 'error.log'), 'utf8').catch(() => '');
  return { failed: `${failed}${errors}` };
};

/**
 * Starts nginx for `setup`. Ports are found free first and then bound by nginx: another process
 * taking one in between makes nginx fail to bind, and the start is tried again on new ports.
 */
export const startNginx = async (
  setup: NginxSetup,
  options: StartNginxOptions = {},
): Promise<RunningNginx> => {
  const executable = nginxExecutable();
  const { cert, key } = await nginxCertificate();
  const dir = await mkdtemp(join(tmpdir(), 'jitterbug-nginx-'));
  try {
    await writeFile(join(dir, 'cert.pem'), cert);
    await writeFile(join(dir, 'key.pem'), key, { mode: 0o600 });
    for (let tries = 1; ; tries++) {
      const where = await place(setup, dir, options.backend);
      const config = nginxConfig(setup, where);
      await writeFile(join(dir, 'nginx.conf'), config);
      const started = await launch(dir, executable);
      if ('failed' in started) {
        if (tries < 3 && started.failed.includes('Address already in use')) continue;
        throw new Error(started.failed);
      }
      return running(started.child, dir, cert, config, where);
    }
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
};

const running = (child: Child, dir: string, ca: string, config: string, where: Placement): RunningNginx => {
  const port = (server: string, listener: Listener): number => {
    const found = where.ports.get(server)?.[listener];
    if (found === undefined) throw new TypeError(`nginx has no ${listener} listener for server "${server}"`);
    return found;
  };
  let stopped: Promise<void> | undefined;
  const stop = async (graceMs: number): Promise<void> => {
    await child.stop(graceMs);
    await rm(dir, { recursive: true, force: true });
  };
  return {
    pid: child.pid,
    dir,
    ca,
    config,
    port,
    url: (server, listener, host = '127.0.0.1') =>
      `${listener === 'http' ? 'http' : 'https'}://${host}:${port(server, listener)}`,
    accessLog: accessLog(join(dir, 'access.log')),
    errorLog: () => readFile(join(dir, 'error.log'), 'utf8').catch(() => ''),
    stop(graceMs = 2_000) {
      stopped ??= stop(graceMs);
      return stopped;
    },
  };
};
