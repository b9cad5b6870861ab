import {
  BREAKER_MAX_INSTANCES,
  BREAKER_PROBE,
  BREAKER_REPORT,
  BREAKER_SETTLE,
  claimProbe,
  createMemoryStore,
  type FleetBreakerSettings,
  newInstanceId,
  reportBreak,
  settleProbe,
} from '@jitterbug/core/store';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

type State = readonly number[] | undefined;
const WINDOW = 10_000;
const BREAK = 5_000;
const PROBE = 1_000;
const KEEP = 60_000;

const report = (state: State, now: number, id: number, broken: boolean, quorum: number) => {
  const step = BREAKER_REPORT.apply(state, [id, broken ? 1 : 0, WINDOW, quorum, BREAK, KEEP], now);
  return { state: step.state, result: step.result };
};
const probe = (state: State, now: number, id: number) => {
  const step = BREAKER_PROBE.apply(state, [id, PROBE, KEEP], now);
  return { state: step.state ?? state, result: step.result };
};
const settle = (state: State, now: number, id: number, success: boolean) => {
  const step = BREAKER_SETTLE.apply(state, [id, success ? 1 : 0, BREAK, KEEP], now);
  return { state: step.state ?? state, result: step.result };
};

/** A fleet circuit opened at `now` by `quorum` instances (ids 1…quorum). */
const opened = (now: number, quorum: number): State => {
  let state: State;
  for (let id = 1; id <= quorum; id++) state = report(state, now, id, true, quorum).state;
  return state;
};

describe('breaker.report', () => {
  it('opens when a quorum of distinct instances broke within the window, not before', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 5 }), (quorum, repeats) => {
        let state: State;
        const now = 1_000_000;
        for (let id = 1; id < quorum; id++)
          for (let i = 0; i < repeats; i++) {
            const r = report(state, now + i, id, true, quorum);
            state = r.state;
            // The same instance reporting again counts once.
            expect(r.result).toEqual([0, 0, id]);
          }
        const last = report(state, now + repeats, quorum, true, quorum);
        expect(last.result).toEqual([1, BREAK, quorum]);
      }),
    );
  });

  it('forgets breaks older than the window, and an instance that closed again', () => {
    let state = report(undefined, 0, 1, true, 3).state;
    state = report(state, 5_000, 2, true, 3).state;
    expect(report(state, WINDOW + 1, 3, true, 3).result).toEqual([0, 0, 2]);
    state = report(state, 6_000, 2, false, 3).state;
    expect(report(state, 6_000, 3, true, 3).result).toEqual([0, 0, 2]);
  });

  it(`remembers at most ${BREAKER_MAX_INSTANCES} instances, the newest`, () => {
    let state: State;
    for (let id = 1; id <= BREAKER_MAX_INSTANCES + 10; id++) state = report(state, id, id, true, 1_000).state;
    expect(state![3]).toBe(BREAKER_MAX_INSTANCES);
    expect(state![4]).toBe(11);
  });
});

describe('breaker.probe', () => {
  it('grants nothing while closed or open, and says how long it stays open', () => {
    expect(probe(undefined, 0, 1).result).toEqual([0, 0, 0]);
    const state = opened(0, 2);
    expect(probe(state, 1_000, 1).result).toEqual([0, 1, BREAK - 1_000]);
  });

  it('elects exactly one prober per half-open period, whoever asks and however often', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: PROBE - 1 }), fc.integer({ min: 1, max: 6 })), {
          minLength: 1,
          maxLength: 60,
        }),
        (asks) => {
          let state = opened(0, 2);
          const granted = new Set<number>();
          for (const [offset, id] of [...asks].sort((a, b) => a[0] - b[0])) {
            const r = probe(state, BREAK + offset, id);
            state = r.state;
            if (r.result[0] === 1) granted.add(id);
          }
          expect(granted.size).toBe(1);
        },
      ),
    );
  });

  it('gives the half-open circuit to another instance once the prober’s period is over', () => {
    let state = opened(0, 2);
    state = probe(state, BREAK, 7).state;
    expect(probe(state, BREAK + PROBE - 1, 8).result).toEqual([0, 2, 1]);
    expect(probe(state, BREAK + PROBE, 8).result).toEqual([1, 2, PROBE]);
  });
});

describe('breaker.settle', () => {
  it('only the prober settles; success closes and forgets the breaks, failure reopens', () => {
    let state = opened(0, 2);
    state = probe(state, BREAK, 7).state;
    expect(settle(state, BREAK + 10, 8, true).result).toEqual([0, 2, 0]);
    const closed = settle(state, BREAK + 10, 7, true);
    expect(closed.result).toEqual([1, 0, 0]);
    expect(closed.state).toEqual([0, 0, 0, 0]);
    const reopened = settle(state, BREAK + 10, 7, false);
    expect(reopened.result).toEqual([1, 1, BREAK]);
    expect(probe(reopened.state, BREAK + 20, 8).result).toEqual([0, 1, BREAK - 10]);
  });
});

describe('the typed calls', () => {
  it('a fleet of three with a quorum of two: opens, elects one prober, closes', async () => {
    let now = 1_000_000;
    const store = createMemoryStore({ now: () => now });
    const random = [0.1, 0.5, 0.9];
    const settings = random.map(
      (r): FleetBreakerSettings => ({
        instanceId: newInstanceId(() => r),
        windowMs: WINDOW,
        quorum: 2,
        breakMs: BREAK,
        probeMs: PROBE,
        keepMs: KEEP,
      }),
    );
    const [a, b, c] = settings as [FleetBreakerSettings, FleetBreakerSettings, FleetBreakerSettings];
    expect(new Set(settings.map((s) => s.instanceId)).size).toBe(3);
    expect(await reportBreak(store, 'o', a, true)).toMatchObject({ value: { circuit: 'closed', broken: 1 } });
    expect(await reportBreak(store, 'o', b, true)).toMatchObject({
      value: { circuit: 'open', openForMs: BREAK },
    });
    now += BREAK;
    const claims = await Promise.all([
      claimProbe(store, 'o', c),
      claimProbe(store, 'o', a),
      claimProbe(store, 'o', b),
    ]);
    expect(claims.map((r) => r.ok && r.value.granted)).toEqual([true, false, false]);
    expect(await settleProbe(store, 'o', a, true)).toMatchObject({ value: { granted: false } });
    expect(await settleProbe(store, 'o', c, true)).toMatchObject({
      value: { granted: true, circuit: 'closed' },
    });
    expect(await claimProbe(store, 'o', a)).toMatchObject({ value: { granted: false, circuit: 'closed' } });
  });
});
