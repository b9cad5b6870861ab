/**
 * Whether a server harness leaves its server running when the test process is killed outright:
 * `killed-parent-child.ts` starts the server in a Node process of its own, which this kills with
 * SIGKILL (no exit handler runs); `setpriv --pdeathsig KILL` must then have the kernel kill the
 * server. Resolves with the server's pids still alive after 2 s (none, when it works).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { alive, sleep } from './child-process.ts';

/** The pids of `pid`'s children (an HAProxy master's workers). */
const childrenOf = (pid: number): number[] => {
  try {
    const tasks = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
    return tasks === '' ? [] : tasks.split(' ').map(Number);
  } catch {
    return [];
  }
};

export interface KilledParent {
  /** The server's pids that ran before the kill (the master and its workers). */
  readonly before: readonly number[];
  /** Those still alive 2 s after it. */
  readonly after: readonly number[];
}

export const killParentOf = async (server: 'haproxy' | 'caddy'): Promise<KilledParent> => {
  const script = join(import.meta.dirname, 'killed-parent-child.ts');
  const child = spawn(process.execPath, ['--conditions=@jitterbug/source', script, server], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // The child prints one line once the server runs; one that exits first failed to start it.
  const [line] = (await Promise.race([
    once(child.stdout!, 'data'),
    once(child, 'exit').then(() => {
      throw new Error(`the child that starts ${server} exited before it ran (see its stderr above)`);
    }),
  ])) as [Buffer];
  const [pid, dir] = line.toString().trim().split(' ');
  const before = [Number(pid), ...childrenOf(Number(pid))].filter(alive);
  child.kill('SIGKILL');
  await once(child, 'exit');
  for (let waited = 0; before.some(alive) && waited < 2_000; waited += 10) await sleep(10);
  // Only the folder is left, for no one removed it: this does.
  await rm(dir!, { recursive: true, force: true });
  return { before, after: before.filter(alive) };
};
