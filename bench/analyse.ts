/**
 * Turns the sessions into comparisons. A comparison sets one variant's CPU per request against
 * another's over the same cycles of a session (their blocks ran a fraction of a second apart, so
 * what drifts on the machine drifts for both); a raw or peer baseline is the geometric mean of its
 * two processes. Sessions are combined by a geometric mean, and a 95 % interval comes from a
 * bootstrap over sessions and cycles (`stats.ts`). The two A/A comparisons (raw against raw, peer
 * against peer) are computed the same way: how far their intervals reach from zero is the
 * resolution of the whole run.
 */
import { SIZES } from './bodies.ts';
import type { ClientName } from './clients/types.ts';
import type { BlockName, Session, Slot } from './interleave.ts';
import { asRatio, type Estimate, median, reach, withInterval } from './stats.ts';

export interface ClientSessions {
  readonly client: ClientName;
  /** Sessions of the success path (the response sizes) and of the retry path. */
  readonly success: readonly Session[];
  readonly retry: readonly Session[];
}

const sessionsOf = (cs: ClientSessions, block: BlockName): readonly Session[] =>
  block === 'retry' ? cs.retry : cs.success;

/**
 * One cycle of one block kind: each slot's block, its CPU outside garbage-collection pauses, the
 * pauses, and its requests.
 */
type Row = Partial<
  Record<Slot, { readonly cpuUs: number; readonly gcUs: number; readonly requests: number }>
>;

/**
 * The cycles of one block kind of one session. A GC pause is wall time: when other processes share
 * the client's CPU, a pause can outlast the CPU the process got during it, and the block's CPU
 * outside the pauses comes out at zero or below. Such a block measures the machine, not the
 * client, and is left out (its cycle then lacks that slot).
 */
const byCycle = (session: Session, block: BlockName): Map<number, Row> => {
  const cycles = new Map<number, Row>();
  for (const b of session.blocks) {
    if (b.block !== block) continue;
    const gcUs = (b.result.gcMs ?? 0) * 1000;
    if (!(b.result.cpuUs - gcUs > 0)) continue;
    const row = cycles.get(b.cycle) ?? {};
    row[b.slot] = { cpuUs: b.result.cpuUs - gcUs, gcUs, requests: b.result.requests };
    cycles.set(b.cycle, row);
  }
  return cycles;
};

/** What a comparison sets against what: each side the slots whose blocks it sums. */
const COMPARISONS = {
  aaRaw: [['raw2'], ['raw']],
  aaJitterbug: [['jitterbug2'], ['jitterbug']],
  aaPeer: [['peer2'], ['peer']],
  jitterbugVsRaw: [
    ['jitterbug', 'jitterbug2'],
    ['raw', 'raw2'],
  ],
  peerVsRaw: [
    ['peer', 'peer2'],
    ['raw', 'raw2'],
  ],
  jitterbugVsPeer: [
    ['jitterbug', 'jitterbug2'],
    ['peer', 'peer2'],
  ],
} as const satisfies Record<string, readonly [readonly Slot[], readonly Slot[]]>;
export type Comparison = keyof typeof COMPARISONS;

/** The log of a side's CPU per request in one cycle (a pair's geometric mean); undefined if a slot is missing. */
const sideLog = (row: Row, slots: readonly Slot[]): number | undefined => {
  let sum = 0;
  for (const slot of slots) {
    const b = row[slot];
    if (!b) return undefined;
    sum += Math.log(b.cpuUs / b.requests);
  }
  return sum / slots.length;
};

/**
 * A comparison of one block kind, as a ratio with its 95 % interval: the median over all cycles of
 * the per-cycle ratio of CPU per request outside garbage-collection pauses. The pauses are left out
 * here and compared on their own ({@link gcUs}): in a client that sleeps between its turns V8 runs
 * major collections far more often than in one that never pauses (ky: about one per 1,000 requests
 * against none in 6,000), and a single 20–90 ms pause in a 50 ms block made one variant's block
 * cost twice the other's. The median, not a ratio of totals, for what remains lumpy (incremental
 * marking steps run outside the pauses; bursts from the host).
 * A slot that failed is left out of its pair.
 */
