/**
 * The fingerprint of occ's seeded output, to check that a speed change changed no number: the
 * sha256 of every strategy × 9 settings × 8 client counts (1 to 250) × 4 seeds, each run's calls,
 * time, per-client writes and successes and every write's arrival time, as bytes (the doubles' exact
 * bits), followed by the default sweep at seed 42 (with its histograms) as JSON.
 *
 *   node --conditions=@jitterbug/source packages/simulator/bench/occ-hash.ts
 *
 * Run it before and after a change; the two lines must be the same.
 */
import { createHash } from 'node:crypto';
import { OCC_STRATEGIES, type OccRunOptions, runOcc, simulateOcc } from '../src/index.ts';

type Setting = Omit<OccRunOptions, 'clients' | 'strategy' | 'seed'>;

/** The defaults and the edges: no base, no cap, base above cap, a fractional base, other networks. */
const SETTINGS: readonly Setting[] = [
  {},
  { baseMs: 0 },
  { capMs: 0 },
  { baseMs: 50, capMs: 20 },
  { baseMs: 0.37 },
  { latency: { meanMs: 0, sdMs: 0 } },
  { latency: { meanMs: 10, sdMs: 8 } },
  { latency: { meanMs: 10, sdMs: 0 } },
  { maxAttempts: 3 },
];
const CLIENTS = [1, 2, 3, 7, 16, 40, 100, 250];
const SEEDS = [0, 1, 2 ** 31, 987_654_321];

const hash = createHash('sha256');
const doubles = new Float64Array(2);
let runs = 0;
for (const strategy of OCC_STRATEGIES) {
  for (const setting of SETTINGS) {
    for (const clients of CLIENTS) {
      for (const seed of SEEDS) {
        const options = { ...setting, clients, strategy, seed, recordWrites: true };
        let result: ReturnType<typeof simulateOcc>;
        try {
          result = simulateOcc(options);
        } catch (error) {
          // A refused setting (zero latency with no sleep) is part of the output too.
          hash.update(`refused: ${(error as Error).message}\n`);
          continue;
        }
        runs++;
        doubles[0] = result.calls;
        doubles[1] = result.timeMs;
        hash.update(new Uint8Array(doubles.buffer));
        hash.update(new Uint8Array(result.writes.buffer));
        hash.update(new Uint8Array(result.successes.buffer));
        const times = result.writeTimesMs!;
        hash.update(new Uint8Array(times.buffer, times.byteOffset, times.byteLength));
      }
    }
  }
}
hash.update(JSON.stringify(runOcc({ seed: 42 })));
console.log(`${hash.digest('hex')}  (${runs} runs and the default sweep at seed 42)`);
