/**
 * The pacing experiment: a sustained load above a rate limit, per-request Retry-After against the
 * core's pacer (and a model of the AWS SDK's adaptive mode), on an nginx-like limit_req and on an API
 * that advertises its quota. The criteria, on seed 1: at least 90 % fewer 429s with no request
 * failing, and no 429 after the first window when the quota is advertised.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/command.ts';
import { PACING_CLIENTS, PACING_SERVERS, runPacing, simulatePacing } from '../src/pacing.ts';

describe('pacing', () => {
  const result = runPacing({ seed: 1, runs: 3 });
  const point = (server: string, client: string) =>
    result.points.find((p) => p.server === server && p.client === client)!;

  it('against nginx-like limit_req (20 r/s, burst 10, Retry-After 1 s, 2.5× the limit for 10 s): ≥ 90 % fewer 429s, none failing', () => {
    const perRequest = point('limit-req', 'retry-after');
    const pacer = point('limit-req', 'pacer');
    expect(perRequest.refused.mean).toBeGreaterThan(500);
    expect(perRequest.failed.mean).toBeGreaterThan(0);
    expect(pacer.refused.max).toBeLessThanOrEqual(0.1 * perRequest.refused.mean);
    expect(pacer.failed.max).toBe(0);
    // Every request went through, paced: about the limit's rate, so the last ends well after the load.
    expect(pacer.endMs.mean).toBeGreaterThan(20_000);
    expect(pacer.attempts.mean / pacer.requests.mean).toBeLessThan(1.05);
  });

  it('the defaults (the herd line) between the two: far fewer 429s than per-request Retry-After, almost none failing', () => {
    for (const server of PACING_SERVERS) {
      const perRequest = point(server, 'retry-after');
      const defaults = point(server, 'defaults');
      expect(defaults.refused.mean).toBeLessThan(0.5 * perRequest.refused.mean);
      expect(defaults.failed.mean).toBeLessThan(0.01 * defaults.requests.mean);
    }
  });

  it('against an API that advertises its quota: no 429 after its first window, none failing', () => {
    const perRequest = point('quota', 'retry-after');
    const pacer = point('quota', 'pacer');
    expect(perRequest.refusedAfterFirstWindow.mean).toBeGreaterThan(500);
    expect(pacer.refusedAfterFirstWindow.max).toBe(0);
    expect(pacer.failed.max).toBe(0);
  });

  it('every request ends once; each attempt is an answer counted', () => {
    for (const server of PACING_SERVERS) {
      for (const client of PACING_CLIENTS) {
        const run = simulatePacing(server, client, { seed: 7, durationSec: 3 });
        const ended = Object.values(run.stopReasons).reduce((a, b) => a + b, 0);
        expect(ended).toBe(run.requests);
        expect(run.attempts).toBeGreaterThanOrEqual(run.requests - run.failed);
        expect(run.refused).toBeLessThanOrEqual(run.attempts);
        expect(run.refusedAfterFirstWindow).toBeLessThanOrEqual(run.refused);
      }
    }
  });

  it('is deterministic under a seed, and every client faces the same arrivals', () => {
    expect(runPacing({ seed: 3, runs: 2, durationSec: 3 })).toEqual(
      runPacing({ seed: 3, runs: 2, durationSec: 3 }),
    );
    const a = simulatePacing('quota', 'retry-after', { seed: 3, durationSec: 3 });
    const b = simulatePacing('quota', 'pacer', { seed: 3, durationSec: 3 });
    expect(a.requests).toBe(b.requests);
  });

  it('refuses settings out of bounds', () => {
    expect(() => runPacing({ seed: 1, limitPerSec: 0 })).toThrow(RangeError);
    expect(() => runPacing({ seed: 1, windowSec: 1.5 })).toThrow(/windowSec/);
    expect(() => runPacing({ seed: 1, limitPerSec: 1e6, load: 10, durationSec: 10 })).toThrow(/at most/);
  });

  it('jitterbug-sim pacing prints the table and the settings', async () => {
    let out = '';
    const io = { stdout: { write: (t: string) => (out += t) }, stderr: { write: () => true, isTTY: false } };
    expect(await runCli(['pacing', '--seed', '1', '--runs', '1', '--duration', '2'], io as never)).toBe(0);
    expect(out).toMatch(/limit-req\s+pacer/);
    expect(out).toMatch(/seed 1/);
    let err = '';
    const bad = { stdout: { write: () => true }, stderr: { write: (t: string) => (err += t), isTTY: false } };
    expect(await runCli(['pacing', '--window', '0'], bad as never)).toBe(2);
    expect(err).toMatch(/--window/);
  });
});
