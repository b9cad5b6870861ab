/** The client sections of RESULTS.md (CPU per request, the comparisons, the retry path), from the sessions. */
import {
  aaSpread,
  type ClientSessions,
  compare,
  cpuUs,
  cyclesOf,
  errorsOf,
  extraPerRetryUs,
  gcUs,
} from './analyse.ts';
import { SIZES, type SizeName } from './bodies.ts';
import { VARIANT_LABELS } from './clients/index.ts';
import type { Slot } from './interleave.ts';
import { describe, type Estimate, pct } from './stats.ts';
import { table, us } from './table.ts';
import { isFinding, OVERHEAD_TARGET, PEER_TARGET, verdict } from './targets.ts';

const spreadText = (spread: number): string =>
  Number.isFinite(spread) ? `±${(spread * 100).toFixed(1)} %` : '—';

/** "+1.2 % (+0.4 … +2.0 %)", marked when it is a finding (beyond the A/A spread). */
const finding = (e: Estimate, spread: number): string =>
  e.n === 0 ? '—' : `${describe(e)}${isFinding(e, spread) ? ' ◆' : ''}`;

const sessionsText = (cs: ClientSessions, path: 'success' | 'retry'): string => {
  const n = cyclesOf(cs, path === 'success' ? '50B' : 'retry');
  return `${cs[path].length} × ${n / Math.max(1, cs[path].length)}`;
};

export const cpuTable = (all: readonly ClientSessions[]): string =>
  table(
    ['client', 'response', 'raw', 'jitterbug', 'peer', 'GC pauses: raw', 'jitterbug', 'peer'],
    all.flatMap((cs) =>
      SIZES.map((size) => [
        cs.client,
        size,
        us(cpuUs(cs, size, 'raw')),
        us(cpuUs(cs, size, 'jitterbug')),
        us(cpuUs(cs, size, 'peer')),
        us(gcUs(cs, size, 'raw'), 2),
        us(gcUs(cs, size, 'jitterbug'), 2),
        us(gcUs(cs, size, 'peer'), 2),
      ]),
    ),
  );

export const overheadTable = (all: readonly ClientSessions[]): string =>
  table(
    [
      'client',
      'sessions × cycles',
      'A/A raw',
      'A/A jitterbug',
      'A/A peer',
      'A/A spread',
      'jitterbug vs raw',
      'peer vs raw',
      'jitterbug vs peer',
      '≤ 2 %',
      '≤ peer',
    ],
    all.map((cs) => {
      const spread = aaSpread(cs, '50B');
      const jr = compare(cs, '50B', 'jitterbugVsRaw');
      const jp = compare(cs, '50B', 'jitterbugVsPeer');
      return [
        `${cs.client} (${VARIANT_LABELS[cs.client].jitterbug})`,
        sessionsText(cs, 'success'),
        describe(compare(cs, '50B', 'aaRaw')),
        describe(compare(cs, '50B', 'aaJitterbug')),
        describe(compare(cs, '50B', 'aaPeer')),
        spreadText(spread),
        finding(jr, spread),
        finding(compare(cs, '50B', 'peerVsRaw'), spread),
        finding(jp, spread),
        verdict(jr, OVERHEAD_TARGET, spread),
        verdict(jp, PEER_TARGET, spread),
      ];
    }),
  );

/** jitterbug against raw at every size: the ratio, what it is in µs per request, and that size's A/A spread. */
export const curveTable = (all: readonly ClientSessions[]): string =>
  table(
    ['client', ...SIZES.map((size) => `${size}: jitterbug vs raw (µs/req; A/A spread)`)],
    all.map((cs) => [
      cs.client,
      ...SIZES.map((size: SizeName) => {
        const e = compare(cs, size, 'jitterbugVsRaw');
        const spread = aaSpread(cs, size);
        if (e.n === 0) return '—';
        const extra = (e.value - 1) * cpuUs(cs, size, 'raw');
        return `${pct(e.value)} (${extra >= 0 ? '+' : '−'}${Math.abs(extra).toFixed(2)} µs; ${spreadText(spread)})${isFinding(e, spread) ? ' ◆' : ''}`;
      }),
    ]),
  );

export const retryTable = (all: readonly ClientSessions[]): string =>
  table(
    [
      'client',
      'sessions × cycles',
      'jitterbug µs/retried req',
      'peer',
      'A/A jitterbug',
      'A/A peer',
      'jitterbug vs peer',
      '≤ peer',
      'extra µs per retry: jitterbug',
      'peer',
    ],
    all.map((cs) => {
      const spread = aaSpread(cs, 'retry');
      const jp = compare(cs, 'retry', 'jitterbugVsPeer');
      return [
        cs.client,
        sessionsText(cs, 'retry'),
        us(cpuUs(cs, 'retry', 'jitterbug')),
        us(cpuUs(cs, 'retry', 'peer')),
        describe(compare(cs, 'retry', 'aaJitterbug')),
        describe(compare(cs, 'retry', 'aaPeer')),
        finding(jp, spread),
        verdict(jp, PEER_TARGET, spread),
        us(extraPerRetryUs(cs, 'jitterbug')),
        us(extraPerRetryUs(cs, 'peer')),
      ];
    }),
  );

/** Variants that did not run, with their first error. */
export const notRunList = (all: readonly ClientSessions[]): string[] =>
  all.flatMap((cs) =>
    (Object.entries(errorsOf(cs)) as [Slot, string][]).map(
      ([slot, error]) => `${cs.client} ${slot}: ${error.split('\n')[0]}`,
    ),
  );
