import { seededRandom } from '@jitterbug/core';
import { describe, expect, it } from 'vitest';
import { createLatency, createStandardNormal, EventHeap, summarize } from '../src/index.ts';

describe('createStandardNormal', () => {
  it('has the moments and tails of a standard normal', () => {
    const normal = createStandardNormal(seededRandom(11));
    const n = 400_000;
    const xs = new Float64Array(n);
    let beyond2 = 0;
    let beyond3 = 0;
    let fourth = 0;
    for (let i = 0; i < n; i++) {
      const x = normal();
      xs[i] = x;
      if (Math.abs(x) > 1.959964) beyond2++;
      if (x > 3) beyond3++;
      fourth += x ** 4;
    }
    const s = summarize(xs);
    expect(Math.abs(s.mean)).toBeLessThan(0.01);
    expect(Math.abs(s.sd - 1)).toBeLessThan(0.01);
    expect(Math.abs(beyond2 / n - 0.05)).toBeLessThan(0.002);
    expect(Math.abs(beyond3 / n - 0.00135)).toBeLessThan(0.0003);
    expect(Math.abs(fourth / n - 3)).toBeLessThan(0.1);
  });

  it('is deterministic under a seed', () => {
    const a = createStandardNormal(seededRandom(5));
    const b = createStandardNormal(seededRandom(5));
    for (let i = 0; i < 1000; i++) expect(a()).toBe(b());
  });
});

describe('createLatency', () => {
  it('is never negative and centred on the mean', () => {
    const delay = createLatency(seededRandom(2), { meanMs: 1, sdMs: 2 });
    const xs = Array.from({ length: 10_000 }, delay);
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    const typical = createLatency(seededRandom(2), { meanMs: 10, sdMs: 2 });
    const s = summarize(Array.from({ length: 50_000 }, typical));
    expect(s.mean).toBeCloseTo(10, 1);
    expect(s.sd).toBeCloseTo(2, 1);
  });
});

describe('EventHeap', () => {
  it('pops in time order, with replaceTop rescheduling the earliest', () => {
    const random = seededRandom(3);
    const heap = new EventHeap(200);
    const when = new Map<number, number>();
    for (let id = 0; id < 200; id++) {
      const t = random() * 1000;
      heap.push(id, t);
      when.set(id, t);
    }
    let last = -1;
    let reschedules = 0;
    while (heap.size > 0) {
      const id = heap.peek();
      const t = heap.peekTime();
      expect(t).toBe(when.get(id));
      expect(t).toBeGreaterThanOrEqual(last);
      last = t;
      if (reschedules < 300 && random() < 0.5) {
        const next = t + random() * 100;
        heap.replaceTop(next);
        when.set(id, next);
        reschedules++;
      } else {
        expect(heap.pop()).toBe(id);
      }
    }
  });
});
