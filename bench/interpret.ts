/** The short interpretation at the end of RESULTS.md, written from the measured figures. */
import { figures, OVERHEAD_TARGET } from './analyse.ts';
import type { CoreResult } from './core.ts';
import { coreVerdict } from './core-report.ts';
import type { MemoryOutput } from './memory.ts';
import { memoryVerdict } from './memory-report.ts';
import type { ClientRounds } from './pairs.ts';
import { pct } from './stats.ts';

const clientLine = (r: ClientRounds): string => {
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
  return `- **${r.client}**: jitterbug adds ${pct(j.median)} CPU per successful request${noisy}, ${target}; ${peer}${retry}.`;
};

export const interpretation = (
  rounds: readonly ClientRounds[],
  core: readonly CoreResult[],
  memory: MemoryOutput,
): string =>
  [
    ...rounds.map(clientLine),
    `- **Core**: ${coreVerdict(core)} In this tight loop a whole request's bookkeeping on success (a run begun and one decision) is well under a microsecond; inside a loopback client process the same calls measured several µs per request (see the profiling notes), which is where the success-path target is lost.`,
    `- **Memory**: ${memoryVerdict(memory).text}`,
  ].join('\n');
