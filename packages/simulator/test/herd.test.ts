/**
 * The herd experiment: many requests at once against a rate limit. The criteria, on seed 1:
 * 50 GETs at a 10/s bucket (burst 5, `Retry-After: 1`, or the `RateLimit` fields alone) end 50/50
 * with at most 60 429s with the defaults (per-request `Retry-After` does not: about a third end 200),
 * and 100 at nginx's 20 r/s with a burst of 10 end 100/100 within ky's 10 s deadline.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/command.ts';
import { HERD_CLIENTS, HERD_SERVERS, runHerd, simulateHerd } from '../src/herd.ts';

describe('herd', () => {
  const result = runHerd({ seed: 1, runs: 3 });
  const point = (server: string, client: string) =>
    result.points.find((p) => p.server === server && p.client === client)!;

  it('50 GETs at a 10/s bucket with a burst of 5: the defaults serve every one with at most 60 429s', () => {
    for (const server of HERD_SERVERS) {
      const defaults = point(server, 'defaults');
      expect(defaults.ok.min).toBe(50);
      expect(defaults.refused.max).toBeLessThanOrEqual(60);
      const perRequest = point(server, 'retry-after');
      expect(perRequest.ok.max).toBeLessThan(30);
      expect(perRequest.refused.mean).toBeGreaterThan(100);
      const pacer = point(server, 'pacer');
      expect(pacer.ok.min).toBe(50);
    }
  });

  it('100 at nginx’s 20 r/s, burst 10, with ky’s 10 s deadline: every one served in time', () => {
    const nginx = runHerd({
      seed: 1,
      runs: 3,
      servers: ['limit-req'],
      clients: ['defaults'],
      requests: 100,
      limitPerSec: 20,
      burst: 10,
      deadlineMs: 10_000,
    });
    const [p] = nginx.points;
    expect(p!.ok.min).toBe(100);
    expect(p!.refusedAfterFirstWave.max).toBeLessThanOrEqual(15);
    expect(p!.endMs.max).toBeLessThan(10_000);
  });

  it('every request ends once; each attempt is an answer counted', () => {
    for (const server of HERD_SERVERS) {
      for (const client of HERD_CLIENTS) {
        const run = simulateHerd(server, client, { seed: 7, requests: 30 });
        const ended = Object.values(run.stopReasons).reduce((a, b) => a + b, 0);
        expect(ended).toBe(run.requests);
        expect(run.attempts).toBeGreaterThanOrEqual(run.requests);
        expect(run.refusedAfterFirstWave).toBeLessThanOrEqual(run.refused);
        expect(run.ok + run.refused).toBe(run.attempts);
      }
    }
  });

  it('is deterministic under a seed', () => {
    expect(runHerd({ seed: 3, runs: 2, requests: 20 })).toEqual(runHerd({ seed: 3, runs: 2, requests: 20 }));
  });

  it('refuses settings out of bounds', () => {
    expect(() => runHerd({ seed: 1, requests: 0 })).toThrow(/requests/);
    expect(() => runHerd({ seed: 1, limitPerSec: 0 })).toThrow(/limitPerSec/);
    expect(() => runHerd({ seed: 1, retryAfterSec: 0.5 })).toThrow(/retryAfterSec/);
  });

  it('jitterbug-sim herd prints the table and the settings', async () => {
    let out = '';
    const io = { stdout: { write: (t: string) => (out += t) }, stderr: { write: () => true, isTTY: false } };
    expect(await runCli(['herd', '--seed', '1', '--runs', '1', '--deadline', '10'], io as never)).toBe(0);
    expect(out).toMatch(/bucket\s+defaults\s+50\.0\/50/);
    expect(out).toMatch(/deadline 10 s/);
    let err = '';
    const bad = { stdout: { write: () => true }, stderr: { write: (t: string) => (err += t), isTTY: false } };
    expect(await runCli(['herd', '--requests', '0'], bad as never)).toBe(2);
    expect(err).toMatch(/--requests/);
  });
});
