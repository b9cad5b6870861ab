import { createAdaptiveThrottle, DEFAULT_THROTTLE } from '@jitterbug/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isAdaptiveThrottle } from '../src/features/throttle.ts';

const always = (value: number) => () => value;
const lehmer = () => {
  let state = 1;
  return () => {
    state = (state * 16807) % 2147483647;
    return state / 2147483647;
  };
};

describe('createAdaptiveThrottle', () => {
  it('never rejects while the backend accepts what it is sent', () => {
    const throttle = createAdaptiveThrottle();
    for (let t = 0; t < 1000; t++) {
      expect(throttle.shouldReject(t * 10, always(0))).toBe(false);
      throttle.accepted(t * 10);
    }
    expect(throttle.rejectProbability(10_000)).toBe(0);
  });

  it('rejects with probability (requests − K·accepts) / (requests + 1)', () => {
    const throttle = createAdaptiveThrottle({ k: 2 });
    // 30 requests, 10 accepted: (30 − 20) / 31.
    for (let i = 0; i < 30; i++) {
      throttle.shouldReject(0, always(0.999));
      if (i < 10) throttle.accepted(0);
    }
    expect(throttle.rejectProbability(0)).toBeCloseTo(10 / 31, 12);
    // The draw is compared with that probability: below it rejects, above it does not.
    expect(throttle.shouldReject(0, always(0.3))).toBe(true);
    expect(throttle.shouldReject(0, always(0.5))).toBe(false);
  });

  it('counts locally rejected requests, so a backend that accepts nothing is sent a fifth of them (at most 0.8 refused)', () => {
    const throttle = createAdaptiveThrottle();
    let sent = 0;
    // A deterministic uniform-ish sequence.
    const random = lehmer();
    for (let i = 0; i < 1000; i++) if (!throttle.shouldReject(i, random)) sent++;
    expect(sent).toBeGreaterThan(180);
    expect(sent).toBeLessThan(240);
    expect(throttle.rejectProbability(1000)).toBe(0.8);
    // As the SRE book states it (no cap) such a backend is sent almost nothing.
    const uncapped = createAdaptiveThrottle({ maxRejectProbability: 1 });
    let sentUncapped = 0;
    const random2 = lehmer();
    for (let i = 0; i < 1000; i++) if (!uncapped.shouldReject(i, random2)) sentUncapped++;
    expect(sentUncapped).toBeLessThan(20);
  });

  it('a backend that is back: k + 1 answers accepted in a row while it refused half or more, and the window is forgotten', () => {
    const throttle = createAdaptiveThrottle({ k: 2, windowMs: 10_000 });
    for (let i = 0; i < 200; i++) throttle.shouldReject(i, always(1));
    throttle.refused();
    expect(throttle.rejectProbability(200)).toBe(0.8);
    throttle.accepted(201);
    throttle.accepted(202);
    expect(throttle.rejectProbability(202)).toBe(0.8);
    throttle.accepted(203);
    expect(throttle.rejectProbability(203)).toBe(0);
  });

  it('a partial overload is not forgotten: accepts broken by refusals, or while it refuses less than half', () => {
    const throttle = createAdaptiveThrottle({ k: 2, windowMs: 10_000 });
    for (let i = 0; i < 200; i++) throttle.shouldReject(i, always(1));
    // 200 requests, then two accepted and one refused, twenty times: (200 − 2·40) / 201 ≈ 0.6.
    for (let i = 0; i < 20; i++) {
      throttle.accepted(300 + i);
      throttle.accepted(300 + i);
      throttle.refused();
    }
    expect(throttle.rejectProbability(400)).toBeCloseTo(120 / 201, 12);
    // Refusing less than half ((100 − 2·28) / 101 ≈ 0.44): three accepts in a row leave the window.
    const mild = createAdaptiveThrottle({ k: 2, windowMs: 10_000 });
    for (let i = 0; i < 100; i++) mild.shouldReject(i, always(1));
    for (let i = 0; i < 14; i++) {
      mild.accepted(200);
      mild.accepted(200);
      mild.refused();
    }
    for (let i = 0; i < 3; i++) mild.accepted(200);
    expect(mild.rejectProbability(200)).toBeCloseTo(38 / 101, 12);
  });

  it('accepts in a row while it refuses less than half forget the buckets before the newest one', () => {
    // A 12 s window: buckets of 1 s. 100 requests and 30 accepts a second ago, then a request and
    // three accepts in a row now: only the newest bucket is left, where nothing is refused.
    const throttle = createAdaptiveThrottle({ k: 2, windowMs: 12_000 });
    for (let i = 0; i < 100; i++) throttle.shouldReject(0, always(1));
    for (let i = 0; i < 15; i++) {
      throttle.accepted(0);
      throttle.accepted(0);
      throttle.refused();
    }
    throttle.shouldReject(1_000, always(1));
    expect(throttle.rejectProbability(1_000)).toBeCloseTo(41 / 102, 12);
    for (let i = 0; i < 3; i++) throttle.accepted(1_000);
    expect(throttle.rejectProbability(1_000)).toBe(0);
  });

  it('forgets what fell out of the window', () => {
    const throttle = createAdaptiveThrottle({ windowMs: 1_200 });
    for (let i = 0; i < 100; i++) throttle.shouldReject(0, always(1));
    expect(throttle.rejectProbability(0)).toBe(0.8);
    // Half the window later the old requests still count; a whole window later they do not.
    expect(throttle.rejectProbability(600)).toBe(0.8);
    expect(throttle.rejectProbability(1_300)).toBe(0);
  });

  it('a clock that goes backwards or is NaN neither throws nor empties the window', () => {
    const throttle = createAdaptiveThrottle({ maxRejectProbability: 1 });
    for (let i = 0; i < 10; i++) throttle.shouldReject(5_000, always(1));
    expect(throttle.rejectProbability(1_000)).toBeCloseTo(10 / 11, 12);
    expect(throttle.rejectProbability(Number.NaN)).toBeCloseTo(10 / 11, 12);
  });

  it('keeps the probability in [0, maxRejectProbability] (and below 1) for any history', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(10_000), fc.constantFrom('accepted', 'refused', 'none')), {
          maxLength: 300,
        }),
        fc.integer({ min: 1, max: 10 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (events, k, max) => {
          const throttle = createAdaptiveThrottle({ k, windowMs: 5_000, maxRejectProbability: max });
          let t = 0;
          for (const [dt, answer] of events) {
            t += dt;
            throttle.shouldReject(t, Math.random);
            if (answer === 'accepted') throttle.accepted(t);
            if (answer === 'refused') throttle.refused();
            const p = throttle.rejectProbability(t);
            if (!(p >= 0 && p <= max && p < 1)) return false;
          }
          return true;
        },
      ),
    );
  });

  it('refuses invalid settings with a TypeError naming the option', () => {
    expect(() => createAdaptiveThrottle({ k: 0 })).toThrow(/"throttle\.k"/);
    expect(() => createAdaptiveThrottle({ windowMs: Number.NaN })).toThrow(/"throttle\.windowMs"/);
    expect(() => createAdaptiveThrottle({ maxRejectProbability: 1.5 })).toThrow(
      /"throttle\.maxRejectProbability"/,
    );
    expect(() => createAdaptiveThrottle({ kk: 2 } as never)).toThrow(/unknown option "throttle\.kk"/);
    expect(() => createAdaptiveThrottle(null as never)).toThrow(TypeError);
  });

  it('exposes its settings and is recognised', () => {
    const throttle = createAdaptiveThrottle();
    expect({
      k: throttle.k,
      windowMs: throttle.windowMs,
      maxRejectProbability: throttle.maxRejectProbability,
    }).toEqual(DEFAULT_THROTTLE);
    expect(isAdaptiveThrottle(throttle)).toBe(true);
    expect(isAdaptiveThrottle({ k: 2 })).toBe(false);
  });
});
