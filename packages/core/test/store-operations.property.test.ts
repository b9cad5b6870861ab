/**
 * What holds for every store operation, on every case of `store-cases.ts`: a result of the declared
 * length, finite; a state that is written is one the operation reads back as its own (never garbage
 * after a step), kept for at least 1 ms; and nothing but the arguments and the store's time decides.
 */
import {
  applyOperation,
  decodeState,
  encodeState,
  keptFor,
  NUMBER_LIMIT,
  parseNumber,
} from '@jitterbug/core/store';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OPERATION_CASES, stateTextArb } from './store-cases.ts';

describe.each(OPERATION_CASES.map(([op, cases]) => [op.name, op, cases] as const))(
  '%s',
  (_name, operation, cases) => {
    it('answers its declared number of finite results, and writes a state it reads back', () => {
      fc.assert(
        fc.property(cases, ({ state, args, nowMs }) => {
          const applied = applyOperation(operation, state && encodeState(state), args, nowMs);
          expect(applied.result).toHaveLength(operation.results);
          for (const n of applied.result) expect(Number.isFinite(n)).toBe(true);
          if (applied.write) {
            expect(applied.write.ttlMs).toBeGreaterThanOrEqual(1);
            const again = decodeState(applied.write.text);
            // Only a number past the limit (from arguments near it) makes a state unreadable.
            if (again === undefined) {
              expect(applied.write.text.split(' ').some((t) => Math.abs(Number(t)) > NUMBER_LIMIT)).toBe(
                true,
              );
              return;
            }
            // The state it wrote is read as its own: applying once more from it gives what the step
            // gives from those numbers (not a fresh start).
            const fromText = applyOperation(operation, applied.write.text, args, nowMs);
            const fromNumbers = operation.apply(again, args, nowMs);
            expect(fromText.result).toEqual(fromNumbers.result.map((n) => (n === 0 ? 0 : n)));
          }
        }),
        { numRuns: 500 },
      );
    });

    it('reads a state that is not its layout as no state', () => {
      fc.assert(
        fc.property(cases, stateTextArb, ({ args, nowMs }, text) => {
          const state = decodeState(text);
          const applied = applyOperation(operation, text, args, nowMs);
          expect(applied).toEqual(applyOperation(operation, state && encodeState(state), args, nowMs));
        }),
      );
    });
  },
);

describe('the codec', () => {
  it('reads back every number within the limit it writes, -0 as 0', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -NUMBER_LIMIT, max: NUMBER_LIMIT, noNaN: true }), { minLength: 1 }),
        (ns) => {
          expect(decodeState(encodeState(ns))).toEqual(ns.map((n) => (n === 0 ? 0 : n)));
        },
      ),
    );
  });

  it('reads no state from text with a part that is not a finite number', () => {
    for (const text of ['', ' ', '1 ', ' 1', '1  2', 'inf', 'nan', 'Infinity', '0x10', '1e400', '1,2', '1e'])
      expect(decodeState(text)).toBeUndefined();
    expect(parseNumber('-0')).toBe(0);
    expect(Object.is(parseNumber('-0'), 0)).toBe(true);
    expect(decodeState('.5 5. +5 1e-400')).toEqual([0.5, 5, 5, 0]);
    expect(decodeState('1e15 -1e15')).toEqual([1e15, -1e15]);
    expect(decodeState('1.0000000000000002e15')).toBeUndefined();
    expect(parseNumber('1e300', Number.POSITIVE_INFINITY)).toBe(1e300);
  });

  it('keeps a state between 1 ms and 30 days', () => {
    expect(keptFor(0)).toBe(1);
    expect(keptFor(-5)).toBe(1);
    expect(keptFor(Number.NaN)).toBe(1);
    expect(keptFor(1.2)).toBe(2);
    expect(keptFor(1e15)).toBe(30 * 24 * 3600 * 1000);
  });
});
