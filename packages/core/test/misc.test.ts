import { createRetryPolicy, getRetryInfo, type RetryInfo, seededBits, seededRandom } from '@jitterbug/core';
import { privateSlot, setRetryInfo } from '@jitterbug/core/adapter';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideOn } from './decisions.ts';
import { decided } from './helpers.ts';

describe('seededRandom', () => {
  it('is reproducible and in [0, 1)', () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const a = seededRandom(seed);
        const b = seededRandom(seed);
        for (let i = 0; i < 20; i++) {
          const x = a();
          expect(x).toBe(b());
          expect(x).toBeGreaterThanOrEqual(0);
          expect(x).toBeLessThan(1);
        }
      }),
    );
  });

  it('different and neighbouring seeds give different sequences', () => {
    const firsts = new Set(Array.from({ length: 100 }, (_, seed) => seededRandom(seed)()));
    expect(firsts.size).toBe(100);
    // Neighbouring seeds do not start close to each other.
    const gaps = Array.from({ length: 99 }, (_, s) => Math.abs(seededRandom(s)() - seededRandom(s + 1)()));
    expect(gaps.filter((g) => g < 0.01).length).toBeLessThan(10);
  });

  it('is roughly uniform', () => {
    const random = seededRandom(7);
    const buckets = new Array<number>(10).fill(0);
    for (let i = 0; i < 10_000; i++) buckets[Math.floor(random() * 10)]!++;
    for (const count of buckets) expect(count).toBeGreaterThan(850);
  });

  it('rejects a non-finite seed', () => {
    expect(() => seededRandom(Number.NaN)).toThrow(TypeError);
    expect(() => seededRandom(Number.POSITIVE_INFINITY)).toThrow(TypeError);
    expect(() => seededBits(Number.NaN)).toThrow(TypeError);
    // Each names the function it was given to.
    expect(() => seededRandom(Number.NaN)).toThrow(/^seededRandom: seed must be a finite number/);
    expect(() => seededBits(Number.NaN)).toThrow(/^seededBits: seed must be a finite number/);
  });

  it('draws the numbers it drew before seededBits was split from it', () => {
    // The first draws of mulberry32 with the mixed seed, times 2^32 (recorded before the split).
    const firsts = (seed: number): number[] => {
      const random = seededRandom(seed);
      return [random(), random(), random()].map((x) => x * 2 ** 32);
    };
    expect(firsts(0)).toEqual([1144304738, 1416247, 958946056]);
    expect(firsts(1)).toEqual([1228566310, 1041339923, 2248853198]);
    expect(firsts(2 ** 31)).toEqual([15033397, 1810314256, 164626793]);
    expect(firsts(-5)).toEqual([3069483362, 738475847, 2783484624]);
  });
});

describe('seededBits', () => {
  it("gives each of seededRandom's draws as its 32 bits, a signed integer", () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const bits = seededBits(seed);
        const random = seededRandom(seed);
        for (let i = 0; i < 20; i++) {
          const drawn = bits();
          expect(drawn | 0).toBe(drawn);
          expect((drawn >>> 0) / 2 ** 32).toBe(random());
        }
      }),
    );
  });
});

describe('privateSlot', () => {
  it('attaches a value to any object, replaces it, and keeps slots apart', () => {
    const a = privateSlot<number>();
    const b = privateSlot<string>();
    const target = { x: 1 };
    expect(a.get(target)).toBeUndefined();
    a.set(target, 1);
    b.set(target, 'one');
    a.set(target, 2);
    expect(a.get(target)).toBe(2);
    expect(b.get(target)).toBe('one');
    expect(a.get({})).toBeUndefined();
  });

  it('is invisible on the object and works on frozen objects, proxies and functions', () => {
    const slot = privateSlot<number>();
    const frozen = Object.freeze({ a: 1 });
    const proxy = new Proxy({}, { defineProperty: () => false, ownKeys: () => [] });
    const fn = () => {};
    for (const [i, target] of [frozen, proxy, fn].entries()) {
      slot.set(target, i);
      expect(slot.get(target)).toBe(i);
    }
    expect(Object.getOwnPropertySymbols(frozen)).toEqual([]);
    expect(Reflect.ownKeys(frozen)).toEqual(['a']);
    expect(frozen).toStrictEqual({ a: 1 });
  });
});

