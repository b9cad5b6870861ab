import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runDemo } from '../src/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'jitterbug-demo-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('runDemo', () => {
  it('writes every chart and prints a line for the storm, the pacer and the tail', async () => {
    const { files, table } = await runDemo(dir);
    expect(files.map((f) => basename(f)).sort()).toEqual(
      [
        'occ-calls.svg',
        'occ-time.svg',
        'occ-writes.svg',
        'storm-attempts.svg',
        'storm-served.svg',
        'storm-throttled.svg',
        'tail-extra.svg',
        'tail-p50.svg',
        'tail-p99.svg',
        'tail-p999.svg',
      ].sort(),
    );
    expect(table).toMatch(/budget\+retry-after\+throttle\s/);
    // The pacer holds nothing during the outage (it refuses at once), so it draws no chart of holds.
    expect(table).toMatch(/budget\+retry-after\+pacer\s+0\.\d\d\s+0\.\d\d/);
    const hedging = table.split('\n').find((line) => line.startsWith('Hedging against a slow tail'));
    expect(hedging).toMatch(/cuts p99 from 1\d{3} to 1\d ms for [1-4]\.\d% more requests/);
    expect(hedging).toMatch(/the server collapses/);
  });
});
