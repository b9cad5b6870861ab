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
/** Processes per variant and client. */
export const LAYER_REPEATS = 3;
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

/** The table of section 2b; `rawCpuUs` is each client's raw CPU per request from the rounds. */
export const layerTable = (results: LayerResults, rawCpuUs: Record<string, number>): string =>
  table(
    [
      'client',
      'empty layer (timing only)',
      'jitterbug',
      'peer',
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
        fmt(median(r.jitterbug)),
        fmt(median(r.peer)),
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
  `layer causes elsewhere (garbage collection of what it allocates), but it is free of the ` +
  `machine's noise that whole-process pairs carry.`;
