/** The memory runs' tables and verdicts. */
import type { MemoryOutput } from './memory.ts';
import { table } from './table.ts';

const MB = 1024 * 1024;
const mb = (bytes: number): string => `${(bytes / MB).toFixed(2)} MB`;
const delta = (bytes: number): string => `${bytes >= 0 ? '+' : '−'}${(Math.abs(bytes) / MB).toFixed(2)} MB`;

/** Sockets, timers and immediates: what a finished client must not leave behind. */
const LEAKY = /TCP|Timeout|Immediate|Timer/;

export const memoryTable = (m: MemoryOutput): string => {
  const first = m.samples[0]!;
  return table(
    ['after', 'requests', 'heap used', 'Δ heap', 'RSS', 'Δ RSS'],
    m.samples.map((s) => [
      s.label,
      s.requests.toLocaleString('en'),
      mb(s.heapUsed),
      delta(s.heapUsed - first.heapUsed),
      mb(s.rss),
      delta(s.rss - first.rss),
    ]),
  );
};

export interface MemoryVerdict {
  readonly heapFlat: boolean;
  readonly leftovers: readonly string[];
  readonly text: string;
}

export const memoryVerdict = (m: MemoryOutput): MemoryVerdict => {
  const [before, half, end] = [m.samples[0]!, m.samples[1]!, m.samples.at(-1)!];
  // Flat: under 0.5 MB more heap over the second half, under 2 MB over the whole run.
  const heapFlat = end.heapUsed - half.heapUsed < 0.5 * MB && end.heapUsed - before.heapUsed < 2 * MB;
  const leftovers = m.resourcesAfterClose.filter((r) => LEAKY.test(r));
  const text =
    `Heap after a forced GC: ${mb(before.heapUsed)} after warm-up, ${mb(end.heapUsed)} after ` +
    `${(end.requests - before.requests).toLocaleString('en')} more requests (${delta(end.heapUsed - before.heapUsed)}; ` +
    `${delta(end.heapUsed - half.heapUsed)} over the second half) — ${heapFlat ? 'flat' : 'NOT flat'}. ` +
    `RSS ${mb(before.rss)} → ${mb(half.rss)} → ${mb(end.rss)} (${delta(end.rss - half.rss)} over the second half). ` +
    `Active resources after closing the client: ${m.resourcesAfterClose.join(', ') || 'none'}` +
    `${leftovers.length ? ` — LEFT BEHIND: ${leftovers.join(', ')}` : ' (no socket, no timer; PipeWrap is the stdout pipe to the parent)'}. ` +
    `Before closing: ${m.resourcesOpen.join(', ') || 'none'}. Requests not ending in 200: ${m.failures}.`;
  return { heapFlat, leftovers, text };
};

/** One row per client: heap and RSS after warm-up, half-way and at the end, and the verdict. */
export const memorySummaryTable = (outputs: readonly MemoryOutput[]): string =>
  table(
    [
      'client',
      'requests',
      'heap: warm-up → half → end',
      'Δ heap, 2nd half',
      'RSS: warm-up → half → end',
      'heap',
      'left after close',
      'not 200',
    ],
    outputs.map((m) => {
      const [before, half, end] = [m.samples[0]!, m.samples[1]!, m.samples.at(-1)!];
      const v = memoryVerdict(m);
      return [
        `${m.client} (${m.kind})`,
        (end.requests - before.requests).toLocaleString('en'),
        `${mb(before.heapUsed)} → ${mb(half.heapUsed)} → ${mb(end.heapUsed)}`,
        delta(end.heapUsed - half.heapUsed),
        `${mb(before.rss)} → ${mb(half.rss)} → ${mb(end.rss)}`,
        v.heapFlat ? 'flat' : '**NOT flat**',
        v.leftovers.length ? `**${v.leftovers.join(', ')}**` : 'nothing',
        String(m.failures),
      ];
    }),
  );
