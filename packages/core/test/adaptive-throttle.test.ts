import { createAdaptiveThrottle, DEFAULT_THROTTLE } from '@jitterbug/core';
import { isAdaptiveThrottle } from '@jitterbug/core/adapter';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

const always = (value: number) => () => value;

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

  it('counts locally rejected requests, so a backend that accepts nothing is sent almost nothing', () => {
    const throttle = createAdaptiveThrottle();
    let sent = 0;
    let state = 1;
    // A deterministic uniform-ish sequence.
    const random = () => {
      state = (state * 16807) % 2147483647;
      return state / 2147483647;
    };
    for (let i = 0; i < 1000; i++) if (!throttle.shouldReject(i, random)) sent++;
    expect(sent).toBeLessThan(20);
    expect(throttle.rejectProbability(1000)).toBeGreaterThan(0.99);
  });

  it('forgets what fell out of the window', () => {
    const throttle = createAdaptiveThrottle({ windowMs: 1_200 });
    for (let i = 0; i < 100; i++) throttle.shouldReject(0, always(1));
    expect(throttle.rejectProbability(0)).toBeGreaterThan(0.9);
    // Half the window later the old requests still count; a whole window later they do not.
    expect(throttle.rejectProbability(600)).toBeGreaterThan(0.9);
    expect(throttle.rejectProbability(1_300)).toBe(0);
  });

  it('a clock that goes backwards or is NaN neither throws nor empties the window', () => {
    const throttle = createAdaptiveThrottle();
    for (let i = 0; i < 10; i++) throttle.shouldReject(5_000, always(1));
    expect(throttle.rejectProbability(1_000)).toBeCloseTo(10 / 11, 12);
    expect(throttle.rejectProbability(Number.NaN)).toBeCloseTo(10 / 11, 12);
  });

  it('keeps the probability in [0, 1) for any history', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(10_000), fc.boolean()), { maxLength: 300 }),
        fc.integer({ min: 1, max: 10 }),
        (events, k) => {
          const throttle = createAdaptiveThrottle({ k, windowMs: 5_000 });
          let t = 0;
          for (const [dt, ok] of events) {
            t += dt;
            throttle.shouldReject(t, Math.random);
            if (ok) throttle.accepted(t);
            const p = throttle.rejectProbability(t);
            if (!(p >= 0 && p < 1)) return false;
          }
          return true;
        },
      ),
    );
  });

  it('refuses invalid settings with a TypeError naming the option', () => {
    expect(() => createAdaptiveThrottle({ k: 0 })).toThrow(/"throttle\.k"/);
    expect(() => createAdaptiveThrottle({ windowMs: Number.NaN })).toThrow(/"throttle\.windowMs"/);
    expect(() => createAdaptiveThrottle({ kk: 2 } as never)).toThrow(/unknown option "throttle\.kk"/);
    expect(() => createAdaptiveThrottle(null as never)).toThrow(TypeError);
  });

  it('exposes its settings and is recognised', () => {
    const throttle = createAdaptiveThrottle();
    expect({ k: throttle.k, windowMs: throttle.windowMs }).toEqual(DEFAULT_THROTTLE);
    expect(isAdaptiveThrottle(throttle)).toBe(true);
    expect(isAdaptiveThrottle({ k: 2 })).toBe(false);
  });
});
