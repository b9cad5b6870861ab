/**
 * Debian's Caddy as a child process of the test (`caddy run`, in the foreground): its own folder
 * (Caddyfile, storage with its local CA, logs, and the config Caddy autosaves: `HOME` and the XDG
 * folders point there), its own ports on 127.0.0.1, reloaded as an operator does (`caddy reload
 * --force` through its admin endpoint: the new config's servers take the listeners over, the old
 * ones close their idle connections and finish what they have in flight), stopped by its pid
 * (TERM, then KILL) and its folder removed.
 *
 * Caddy missing is an error saying how to install it, never a reason to skip.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { promisify } from 'node:util';
import { type Child, debianExecutable, freePorts, spawnChild, waitUntil } from '../child-process.ts';
import type { RunningProxy } from '../running-proxy.ts';
import { type CaddyLogLine, caddyLog } from './access-log.ts';
import { type CaddyPlacement, type CaddySetup, caddyConfig } from './config.ts';

const EXECUTABLE = debianExecutable('caddy', 'caddy', '/usr/bin/caddy', 'JITTERBUG_CADDY');

export const CADDY_INSTALL_HINT = EXECUTABLE.hint;

/** The caddy executable (`JITTERBUG_CADDY`, else Debian's), or an error saying it is missing and how to install it. */
export const caddyExecutable = EXECUTABLE.find;

export interface RunningCaddy extends RunningProxy<CaddyLogLine> {
  /** Caddy's own log (start-up, reloads, errors). */
  caddyLog(): Promise<string>;
}

const run = promisify(execFile);

/** Whether a TLS handshake with the site succeeds against the CA's root: Caddy serves its certificate. */
const handshakes = async (port: number, rootPath: string): Promise<boolean> => {
  const ca = await readFile(rootPath, 'utf8').catch(() => undefined);
  if (ca === undefined) return false;
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, ca, ALPNProtocols: ['http/1.1'] });
    socket.once('secureConnect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
};

/** Starts Caddy for `setup` in front of the Node backend at `backend` (`http://127.0.0.1:PORT`). */
export const startCaddy = async (setup: CaddySetup, backend: string): Promise<RunningCaddy> => {
  const executable = caddyExecutable();
  const dir = await mkdtemp(join(tmpdir(), 'jitterbug-caddy-'));
  let child: Child | undefined;
  try {
    const [port, adminPort, httpPort, closedPort] = (await freePorts(4)) as [number, number, number, number];
    const where: CaddyPlacement = {
      dir,
      port,
      adminPort,
      httpPort,
      backend: new URL(backend).host,
      closedPort,
    };
    const config = caddyConfig(setup, where);
    const configPath = join(dir, 'Caddyfile');
    await writeFile(configPath, config);
    const env = {
      ...process.env,
      HOME: dir,
      XDG_CONFIG_HOME: join(dir, 'config'),
      XDG_DATA_HOME: join(dir, 'data'),
    };
    const args = ['--config', configPath, '--adapter', 'caddyfile'];
    child = spawnChild(executable, ['run', ...args], { env, cwd: dir });
    const rootPath = join(dir, 'storage', 'pki', 'authorities', 'local', 'root.crt');
    // Caddy starts in about 0.5 s here, and in several on a machine busy with other tests.
    const failed = await waitUntil(child, () => handshakes(port, rootPath), 'caddy', 15_000);
    if (failed) throw new Error(failed);
    const ca = await readFile(rootPath, 'utf8');
    const started = child;
    let stopped: Promise<void> | undefined;
    return {
      pid: started.pid,
      dir,
      ca,
      config,
      port,
      url: `https://127.0.0.1:${port}`,
      log: caddyLog(join(dir, 'access.log')),
      caddyLog: () => readFile(join(dir, 'caddy.log'), 'utf8').catch(() => ''),
      async reload() {
        const address = ['--address', `127.0.0.1:${adminPort}`, '--force'];
        await run(executable, ['reload', ...args, ...address], { env, cwd: dir }).catch((error: unknown) => {
          const { stderr } = error as { stderr?: string };
          throw new Error(`caddy reload failed: ${stderr ?? String(error)}`, { cause: error });
        });
      },
      stop(graceMs = 2_000) {
        stopped ??= started.stop(graceMs).then(() => rm(dir, { recursive: true, force: true }));
        return stopped;
      },
    };
  } catch (error) {
    await child?.stop(0);
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
};
