/**
 * Section 2c: jitterbug's own code inside each client, from CPU profiles. For every client, one
 * pinned process per variant (jitterbug, the peer) is profiled over the 50-byte success path
 * (`attribution-child.ts`); the shares of its busy time are turned into µs per request with the
 * variant's CPU per request measured in the sessions (a profile slows the process it samples).
 */
import { type ClientSessions, cpuUs, gcUs } from './analyse.ts';
import type { ClientName } from './clients/types.ts';
import type { Shares } from './own-code.ts';
import { n } from './plan.ts';
import { MEASURED_FLAGS, runChild } from './spawn.ts';
import { table } from './table.ts';

export interface Attribution {
  readonly client: ClientName;
  readonly jitterbug?: Shares;
  readonly peer?: Shares;
  readonly error?: string;
}

/** Profiled requests: about a second of a client's CPU, after the warm-up. */
const PROFILED: Record<ClientName, number> = {
  'undici-request': 20_000,
  'undici-fetch': 6000,
  axios: 5000,
  ky: 5000,
  fetch: 6000,
};
const WARMUP = 3000;

export const runAttribution = async (
  clients: readonly ClientName[],
  origin: string,
): Promise<Attribution[]> => {
  const out: Attribution[] = [];
  for (const client of clients) {
    const profile = (kind: 'jitterbug' | 'peer'): Promise<Shares> =>
      runChild<Shares>(
        'attribution-child.ts',
        [JSON.stringify({ client, kind, origin, warmup: WARMUP, requests: n(PROFILED[client]) })],
        MEASURED_FLAGS,
        'client',
      );
    try {
      out.push({ client, jitterbug: await profile('jitterbug'), peer: await profile('peer') });
    } catch (error) {
      out.push({ client, error: (error as Error).message });
    }
  }
  return out;
};

const share = (x: number | undefined): string =>
  x === undefined || !Number.isFinite(x) ? '—' : `${(100 * x).toFixed(1)} %`;
const micro = (x: number | undefined, perRequest: number): string =>
  x === undefined || !Number.isFinite(x * perRequest) ? '—' : (x * perRequest).toFixed(2);

export const attributionTable = (rows: readonly Attribution[], sessions: readonly ClientSessions[]): string =>
  table(
    [
      'client',
      'jitterbug code (self)',
      'µs/req',
      'begin',
      'settle',
      'stamp',
      'bookkeeping µs/req',
      "peer's code (self)",
      'µs/req',
      'GC: jitterbug / peer',
    ],
    rows.map((r) => {
      const cs = sessions.find((s) => s.client === r.client);
      // µs per request of the variant in the sessions, GC pauses included (the profile's shares are of all busy time).
      const total = (kind: 'jitterbug' | 'peer'): number =>
        cs ? cpuUs(cs, '50B', kind) + gcUs(cs, '50B', kind) : Number.NaN;
      const j = r.jitterbug;
      const p = r.peer;
      if (!j) return [r.client, `not run: ${r.error?.split('\n')[0] ?? ''}`, '', '', '', '', '', '', '', ''];
      const bookkeeping = j.begin + j.settle + j.stamp;
      return [
        r.client,
        share(j.jitterbug),
        micro(j.jitterbug, total('jitterbug')),
        share(j.begin),
        share(j.settle),
        share(j.stamp),
        micro(bookkeeping, total('jitterbug')),
        r.client === 'ky' ? '— (inside ky)' : share(p?.peer),
        r.client === 'ky' ? '—' : micro(p?.peer, total('peer')),
        `${share(j.gc)} / ${share(p?.gc)}`,
      ];
    }),
  );

export const ATTRIBUTION_NOTE =
  'One process per variant, pinned, profiled by the inspector (a sample every 50 µs) over the 50-byte ' +
  'success path after 3,000 requests of warm-up (`bench/attribution.ts`). "Self" is the time whose ' +
  "innermost frame is in `packages/*/src` (or `dist`), i.e. jitterbug's adapters and core, or in the " +
  "peer's own files (undici's `interceptor/retry.js` and `handler/retry-handler.js`, axios-retry, " +
  "fetch-retry; ky's retry is part of ky's one class and cannot be told apart). The bookkeeping " +
  'columns are the time under `policy.begin` (the run begun, its budget deposit), `run.settle`/`run.next` ' +
  '(the status decided, the run finished, its summary built) and `setRetryInfo` (the summary stamped), ' +
  "callees included. µs per request multiply a share by the variant's CPU per request in section 1 " +
  '(a profiled process runs slower, so its own µs are not used). A sampled share of a few per cent ' +
  'rests on a few hundred samples: ±10 % of itself.';
