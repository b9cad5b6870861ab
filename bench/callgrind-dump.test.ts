/**
 * Unit test of the callgrind dump reader (not part of `make test`, which does not look in bench/):
 *
 *   node --conditions=@jitterbug/source --test bench/callgrind-dump.test.ts
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { readDump } from './callgrind-dump.ts';

const GC =
  'v8::internal::Heap::CollectGarbage(v8::internal::AllocationSpace, v8::internal::GarbageCollectionReason, v8::GCCallbackFlags)';
const TURBOFAN = 'v8::internal::Runtime_OptimizeTurbofanEager(int, unsigned long*, v8::internal::Isolate*)';

// What `--dump-instr=no --dump-line=no` writes: names in full the first time, by number after; a
// call is `cfn=`, `calls=`, then the call's inclusive cost.
const DUMP = `# callgrind format
version: 1
positions: line
events: Ir
summary: 1000

fn=(1) Builtins_JSEntry
0 100
cfn=(2) ${GC}
calls=1 0
0 300
cfn=(3) ${TURBOFAN}
calls=2 0
0 200

fn=(2)
0 250
cfn=(4) ${GC.replace(/\)$/, ')::{lambda()#2}::operator()() const')}
calls=1 0
0 50

fn=(3)
0 120
cfn=(2)
calls=1 0
0 80

fn=(5) 0x0000000028137f00
0 20
cfn=(3)
calls=1 0
0 40
totals: 1000
`;

test('the total, and the inclusive cost of calls into the GC and the compilers from outside them', () => {
  const dir = mkdtempSync(join(tmpdir(), 'callgrind-dump-test-'));
  try {
    const file = join(dir, 'cg.out.1');
    writeFileSync(file, DUMP);
    // GC: the 300 of the call from the JS entry; neither the lambda inside it (50) nor the GC the
    // compiler called (80, already in the compiler's 200) counts again. Compilers: 200 + 40.
    assert.deepEqual(readDump(file), { total: 1000, gc: 300, jit: 240 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a dump without totals is an error', () => {
  const dir = mkdtempSync(join(tmpdir(), 'callgrind-dump-test-'));
  try {
    const file = join(dir, 'cg.out.2');
    writeFileSync(file, 'events: Ir\nfn=(1) main\n0 5\n');
    assert.throws(() => readDump(file), /no totals/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
