/**
 * Runs a bench script in Node under valgrind's callgrind and reads the instructions it executed,
 * interval by interval: callgrind dumps its counts each time the script calls `os.getPriority()`
 * (`--dump-before=uv_os_getpriority`), so one process yields the instructions between each pair of
 * consecutive calls, exactly (guest instructions, every thread). Nothing about them follows the
 * wall clock unless the script waits for the network or a timer.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DumpCounts, readDump } from './callgrind-dump.ts';
import { benchFile, MEASURED_FLAGS, NODE_FLAGS } from './spawn.ts';

/**
 * Node's flags for a counted process: the measured processes' own (tier-up thresholds, seeds, GC
 * settings: `spawn.ts`), and `--predictable --single-threaded`: no compiler or GC thread, so that
 * what V8 compiles and collects happens at the same instruction every run. Without incremental
 * marking, a major GC's marking is all inside the collection, which the counts take out: marked in
 * steps, it also slowed the program's own code (its write barriers mark while marking is on) in
 * whichever windows it fell, by up to a sixth of a request in trials.
 */
export const COUNTED_FLAGS = [
  ...NODE_FLAGS,
  ...MEASURED_FLAGS,
  '--predictable',
  '--single-threaded',
  '--no-incremental-marking',
];

const CALLGRIND = [
  '--tool=callgrind',
  '--dump-before=uv_os_getpriority',
  // Totals are all that is read: no per-line or per-instruction detail to write at each dump.
  '--dump-line=no',
  '--dump-instr=no',
];

/** valgrind's version line, or `undefined` when it cannot be run. */
export const valgrindVersion = (): string | undefined => {
  try {
    return execFileSync('valgrind', ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
};

/** Each dump file, in the order callgrind wrote them (`.1`, `.2`, …, then the last part). */
const readDumps = (dir: string): DumpCounts[] => {
  const part = (name: string): number => Number(name.slice('cg.out.'.length) || Number.POSITIVE_INFINITY);
  return readdirSync(dir)
    .filter((name) => name.startsWith('cg.out'))
    .sort((a, b) => part(a) - part(b))
    .map((name) => readDump(join(dir, name)));
};

export interface CountedRun {
  /** Instructions of each interval between marks: before the first, between each pair, after the last. */
  readonly intervals: readonly DumpCounts[];
  /** The script's last line of stdout. */
  readonly lastLine: string;
}

/** Runs `file` (under bench/) with `args` under callgrind, Node given `flags` besides {@link COUNTED_FLAGS}. */
export const runCounted = (
  file: string,
  args: readonly string[],
  flags: readonly string[] = [],
): Promise<CountedRun> =>
  new Promise((resolve, reject) => {
    const dir = mkdtempSync(join(tmpdir(), 'jitterbug-callgrind-'));
    const child = spawn(
      'valgrind',
      [
        ...CALLGRIND,
        `--callgrind-out-file=${join(dir, 'cg.out')}`,
        process.execPath,
        ...COUNTED_FLAGS,
        ...flags,
        benchFile(file),
        ...args,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
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
      try {
        if (code !== 0) {
          const lines = err.split('\n').filter((l) => l && !l.startsWith('=='));
          throw new Error(`${file} under callgrind failed (exit ${code}): ${lines.slice(-3).join(' / ')}`);
        }
        resolve({ intervals: readDumps(dir), lastLine: out.trim().split('\n').at(-1) ?? '' });
      } catch (error) {
        reject(error);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
