import {
  type Backoff,
  type BackoffState,
  constant,
  decorrelated,
  equal,
  exponential,
  full,
  initialBackoffState,
  nextDelay,
} from '@jitterbug/core';
import { backoffStrategies } from '@jitterbug/core/adapter';
import { describe, expect, it } from 'vitest';
import { exponentialEnvelope } from '../src/backoff.ts';
import { fixed } from './helpers.ts';

const params = { baseMs: 100, capMs: 20_000 };
const at = (attempt: number, prevMs?: number): BackoffState =>
  prevMs === undefined ? { attempt } : { attempt, prevMs };

describe('exponentialEnvelope', () => {
  it('is min(cap, base * 2^attempt)', () => {
    expect([0, 1, 2, 3, 7, 8].map((a) => exponentialEnvelope(a, params))).toEqual([
      100, 200, 400, 800, 12_800, 20_000,
    ]);
  });

  it('stays at the cap for huge attempts instead of overflowing', () => {
    for (const attempt of [53, 1023, 1024, 5000, Number.MAX_SAFE_INTEGER, Number.POSITIVE_INFINITY]) {
      expect(exponentialEnvelope(attempt, params)).toBe(20_000);
    }
  });

  it('is 0 when base is 0, whatever the attempt (no 0 * Infinity = NaN)', () => {
    expect(exponentialEnvelope(0, { baseMs: 0, capMs: 10 })).toBe(0);
    expect(exponentialEnvelope(5000, { baseMs: 0, capMs: 10 })).toBe(0);
  });

  it('keeps the exact formula past attempt 53 when base is tiny', () => {
    // base * 2^60 is still below the cap here: the envelope must not jump to the cap early.
    expect(exponentialEnvelope(60, { baseMs: 0.001, capMs: 1e16 })).toBe(0.001 * 2 ** 60);
  });
});

describe('constant', () => {
  it('waits base every time', () => {
    for (const attempt of [0, 1, 10, 100]) {
      expect(constant(at(attempt), params, fixed(0.9))[0]).toBe(100);
    }
  });
});

describe('exponential', () => {
  it('doubles from base and stops at the cap, ignoring random', () => {
    const delays = [0, 1, 2, 3, 10].map((a) => exponential(at(a), params, fixed(0.1))[0]);
    expect(delays).toEqual([100, 200, 400, 800, 20_000]);
  });
});

describe('full', () => {
  it('is random(0, envelope)', () => {
    expect(full(at(3), params, fixed(0))[0]).toBe(0);
    expect(full(at(3), params, fixed(0.5))[0]).toBe(400);
    expect(full(at(3), params, fixed(0.999))[0]).toBeCloseTo(799.2, 9);
    expect(full(at(20), params, fixed(0.5))[0]).toBe(10_000);
  });

  it('makes the first wait at most base, as the AWS SDKs do', () => {
    expect(full(initialBackoffState, params, fixed(0.999))[0]).toBeLessThan(100);
  });
});

describe('equal', () => {
  it('is t/2 + random(0, t/2)', () => {
    expect(equal(at(3), params, fixed(0))[0]).toBe(400);
    expect(equal(at(3), params, fixed(0.5))[0]).toBe(600);
    expect(equal(at(3), params, fixed(0.999))[0]).toBeCloseTo(799.6, 9);
    expect(equal(at(30), params, fixed(0))[0]).toBe(10_000);
  });
});

describe('decorrelated', () => {
  it('is min(cap, random(base, prev * 3)) with prev starting at base', () => {
    expect(decorrelated(initialBackoffState, params, fixed(0))[0]).toBe(100);
    expect(decorrelated(initialBackoffState, params, fixed(0.5))[0]).toBe(200); // 100 + 0.5 * 200
    expect(decorrelated(at(1, 1000), params, fixed(0.5))[0]).toBe(1_550); // 100 + 0.5 * 2900
    expect(decorrelated(at(1, 10_000), params, fixed(0.999))[0]).toBe(20_000);
  });

  it('feeds its delay into the next state', () => {
    const [first, state] = decorrelated(initialBackoffState, params, fixed(0.5));
    expect(state).toEqual({ attempt: 1, prevMs: first });
    expect(decorrelated(state, params, fixed(0.5))[0]).toBe(100 + 0.5 * (3 * first - 100));
  });
});

describe('every built-in strategy', () => {
  it('is listed by name', () => {
    expect(Object.keys(backoffStrategies).sort()).toEqual(
      ['constant', 'decorrelated', 'equal', 'exponential', 'full'].sort(),
    );
    expect(Object.isFrozen(backoffStrategies)).toBe(true);
  });

  it('advances the attempt and records the delay', () => {
    for (const strategy of Object.values(backoffStrategies)) {
      const [delay, next] = strategy(at(4, 300), params, fixed(0.25));
      expect(next).toEqual({ attempt: 5, prevMs: delay });
    }
  });
});

describe('nextDelay', () => {
  const returning =
    (value: number): Backoff =>
    (state) => [value, { attempt: state.attempt + 1 }];

  it('clamps a user strategy into [0, cap]', () => {
    expect(nextDelay(returning(-5), initialBackoffState, params, Math.random)[0]).toBe(0);
    expect(nextDelay(returning(1e12), initialBackoffState, params, Math.random)[0]).toBe(20_000);
    expect(nextDelay(returning(Number.NaN), initialBackoffState, params, Math.random)[0]).toBe(20_000);
    expect(nextDelay(returning(Number.POSITIVE_INFINITY), initialBackoffState, params, Math.random)[0]).toBe(
      20_000,
    );
    expect(nextDelay(returning(1234), initialBackoffState, params, Math.random)[0]).toBe(1234);
  });

  it('advances the state itself when a user strategy returns none', () => {
    const noState = (() => [50]) as unknown as Backoff;
    expect(nextDelay(noState, at(2), params, Math.random)).toEqual([50, { attempt: 3, prevMs: 50 }]);
  });
});
