/** The dump reader, which the ratchet's figures rest on (in `make test`; needs no valgrind). */
import { expect, test } from 'vitest';
import { readDump } from './callgrind.ts';

const GC = 'v8::internal::Heap::CollectGarbage(v8::internal::AllocationSpace, v8::GCCallbackFlags)';
const TURBOFAN = 'v8::internal::Runtime_OptimizeTurbofanEager(int, unsigned long*, v8::internal::Isolate*)';
// As `--dump-instr=no --dump-line=no` writes it: a name in full the first time, by number after; a
// call is `cfn=`, `calls=`, then its inclusive cost.
const DUMP = [
  ...['events: Ir', 'fn=(1) Builtins_JSEntry', '0 100', `cfn=(2) ${GC}`, 'calls=1 0', '0 300'],
  ...[`cfn=(3) ${TURBOFAN}`, 'calls=2 0', '0 200', 'fn=(2)', '0 250'],
  ...[`cfn=(4) ${GC.replace(/\)$/, ')::{lambda()#2}::operator()() const')}`, 'calls=1 0', '0 50'],
  ...['fn=(3)', '0 120', 'cfn=(2)', 'calls=1 0', '0 80'],
  ...['fn=(5) 0x0000000028137f00', '0 20', 'cfn=(3)', 'calls=1 0', '0 40', 'totals: 1000'],
].join('\n');

test('the total, and the cost of calls into the GC and the compilers from outside them', () => {
  // 300 + 200 + 40: neither the lambda inside the GC (50) nor the GC the compiler called (80,
  // already in the compiler's 200) counts again.
  expect(readDump(DUMP)).toEqual({ total: 1000, gcAndJit: 540 });
});

test("a collection under a compile, named after its callers, is in the compile's cost already", () => {
  const nested = `${GC}'v8::internal::HeapAllocator::CollectGarbage()'${TURBOFAN}'Builtins_CEntry`;
  const dump = ['fn=(1) Builtins_CEntry', `cfn=(2) ${TURBOFAN}`, 'calls=1 0', '0 900', 'fn=(3) Allocate'];
  const text = [...dump, `cfn=(4) ${nested}`, 'calls=1 0', '0 400', 'totals: 1000'].join('\n');
  expect(readDump(text)).toEqual({ total: 1000, gcAndJit: 900 });
});

test('a dump without totals is an error', () => {
  expect(() => readDump('events: Ir\nfn=(1) main\n0 5\n')).toThrow(/without totals/);
});
