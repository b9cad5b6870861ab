/** The short interpretation at the end of RESULTS.md, written from the measured figures. */
import { figures, OVERHEAD_TARGET } from './analyse.ts';
import type { CoreResult } from './core.ts';
import { coreVerdict } from './core-report.ts';
import { type LayerResults, netLayerUs } from './layer-runs.ts';
import type { MemoryOutput } from './memory.ts';
import { memoryVerdict } from './memory-report.ts';
import type { ClientRounds } from './pairs.ts';
import { pct } from './stats.ts';

const clientLine = (r: ClientRounds, layers: LayerResults): string => {
  const f = figures(r);
  if (f.pairs === 0) {
    const why = (r.errors.jitterbug ?? 'no pairs').split('\n')[0];
    return `- **${r.client}**: jitterbug variant not run (${why}).`;
  }
  const j = f.jitterbugOverhead;
  const p = f.peerOverhead;
  const noisy = j.q1 <= 1 && j.q3 >= 1 ? ' (its IQR includes 0: within the noise of this machine)' : '';
  const target = j.median <= OVERHEAD_TARGET ? 'within the 2 % target' : '**above the 2 % target**';
  const peer =
    p.n === 0
      ? 'peer not run'
      : `the peer adds ${pct(p.median)}; per pair jitterbug/peer ${pct(f.jitterbugVsPeer.median)}` +
        (f.jitterbugVsPeer.median > 1 ? ' (**above the peer**)' : ' (not above the peer)');
  const retry = f.retryJitterbugVsPeer.n
    ? `; on the retry path jitterbug costs ${pct(f.retryJitterbugVsPeer.median)} vs the peer`
    : '';
  const jbLayer = netLayerUs(layers, r.client, 'jitterbug');
  const peerLayer = netLayerUs(layers, r.client, 'peer');
  const inPlace =
    jbLayer === undefined || peerLayer === undefined
      ? ''
      : `; timed in place (section 2b) its interceptor costs ${jbLayer.toFixed(2)} µs per request, the peer's ${peerLayer.toFixed(2)} µs`;
  return `- **${r.client}**: jitterbug adds ${pct(j.median)} CPU per successful request${noisy}, ${target}; ${peer}${retry}${inPlace}.`;
};

export const interpretation = (
  rounds: readonly ClientRounds[],
  core: readonly CoreResult[],
  memory: MemoryOutput,
  layers: LayerResults,
): string =>
  [
    ...rounds.map((r) => clientLine(r, layers)),
    `- **Core**: ${coreVerdict(core)} In this tight loop a whole request's bookkeeping on success (a run begun and one decision) is well under a microsecond. Inside a loopback client the same code runs with cold caches and costs several times more (timed inside the process: see the profiling notes).`,
    `- **Memory**: ${memoryVerdict(memory).text}`,
  ].join('\n');
