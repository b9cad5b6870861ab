/**
 * Reads one callgrind dump: its total instructions, and how many of them were spent in V8's garbage
 * collector and in its compilers (tiering, lazy and optimising compiles, deoptimisation). Those are
 * found from the call graph: the inclusive cost of every call into one of the entry points below
 * from a function that is not one itself. What is left is the program's own work.
 *
 * Why take them out: a window of a few hundred requests holds a whole scavenge or not, a compile
 * of a function that tiered up just then or not; both come in lumps of millions of instructions
 * that depend on where the window falls, not on the requests in it. Compiles are a process's
 * warm-up; GC is reported beside the rest, per request, as the loopback sections report GC pauses.
 */
import { readFileSync } from 'node:fs';

/**
 * Where V8 does the work of its garbage collector: a collection, and a step of incremental marking
 * (by task or on allocation). Neither runs inside the other; the task that finishes marking calls
 * both, which is why the task itself is not an entry (it counted a mark-compact twice).
 */
const GC_ENTRIES = ['v8::internal::Heap::CollectGarbage(', 'v8::internal::IncrementalMarking::Step('];
/** Where generated code enters V8's compilers and deoptimiser (runtime functions: they do not nest). */
const JIT_ENTRIES = [
  'v8::internal::Runtime_CompileLazy(',
  'v8::internal::Runtime_CompileOptimizedOSR(',
  'v8::internal::Runtime_OptimizeMaglevEager(',
  'v8::internal::Runtime_OptimizeTurbofanEager(',
  'v8::internal::Runtime_InstallBaselineCode(',
  'v8::internal::Runtime_BytecodeBudgetInterrupt',
  'v8::internal::Runtime_NotifyDeoptimized(',
  'v8::internal::Deoptimizer::New(',
  'v8::internal::Runtime_Wasm',
  'v8::internal::Runtime_TierUpWasm',
];

type Kind = 'gc' | 'jit';

// A lambda inside an entry point (`…CollectGarbage(…)::{lambda()#2}`) is not another entry.
const kindOf = (name: string): Kind | undefined => {
  if (name.includes(')::')) return undefined;
  if (GC_ENTRIES.some((entry) => name.startsWith(entry))) return 'gc';
  if (JIT_ENTRIES.some((entry) => name.startsWith(entry))) return 'jit';
  return undefined;
};

export interface DumpCounts {
  readonly total: number;
  readonly gc: number;
  readonly jit: number;
}

/**
 * Parses a dump written with `--dump-instr=no --dump-line=no` (compressed names: `(id) name` the
 * first time, `(id)` after). A call is a `cfn=` line, a `calls=` line, then its inclusive cost.
 */
export const readDump = (file: string): DumpCounts => {
  const names = new Map<string, string>();
  const nameOf = (field: string): string => {
    const match = /^\((\d+)\)(?: (.*))?$/.exec(field);
    if (!match) return field;
    const [, id = '', name] = match;
    if (name !== undefined) names.set(id, name);
    return names.get(id) ?? '';
  };
  let caller = '';
  let callee = '';
  let costOfCall = false;
  let total: number | undefined;
  const spent = { gc: 0, jit: 0 };
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (costOfCall) {
      costOfCall = false;
      const kind = kindOf(callee);
      if (kind && !kindOf(caller)) spent[kind] += Number(line.slice(line.lastIndexOf(' ') + 1));
    } else if (line.startsWith('fn=')) caller = nameOf(line.slice(3));
    else if (line.startsWith('cfn=')) callee = nameOf(line.slice(4));
    else if (line.startsWith('calls=')) costOfCall = true;
    else if (line.startsWith('totals: ')) total = Number(line.slice('totals: '.length));
  }
  if (total === undefined) throw new Error(`callgrind: no totals in ${file}`);
  return { total, ...spent };
};
