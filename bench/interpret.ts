/** The short interpretation at the end of RESULTS.md, written from the measured figures. */
import { aaSpread, type ClientSessions, compare, cpuUs, gcUs } from './analyse.ts';
import type { Attribution } from './attribution.ts';
import type { CoreResult } from './core.ts';
import { coreVerdict } from './core-report.ts';
import type { CountResults } from './counts.ts';
import { clientCounts } from './counts-report.ts';
import { type LayerResults, netLayerUs } from './layer-runs.ts';
import type { MemoryOutput } from './memory.ts';
import { memoryVerdict } from './memory-report.ts';
import { pct } from './stats.ts';
import { isFinding, OVERHEAD_TARGET, PEER_TARGET, verdict } from './targets.ts';

const within = (spread: number): string =>
  Number.isFinite(spread) ? `A/A spread ±${(spread * 100).toFixed(1)} %` : 'no A/A spread';

/** The exact counts' verdicts (section 9), which decide where the sessions' A/A spread cannot. */
const countsLine = (counts: CountResults, client: ClientSessions['client']): string => {
  const c = clientCounts(counts, client);
  if (!c.overJb) return 'instruction counts: not run';
  return (
    `instruction counts (section 9): jitterbug − raw ${Math.round(c.overJb.value).toLocaleString('en')} ` +
    `instructions per 50-byte request, ${c.overhead ? `${pct(1 + c.overhead.value, 2)} of a loopback request` : 'no loopback denominator'}, ` +
    `target ≤ 2 %: ${c.overheadVerdict}; vs the peer: ${c.peerVerdict}; retry path vs the peer: ${c.retryVerdict}`
  );
};

const clientLine = (
  cs: ClientSessions,
  layers: LayerResults,
  attribution: readonly Attribution[],
  counts: CountResults | undefined,
): string => {
  const spread = aaSpread(cs, '50B');
  const jr = compare(cs, '50B', 'jitterbugVsRaw');
  if (jr.n === 0) return `- **${cs.client}**: the jitterbug variant did not run (see "Not run").`;
  const jp = compare(cs, '50B', 'jitterbugVsPeer');
  const noise = (e: typeof jr): string => (isFinding(e, spread) ? 'a finding' : 'within the A/A spread');
  const parts = [
    `50-byte success path: jitterbug vs raw ${pct(jr.value)} (${noise(jr)}; ${within(spread)}), ` +
      `target ≤ 2 %: ${verdict(jr, OVERHEAD_TARGET, spread)}`,
    jp.n
      ? `vs the peer ${pct(jp.value)} (${noise(jp)}), target ≤ peer: ${verdict(jp, PEER_TARGET, spread)}`
      : 'peer not run',
  ];
  const gc = gcUs(cs, '50B', 'jitterbug') - (gcUs(cs, '50B', 'raw') + 0);
  if (Number.isFinite(gc))
    parts.push(`GC pauses ${gc >= 0 ? '+' : '−'}${Math.abs(gc).toFixed(2)} µs per request against raw`);
  const retry = compare(cs, 'retry', 'jitterbugVsPeer');
  if (retry.n) {
    parts.push(
      `retry path vs the peer ${pct(retry.value)}, target ≤ peer: ${verdict(retry, PEER_TARGET, aaSpread(cs, 'retry'))}`,
    );
  }
  const layer = netLayerUs(layers, cs.client, 'jitterbug');
  if (layer !== undefined) parts.push(`its interceptor timed in place: ${layer.toFixed(2)} µs per request`);
  const own = attribution.find((a) => a.client === cs.client)?.jitterbug;
  if (own) {
    const total = cpuUs(cs, '50B', 'jitterbug') + gcUs(cs, '50B', 'jitterbug');
    parts.push(
      `jitterbug's own code ${(own.jitterbug * 100).toFixed(1)} % of the profile (≈ ${(own.jitterbug * total).toFixed(1)} µs), ` +
        `its bookkeeping ${((own.begin + own.settle + own.stamp) * 100).toFixed(1)} %`,
    );
  }
  if (counts) parts.push(countsLine(counts, cs.client));
  return `- **${cs.client}**: ${parts.join('; ')}.`;
};

export const interpretation = (
  sessions: readonly ClientSessions[],
  layers: LayerResults,
  attribution: readonly Attribution[],
  core: readonly CoreResult[],
  memory: readonly MemoryOutput[],
  counts?: CountResults,
): string =>
  [
    ...sessions.map((cs) => clientLine(cs, layers, attribution, counts)),
    `- **Core**: ${coreVerdict(core)}`,
    `- **Memory**: ${memory.map((m) => `${m.client} ${memoryVerdict(m).heapFlat ? 'flat' : '**not flat**'}`).join(', ')}.`,
  ].join('\n');
