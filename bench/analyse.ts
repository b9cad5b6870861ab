/** Turns the rounds into per-client figures and tables. */
import type { ClientOutput } from './client.ts';
import { VARIANT_LABELS } from './clients/index.ts';
import type { ClientName, VariantKind } from './clients/types.ts';
import type { ClientRounds } from './pairs.ts';
import { describeRatio, median, pct, type Spread, spread } from './stats.ts';
import { table, us } from './table.ts';

/** Success-path overhead allowed per request (ratio to raw). */
export const OVERHEAD_TARGET = 1.02;

const perRequest = (o: ClientOutput | undefined, phase: 'success' | 'retry'): number | undefined => {
  const p = o?.[phase];
  return p ? p.cpuUs / p.requests : undefined;
};

/** Ratios a/b of the rounds where both ran. */
const ratios = (r: ClientRounds, a: VariantKind, b: VariantKind, phase: 'success' | 'retry'): number[] => {
  const out: number[] = [];
  r.runs[a].forEach((run, i) => {
    const x = perRequest(run, phase);
    const y = perRequest(r.runs[b][i], phase);
    if (x !== undefined && y !== undefined) out.push(x / y);
  });
  return out;
};

const medianOf = (r: ClientRounds, kind: VariantKind, phase: 'success' | 'retry'): number => {
  const values = r.runs[kind].map((o) => perRequest(o, phase)).filter((v) => v !== undefined);
  return values.length ? median(values) : Number.NaN;
};

/** CPU a retried request costs beyond a successful one, in the same process. */
const extraPerRetry = (r: ClientRounds, kind: VariantKind): number => {
  const values: number[] = [];
  for (const o of r.runs[kind]) {
    const s = perRequest(o, 'success');
    const t = perRequest(o, 'retry');
    if (s !== undefined && t !== undefined) values.push(t - s);
  }
  return values.length ? median(values) : Number.NaN;
};

export interface ClientFigures {
  readonly client: ClientName;
  readonly pairs: number;
  readonly jitterbugOverhead: Spread;
  readonly peerOverhead: Spread;
  readonly jitterbugVsPeer: Spread;
  readonly retryJitterbugVsPeer: Spread;
  readonly notRun: Partial<Record<VariantKind, string>>;
}

export const figures = (r: ClientRounds): ClientFigures => ({
  client: r.client,
  pairs: ratios(r, 'jitterbug', 'raw', 'success').length,
  jitterbugOverhead: spread(ratios(r, 'jitterbug', 'raw', 'success')),
  peerOverhead: spread(ratios(r, 'peer', 'raw', 'success')),
  jitterbugVsPeer: spread(ratios(r, 'jitterbug', 'peer', 'success')),
  retryJitterbugVsPeer: spread(ratios(r, 'jitterbug', 'peer', 'retry')),
  notRun: r.errors,
});

const label = (client: ClientName, kind: VariantKind): string => VARIANT_LABELS[client][kind];

const notRunNote = (r: ClientRounds, kind: VariantKind): string =>
  r.errors[kind] && r.runs[kind].every((o) => o === undefined) ? ' (not run)' : '';

export const requestCountsTable = (rounds: readonly ClientRounds[]): string =>
  table(
    ['client', 'warm-up', 'measured (success)', 'retry warm-up', 'measured (retried)'],
    rounds.map((r) => [
      r.client,
      String(r.plan.warmup),
      String(r.plan.requests),
      String(r.plan.retryWarmup),
      String(r.plan.retryRequests),
    ]),
  );

export const successCpuTable = (rounds: readonly ClientRounds[]): string =>
  table(
    ['client', 'raw', 'µs/req', 'jitterbug', 'µs/req', 'peer', 'µs/req'],
    rounds.map((r) => [
      r.client,
      label(r.client, 'raw'),
      us(medianOf(r, 'raw', 'success')),
      label(r.client, 'jitterbug') + notRunNote(r, 'jitterbug'),
      us(medianOf(r, 'jitterbug', 'success')),
      label(r.client, 'peer') + notRunNote(r, 'peer'),
      us(medianOf(r, 'peer', 'success')),
    ]),
  );

const verdict = (f: ClientFigures): string => {
  if (f.pairs === 0) return 'not run';
  const withinTarget = f.jitterbugOverhead.median <= OVERHEAD_TARGET;
  const notAbovePeer = !(f.jitterbugVsPeer.median > 1) || f.jitterbugVsPeer.n === 0;
  if (withinTarget && notAbovePeer) return 'met';
  return [withinTarget ? '' : 'missed: > 2 %', notAbovePeer ? '' : 'missed: above peer']
    .filter(Boolean)
    .join(', ');
};

export const overheadTable = (rounds: readonly ClientRounds[]): string =>
  table(
    ['client', 'pairs', 'jitterbug vs raw', 'peer vs raw', 'jitterbug vs peer', 'target (≤ 2 %, ≤ peer)'],
    rounds.map((r) => {
      const f = figures(r);
      return [
        r.client,
        String(f.pairs),
        describeRatio(f.jitterbugOverhead),
        describeRatio(f.peerOverhead),
        f.jitterbugVsPeer.n
          ? `${pct(f.jitterbugVsPeer.median)} (${pct(f.jitterbugVsPeer.min)} … ${pct(f.jitterbugVsPeer.max)})`
          : '—',
        verdict(f),
      ];
    }),
  );

export const retryTable = (rounds: readonly ClientRounds[]): string =>
  table(
    [
      'client',
      'jitterbug µs/retried req',
      'peer µs/retried req',
      'jitterbug vs peer (per pair)',
      'extra µs per retry: jitterbug',
      'peer',
    ],
    rounds.map((r) => {
      const f = figures(r);
      return [
        r.client,
        us(medianOf(r, 'jitterbug', 'retry')),
        us(medianOf(r, 'peer', 'retry')),
        describeRatio(f.retryJitterbugVsPeer),
        us(extraPerRetry(r, 'jitterbug')),
        us(extraPerRetry(r, 'peer')),
      ];
    }),
  );

export const notRunList = (rounds: readonly ClientRounds[]): string[] =>
  rounds.flatMap((r) =>
    (Object.entries(r.errors) as [VariantKind, string][]).map(
      ([kind, error]) => `${r.client} ${label(r.client, kind)}: ${error.split('\n')[0]}`,
    ),
  );

/** Each client's raw CPU per successful request (median over rounds), µs. */
export const rawCpu = (rounds: readonly ClientRounds[]): Record<string, number> =>
  Object.fromEntries(rounds.map((r) => [r.client, medianOf(r, 'raw', 'success')]));
