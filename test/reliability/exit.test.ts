/**
 * The process can exit: a separate Node process runs every client under faults, closes them and
 * its server, and must then end by itself (no `process.exit()`), promptly, with status 0.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

it('after load with faults on every client, the process ends by itself', async () => {
  const script = fileURLToPath(new URL('./exit-child.ts', import.meta.url));
  const child = spawn(process.execPath, ['--conditions=@jitterbug/source', script, '300'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let doneAt: number | undefined;
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (stdout.includes('done') && doneAt === undefined) doneAt = Date.now();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve(null);
    }, 45_000);
    child.on('exit', (exitCode) => {
      clearTimeout(timer);
      resolve(exitCode);
    });
  });
  const lingered = doneAt === undefined ? undefined : Date.now() - doneAt;
  expect({ code, stderr: stderr.slice(0, 2000) }).toEqual({ code: 0, stderr: '' });
  expect(stdout).toMatch(/^done \d+ \d+\n$/);
  const [, sent, clients] = stdout.trim().split(' ').map(Number);
  expect(sent).toBe(300 * clients!);
  // Ended on its own, right after the work was done (nothing kept the event loop alive).
  expect(lingered).toBeLessThan(2_000);
}, 60_000);
