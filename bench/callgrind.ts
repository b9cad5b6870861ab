/**
 * Runs a bench script in Node under valgrind's callgrind and reads the instructions of each interval
 * between two of its calls of `os.getPriority()`, before which callgrind is told to dump its counts:
 * exact guest instructions, every thread, and those spent in V8's collector and compilers, which a
 * window of a few hundred requests holds or not, in lumps of millions that depend on where it falls.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchFile, MEASURED_ARGS } from './spawn.ts';

/**
 * No compiler or GC thread (`--predictable --single-threaded`): what V8 compiles and collects
 * happens at the same instruction every run. Without incremental marking a major GC's marking is
 * all inside the collection, which is taken out (in steps, the program's write barriers mark too).
 * No optimising compiler for WebAssembly: only the TypeScript stripper runs any in memory, and
 * optimising it cost 400 million instructions at start-up.
 */
const FLAGS = ['--predictable', '--single-threaded', '--no-incremental-marking', '--liftoff-only'];
/**
 * A collection set off inside a compile or a deoptimisation is in their cost already: callgrind names
 * each collection after its callers (`'` between them), and one under another entry is not counted
 * again (in trials a 67-million-instruction scavenge inside a TurboFan compile was, and made a window
 * of 300 requests come out at −125,000 instructions each).
 */
const CALLGRIND = [
  ...'--tool=callgrind --dump-before=uv_os_getpriority --dump-line=no --dump-instr=no'.split(' '),
  '--separate-callers100=v8::internal::Heap::CollectGarbage*',
];

/** Where V8 collects, compiles or deoptimises: a call into one from outside them is counted once. */
const ENTRIES = [
  'Heap::CollectGarbage( IncrementalMarking::Step( Runtime_CompileLazy( Runtime_CompileOptimizedOSR(',
  'Runtime_OptimizeMaglevEager( Runtime_OptimizeTurbofanEager( Runtime_InstallBaselineCode( Deoptimizer::New(',
  'Runtime_BytecodeBudgetInterrupt Runtime_NotifyDeoptimized( Runtime_Wasm Runtime_TierUpWasm',
]
  .flatMap((line) => line.split(' '))
  .map((name) => `v8::internal::${name}`);
// A lambda inside an entry point (`…CollectGarbage(…)::{lambda()#2}`) is not another entry.
const isEntry = (name: string): boolean => !name.includes(')::') && ENTRIES.some((e) => name.startsWith(e));
/** A call into an entry, from outside one, not under one. */
const counted = (caller: string, callee: string): boolean => {
  const [fn = '', ...callers] = callee.split("'");
  return isEntry(fn) && !isEntry(caller.split("'")[0]!) && !callers.some(isEntry);
};

export interface Interval {
  readonly total: number;
  /** Spent in the collector and the compilers. */
  readonly gcAndJit: number;
}

/**
 * Reads a dump written with `--dump-instr=no --dump-line=no`: names are `(id) name` the first time,
 * `(id)` after; a call is a `cfn=` line, a `calls=` line, then its inclusive cost.
 */
export const readDump = (text: string): Interval => {
  const names = new Map<string, string>();
  const nameOf = (field: string): string => {
    const [, id = field, name] = /^\((\d+)\)(?: (.*))?$/.exec(field) ?? [];
    if (name !== undefined) names.set(id, name);
    return names.get(id) ?? field;
  };
  let [caller, callee, costOfCall, total, gcAndJit] = ['', '', false, Number.NaN, 0];
  for (const line of text.split('\n')) {
    if (costOfCall && counted(caller, callee)) gcAndJit += Number(line.slice(line.lastIndexOf(' ') + 1));
    costOfCall = line.startsWith('calls=');
    if (line.startsWith('fn=')) caller = nameOf(line.slice(3));
    else if (line.startsWith('cfn=')) callee = nameOf(line.slice(4));
    else if (line.startsWith('totals: ')) total = Number(line.slice(8));
  }
  if (Number.isNaN(total)) throw new Error('callgrind: a dump without totals');
  return { total, gcAndJit };
};

export const valgrindVersion = (): string => {
  try {
    return execFileSync('valgrind', ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error('valgrind is not installed (Debian: apt-get install -y valgrind)');
  }
};

/** Runs `file` (under bench/) with `args` under callgrind: every interval, and its last line of stdout. */
export const runCounted = (file: string, args: readonly string[]) =>
  new Promise<{ intervals: Interval[]; lastLine: string }>((resolve, reject) => {
    const dir = mkdtempSync(join(tmpdir(), 'jitterbug-callgrind-'));
    const node = [process.execPath, ...MEASURED_ARGS, ...FLAGS, benchFile(file), ...args];
    const child = spawn('valgrind', [...CALLGRIND, `--callgrind-out-file=${join(dir, 'cg.out')}`, ...node]);
    let [out, err] = ['', ''];
    child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (err += s));
    child.on('error', reject);
    child.on('close', (code) => {
      try {
        const lines = err.split('\n').filter((l) => l && !l.startsWith('=='));
        if (code !== 0)
          throw new Error(`${file} under callgrind exited (${code}): ${lines.slice(-3).join(' / ')}`);
        // `cg.out.1`, `cg.out.2`, …, then `cg.out`: the part after the last mark.
        const part = (name: string): number => Number(name.slice(7) || Number.POSITIVE_INFINITY);
        const dumps = readdirSync(dir).sort((a, b) => part(a) - part(b));
        const intervals = dumps.map((name) => readDump(readFileSync(join(dir, name), 'utf8')));
        resolve({ intervals, lastLine: out.trim().split('\n').at(-1) ?? '' });
      } catch (error) {
        reject(error);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
