/**
 * Node 22 and 24, Bun and Deno as child processes that run the package sources as they are
 * (`in-runtime/entries/stdio.ts`): jobs go to the child's stdin one line each, replies come back
 * on its stdout. The child's stderr is kept to say why it died.
 */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { type Job, type JobReply, REPLY_MARK } from '../protocol.ts';
import type { RuntimeHost } from './host.ts';

export interface ProcessSpec {
  readonly command: string;
  readonly args: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd: string;
}

const READY_TIMEOUT_MS = 30_000;
const STDERR_KEEP = 4_000;

export const startProcessHost = async (spec: ProcessSpec): Promise<RuntimeHost> => {
  const child: ChildProcessByStdio<Writable, Readable, Readable> = spawn(spec.command, [...spec.args], {
    cwd: spec.cwd,
    env: { ...process.env, ...spec.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_KEEP);
  });
  let exited: string | undefined;
  const waiting: { resolve: (line: string) => void; reject: (error: Error) => void }[] = [];
  const died = (why: string): Error => new Error(`${spec.command} ${why}; its stderr ends with:\n${stderr}`);
  child.on('error', (error) => {
    exited = `could not run: ${error.message}`;
    for (const w of waiting.splice(0)) w.reject(died(exited));
  });
  child.on('exit', (code, signal) => {
    exited = `exited (code ${code}, signal ${signal})`;
    for (const w of waiting.splice(0)) w.reject(died(exited));
  });
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (line.startsWith(REPLY_MARK)) waiting.shift()?.resolve(line.slice(REPLY_MARK.length));
  });
  const nextReply = (): Promise<string> =>
    exited !== undefined
      ? Promise.reject(died(exited))
      : new Promise((resolve, reject) => waiting.push({ resolve, reject }));

  let timer: NodeJS.Timeout | undefined;
  let version: string;
  try {
    // The entry's first line says it is ready, and which runtime it is.
    version = await Promise.race([
      nextReply().then((line) => String((JSON.parse(line) as { ready: unknown }).ready)),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(died(`was not ready within ${READY_TIMEOUT_MS} ms`)),
          READY_TIMEOUT_MS,
        );
      }),
    ]);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  } finally {
    clearTimeout(timer);
  }

  // One job at a time: the suite runs a runtime's scenarios in order.
  let queue: Promise<unknown> = Promise.resolve();
  return {
    version,
    run(job: Job): Promise<JobReply> {
      const reply = queue.then(async () => {
        const next = nextReply();
        child.stdin.write(`${JSON.stringify(job)}\n`);
        return JSON.parse(await next) as JobReply;
      });
      queue = reply.catch(() => {});
      return reply;
    },
    async close() {
      if (exited !== undefined) return;
      const exit = once(child, 'exit');
      child.stdin.end();
      const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exit;
      clearTimeout(kill);
    },
  };
};