describe('getRetryInfo / setRetryInfo', () => {
  const summary: RetryInfo = {
    method: 'GET',
    url: 'https://api.example.com/',
    attempts: 2,
    retries: ['status'],
    totalDelayMs: 50,
    serverDelaysUnread: 0,
    elapsedMs: 70,
    outcome: 'success',
    reason: 'success',
    status: 200,
    error: undefined,
    route: undefined,
    quotaResetAt: undefined,
    hedge: undefined,
  };

  it('reads back the summary attached to a response or an error', () => {
    const response = new Response('ok');
    const error = new Error('x');
    const fn = () => {};
    setRetryInfo(response, summary);
    setRetryInfo(error, { ...summary, outcome: 'failure' });
    setRetryInfo(fn, summary);
    expect(getRetryInfo(response)).toBe(summary);
    expect(getRetryInfo(error)?.outcome).toBe('failure');
    expect(getRetryInfo(fn)).toBe(summary);
  });

  it("reads a result through the headers object it carries (undici's request() result)", () => {
    const headers = { 'content-type': 'text/plain' };
    setRetryInfo(headers, summary);
    expect(getRetryInfo({ statusCode: 200, headers, body: null })).toBe(summary);
    expect(getRetryInfo({ statusCode: 200, headers: { ...headers }, body: null })).toBeUndefined();
    // An error is never read through its headers or config: only its own tag, cause or response.
    expect(getRetryInfo(Object.assign(new Error('x'), { headers }))).toBeUndefined();
  });

  it('leaves the tagged object as it was for keys, JSON, spreads and deep equality', () => {
    const headers = { 'content-type': 'application/json' };
    setRetryInfo(headers, summary);
    expect(Object.keys(headers)).toEqual(['content-type']);
    expect(JSON.stringify(headers)).toBe('{"content-type":"application/json"}');
    expect(getRetryInfo({ ...headers })).toBeUndefined();
    expect(headers).toStrictEqual({ 'content-type': 'application/json' });
  });

  it('tags frozen objects and proxies that refuse properties too', () => {
    const frozen = Object.freeze({ a: 1 });
    const refusing = new Proxy({}, { defineProperty: () => false });
    setRetryInfo(frozen, summary);
    setRetryInfo(refusing, summary);
    expect(getRetryInfo(frozen)).toBe(summary);
    expect(getRetryInfo(refusing)).toBe(summary);
  });

  it('replaces an earlier tag (a later run of the same object wins)', () => {
    const error = new Error('x');
    setRetryInfo(error, summary);
    setRetryInfo(error, { ...summary, attempts: 3 });
    expect(getRetryInfo(error)?.attempts).toBe(3);
  });

  it('is undefined for other values and ignores primitives', () => {
    expect(getRetryInfo({})).toBeUndefined();
    expect(getRetryInfo(null)).toBeUndefined();
    expect(getRetryInfo('x')).toBeUndefined();
    expect(() => setRetryInfo('x', summary)).not.toThrow();
    expect(() => setRetryInfo(undefined, summary)).not.toThrow();
  });

  it('reads a summary stamped by another copy of the package in the same program', async () => {
    // A query string makes the module loader evaluate a second, separate copy of the module.
    const other = (await import(
      // @ts-expect-error: a module path with a query string has no declaration.
      '../src/retry-info.ts?second-copy'
    )) as typeof import('../src/retry-info.ts');
    expect(other.setRetryInfo).not.toBe(setRetryInfo);
    const fromOther = {};
    const fromThis = {};
    other.setRetryInfo(fromOther, summary);
    setRetryInfo(fromThis, { ...summary, attempts: 3 });
    expect(getRetryInfo(fromOther)).toBe(summary);
    expect(other.getRetryInfo(fromThis)?.attempts).toBe(3);
    expect(getRetryInfo({})).toBeUndefined();
  });

  it('reads an object without a summary of its own through its config (axios responses and errors)', () => {
    const config = {};
    setRetryInfo(config, summary);
    expect(getRetryInfo({ status: 200, config })).toBe(summary);
    const ownSummary = { ...summary, attempts: 3 };
    const error = Object.assign(new Error('x'), { config });
    setRetryInfo(error, ownSummary);
    expect(getRetryInfo(error)).toBe(ownSummary);
    expect(getRetryInfo({ config: {} })).toBeUndefined();
    expect(getRetryInfo({ config: 'x' })).toBeUndefined();
  });

  it('never reads an error through its config (an error after a success is not that success)', () => {
    const config = {};
    setRetryInfo(config, summary);
    expect(getRetryInfo(Object.assign(new Error('bad JSON'), { config }))).toBeUndefined();
  });

  it('is undefined, not a throw, for objects whose config cannot be read', () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const throwing = Object.defineProperty({}, 'config', {
      get() {
        throw new Error('no');
      },
    });
    expect(getRetryInfo(proxy)).toBeUndefined();
    expect(getRetryInfo(throwing)).toBeUndefined();
  });

  it('round-trips a real run summary', () => {
    const run = createRetryPolicy().begin({ method: 'GET', url: 'https://api.example.com/' });
    decided(decideOn(run, { status: 200 }));
    const response = {};
    setRetryInfo(response, run.summary!);
    expect(getRetryInfo(response)).toMatchObject({ attempts: 1, reason: 'success', outcome: 'success' });
  });
});