export const compare = (cs: ClientSessions, block: BlockName, comparison: Comparison): Estimate => {
  const [a, b] = COMPARISONS[comparison];
  const groups = sessionsOf(cs, block).map((s) => {
    const rows = [...byCycle(s, block).values()];
    const present = (slots: readonly Slot[]): Slot[] => slots.filter((slot) => rows.some((r) => r[slot]));
    const [pa, pb] = [present(a), present(b)];
    if (pa.length === 0 || pb.length === 0) return [];
    return rows.flatMap((r) => {
      const x = sideLog(r, pa);
      const y = sideLog(r, pb);
      return x === undefined || y === undefined ? [] : [x - y];
    });
  });
  return asRatio(withInterval(groups, (drawn) => median(drawn.flat())));
};

type Kind = 'raw' | 'jitterbug' | 'peer';
const slotsOf = (kind: Kind): readonly Slot[] =>
  kind === 'raw' ? ['raw', 'raw2'] : kind === 'peer' ? ['peer', 'peer2'] : ['jitterbug', 'jitterbug2'];
const blocksOf = (cs: ClientSessions, block: BlockName, kind: Kind) =>
  sessionsOf(cs, block).flatMap((s) =>
    [...byCycle(s, block).values()].flatMap((r) =>
      slotsOf(kind).flatMap((slot) => (r[slot] ? [r[slot]] : [])),
    ),
  );

/** Median µs per request outside GC pauses of a variant (both processes of a pair pooled). */
export const cpuUs = (cs: ClientSessions, block: BlockName, kind: Kind): number => {
  const values = blocksOf(cs, block, kind).map((b) => b.cpuUs / b.requests);
  return values.length ? median(values) : Number.NaN;
};

/** GC pauses per request of a variant, µs: all its pauses over all its requests (a mean: the pauses are rare and long). */
export const gcUs = (cs: ClientSessions, block: BlockName, kind: Kind): number => {
  const blocks = blocksOf(cs, block, kind);
  const requests = blocks.reduce((a, b) => a + b.requests, 0);
  return requests ? blocks.reduce((a, b) => a + b.gcUs, 0) / requests : Number.NaN;
};

/**
 * CPU a retried request costs beyond a 50-byte success (the retried request ends with the same
 * 50-byte response), GC pauses included, from the two paths' sessions, µs.
 */
export const extraPerRetryUs = (cs: ClientSessions, kind: 'jitterbug' | 'peer'): number =>
  cpuUs(cs, 'retry', kind) + gcUs(cs, 'retry', kind) - cpuUs(cs, '50B', kind) - gcUs(cs, '50B', kind);

/**
 * The A/A spread of a block kind: how far from zero the A/A intervals reach (the farthest of the
 * raw, jitterbug and peer pairs), as a fraction. A difference no larger than this is not a finding.
 */
export const aaSpread = (cs: ClientSessions, block: BlockName): number => {
  const reaches = (['aaRaw', 'aaJitterbug', 'aaPeer'] as const)
    .map((pair) => reach(compare(cs, block, pair)))
    .filter(Number.isFinite);
  return reaches.length ? Math.max(...reaches) : Number.NaN;
};

/** Measured cycles per block kind (all sessions), for the tables' counts. */
export const cyclesOf = (cs: ClientSessions, block: BlockName): number =>
  sessionsOf(cs, block).reduce((a, s) => a + byCycle(s, block).size, 0);

/** Each slot's first error over the sessions. */
export const errorsOf = (cs: ClientSessions): Partial<Record<Slot, string>> => {
  const errors: Partial<Record<Slot, string>> = {};
  for (const s of [...cs.success, ...cs.retry]) {
    for (const [slot, e] of Object.entries(s.errors) as [Slot, string][]) errors[slot] ??= e;
  }
  return errors;
};

export const BLOCKS: readonly BlockName[] = [...SIZES, 'retry'];
