/**
 * Runs `layer.ts` for the undici clients: each variant in fresh processes (one at a time, pinned,
 * the variants interleaved), and reports the median µs per request inside the layer, net of the timing
 * itself (the raw variant's empty layer).
 */
import type { VariantKind } from './clients/types.ts';
import type { LayerOutput } from './layer.ts';
import { n } from './plan.ts';
import { MEASURED_FLAGS, runChild } from './spawn.ts';
import { median } from './stats.ts';
import { table } from './table.ts';

const CLIENTS = ['undici-request', 'undici-fetch'] as const;
const KINDS: readonly VariantKind[] = ['raw', 'jitterbug', 'peer'];
/**
 * Processes per variant and client. A process keeps its cost for its whole life, and identical
 * processes differ by up to 2.5× (the jitterbug layer of one commit measured 1.21 to 3.01 µs in six
 * processes): three were not enough for a median that two runs agree on.
 */
export const LAYER_REPEATS = 7;
const WARMUP = 3000;
const REQUESTS = n(4000);

export type LayerResults = Record<(typeof CLIENTS)[number], Record<VariantKind, number[]>>;

export const runLayers = async (origin: string): Promise<LayerResults> => {
  const results = {} as LayerResults;
  for (const client of CLIENTS) {
    results[client] = { raw: [], jitterbug: [], peer: [] };
    for (let i = 0; i < LAYER_REPEATS; i++) {
      for (const kind of i % 2 ? [...KINDS].reverse() : KINDS) {
        const job = { client, kind, origin, warmup: WARMUP, requests: REQUESTS };
        const out = await runChild<LayerOutput>('layer.ts', [JSON.stringify(job)], MEASURED_FLAGS, 'client');
        results[client][kind].push(out.layerUs);
      }
    }
  }
  return results;
};

/** The net µs per request inside the layer of `kind` (minus the empty layer), per client. */
export const netLayerUs = (results: LayerResults, client: string, kind: VariantKind): number | undefined => {
  const r = (results as Record<string, Record<VariantKind, number[]>>)[client];
  return r ? median(r[kind]) - median(r.raw) : undefined;
};

const fmt = (us: number): string => (Number.isFinite(us) ? us.toFixed(2) : '—');

/** The median of a variant's processes, with their range. */
const spread = (values: readonly number[]): string =>
  values.length ? `${fmt(median(values))} (${fmt(Math.min(...values))}–${fmt(Math.max(...values))})` : '—';

/** The table of section 2b; `rawCpuUs` is each client's raw CPU per request from the rounds. */
export const layerTable = (results: LayerResults, rawCpuUs: Record<string, number>): string =>
  table(
    [
      'client',
      'empty layer (timing only)',
      'jitterbug (range)',
      'peer (range)',
      'jitterbug net',
      'peer net',
      'jitterbug net / raw CPU',
    ],
    CLIENTS.map((client) => {
      const r = results[client];
      const base = median(r.raw);
      const jb = netLayerUs(results, client, 'jitterbug') ?? Number.NaN;
      const peer = netLayerUs(results, client, 'peer') ?? Number.NaN;
      const cpu = rawCpuUs[client] ?? Number.NaN;
      return [
        client,
        fmt(base),
        spread(r.jitterbug),
        spread(r.peer),
        fmt(jb),
        fmt(peer),
        Number.isFinite(cpu) ? `${((100 * jb) / cpu).toFixed(1)} %` : '—',
      ];
    }),
  );

export const LAYER_NOTE =
  `µs per request spent inside the interceptor, timed in the client process by two timing ` +
  `interceptors composed around it (\`bench/layer.ts\`), median of ${LAYER_REPEATS} processes per ` +
  `variant (${REQUESTS.toLocaleString('en')} requests each, after ${WARMUP.toLocaleString('en')} of warm-up). ` +
  `"Net" subtracts the empty layer, i.e. what the timing itself costs. This does not see CPU the ` +
  `layer causes elsewhere (garbage collection of what it allocates). It is free of the noise ` +
  `between blocks that whole-process pairs carry, not of the differences between processes: ` +
  `identical processes measure the same layer up to 2.5× apart for their whole life, so the range ` +
  `over the processes is shown, and a change smaller than the ranges' overlap is not a finding.`;
