/** The core micro-benchmarks' table and verdict. */
import type { CoreResult } from './core.ts';
import { table } from './table.ts';

/** A decision must take less than this. */
export const DECISION_TARGET_NS = 1000;

export const coreTable = (results: readonly CoreResult[]): string =>
  table(
    ['operation', 'ns (median)', 'ns (mean)', '± (rme)', 'samples'],
    results.map((r) => [
      r.name,
      r.nsMedian.toFixed(0),
      r.nsMean.toFixed(0),
      `${r.rme.toFixed(1)} %`,
      String(r.samples),
    ]),
  );

export const coreVerdict = (results: readonly CoreResult[]): string => {
  const decisions = results.filter(
    (r) => !r.name.startsWith('nextDelay') && !r.name.startsWith('policy.begin'),
  );
  const slowest = decisions.reduce((a, b) => (b.nsMean > a.nsMean ? b : a));
  const met = slowest.nsMean < DECISION_TARGET_NS;
  return `Slowest decision: ${slowest.name}, ${slowest.nsMean.toFixed(0)} ns mean — target < 1 µs ${met ? 'met' : 'MISSED'}.`;
};
