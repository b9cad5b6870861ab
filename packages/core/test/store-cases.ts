/**
 * The cases the store operations are tested on: for each operation, a state (none, one it wrote, one
 * near it, or numbers that are not its layout), its arguments and the store's time. The core's
 * property tests run the JavaScript bodies on them; `packages/redis/test/operations-lua.test.ts` runs
 * the Lua bodies on the same cases in a real Redis and asks for the same answers.
 */
import {
  BREAKER_PROBE,
  BREAKER_REPORT,
  BREAKER_SETTLE,
  BUDGET_LEASE,
  GCRA_LIMIT,
  GCRA_TAKE,
  NUMBER_LIMIT,
  type StoreOperation,
} from '@jitterbug/core/store';
import fc from 'fast-check';

export interface StepCase {
  readonly state: readonly number[] | undefined;
  readonly args: readonly number[];
  readonly nowMs: number;
}

/** The store's time: Redis's `TIME` in ms, to the microsecond. */
export const nowArb = fc
  .integer({ min: 1_600_000_000_000_000, max: 1_900_000_000_000_000 })
  .map((us) => us / 1000);

/** Any number an argument may be (within the limit), and the values where rules turn (0, 1, small whole numbers). */
const anyNumber = fc.oneof(
  fc.double({ min: -NUMBER_LIMIT, max: NUMBER_LIMIT, noNaN: true }),
  fc.constantFrom(0, 1, 2, -1, 0.1, 0.5),
  fc.integer({ min: -5, max: 100 }),
);
const duration = fc.oneof(fc.integer({ min: 0, max: 120_000 }), fc.double({ min: 0, max: 1e7, noNaN: true }));
const smallCount = fc.integer({ min: 0, max: 20 });
/** A breaker or prober id, as `newInstanceId` makes them, or one of a few (so that ids meet). */
const id = fc.oneof(fc.integer({ min: 0, max: 2 ** 48 - 1 }), fc.constantFrom(1, 2, 3));

/** A state of no layout: numbers of any length, any value (beyond the limit too). */
const garbage = fc.array(fc.oneof(anyNumber, fc.double({ noNaN: true, noDefaultInfinity: true })), {
  maxLength: 12,
});

const around = (nowMs: number) =>
  fc.oneof(
    fc.constant(nowMs),
    fc.double({ min: nowMs - 200_000, max: nowMs + 200_000, noNaN: true }),
    fc.constant(0),
  );

const leaseCase = nowArb.chain((nowMs) =>
  fc.record({
    state: fc.option(fc.oneof(fc.tuple(fc.double({ min: -1, max: 50, noNaN: true })), garbage), {
      nil: undefined,
    }),
    args: fc.tuple(
      fc.oneof(fc.double({ min: 0, max: 20, noNaN: true }), anyNumber),
      fc.oneof(smallCount, anyNumber),
      fc.oneof(fc.integer({ min: 1, max: 50 }), anyNumber),
      duration,
    ),
    nowMs: fc.constant(nowMs),
  }),
);

const gcraState = (nowMs: number) =>
  fc.option(fc.oneof(fc.tuple(around(nowMs), fc.oneof(fc.constant(0), duration), around(nowMs)), garbage), {
    nil: undefined,
  });

const gcraTakeCase = nowArb.chain((nowMs) =>
  fc.record({
    state: gcraState(nowMs),
    args: fc.tuple(
      fc.oneof(smallCount, anyNumber),
      fc.oneof(fc.constant(0), duration, anyNumber),
      fc.oneof(smallCount, anyNumber),
      fc.oneof(fc.constant(0), duration),
    ),
    nowMs: fc.constant(nowMs),
  }),
);

const gcraLimitCase = nowArb.chain((nowMs) =>
  fc.record({
    state: gcraState(nowMs),
    args: fc.tuple(
      fc.oneof(fc.constant(0), duration),
      fc.oneof(fc.constant(0), duration, anyNumber),
      fc.oneof(smallCount, anyNumber),
      duration,
    ),
    nowMs: fc.constant(nowMs),
  }),
);

/** A breaker state: closed, open or half-open, with a prober or none, and some instances. */
const breakerState = (nowMs: number) =>
  fc.option(
    fc.oneof(
      fc
        .tuple(
          fc.oneof(fc.constant(0), around(nowMs)),
          fc.oneof(fc.constant(0), id),
          fc.oneof(fc.constant(0), around(nowMs)),
          fc.array(fc.tuple(id, around(nowMs)), { maxLength: 70 }),
        )
        .map(([openUntil, prober, probeUntil, entries]) => [
          openUntil,
          prober,
          probeUntil,
          entries.length,
          ...entries.flat(),
        ]),
      garbage,
    ),
    { nil: undefined },
  );

const flag = fc.oneof(fc.constantFrom(0, 1), anyNumber);

const breakerReportCase = nowArb.chain((nowMs) =>
  fc.record({
    state: breakerState(nowMs),
    args: fc.tuple(
      id,
      flag,
      duration,
      fc.oneof(fc.integer({ min: 1, max: 10 }), anyNumber),
      duration,
      duration,
    ),
    nowMs: fc.constant(nowMs),
  }),
);

const breakerProbeCase = nowArb.chain((nowMs) =>
  fc.record({
    state: breakerState(nowMs),
    args: fc.tuple(id, duration, duration),
    nowMs: fc.constant(nowMs),
  }),
);

const breakerSettleCase = nowArb.chain((nowMs) =>
  fc.record({
    state: breakerState(nowMs),
    args: fc.tuple(id, flag, duration, duration),
    nowMs: fc.constant(nowMs),
  }),
);

/** Every operation with the arbitrary of its cases. */
export const OPERATION_CASES: readonly (readonly [StoreOperation, fc.Arbitrary<StepCase>])[] = [
  [BUDGET_LEASE, leaseCase],
  [GCRA_TAKE, gcraTakeCase],
  [GCRA_LIMIT, gcraLimitCase],
  [BREAKER_REPORT, breakerReportCase],
  [BREAKER_PROBE, breakerProbeCase],
  [BREAKER_SETTLE, breakerSettleCase],
];

/** Text a key may hold: numbers as either side writes them, and what neither should read as one. */
export const stateTextArb = fc.oneof(
  fc
    .array(fc.double({ noNaN: true, noDefaultInfinity: true }), { maxLength: 6 })
    .map((ns) => ns.map(String).join(' ')),
  fc.stringMatching(/^[0-9.eE+\- x]{0,12}$/),
  fc.constantFrom(
    '',
    ' ',
    '1 ',
    ' 1',
    '1  2',
    'inf',
    'nan',
    '0x10',
    '1e400',
    '-0',
    '1e-400',
    '.5',
    '5.',
    '+5',
    '--1',
  ),
);
