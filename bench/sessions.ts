/**
 * The overhead sessions, over loopback. On this shared VM a client's CPU per request drifts by tens
 * of per cent within minutes, and processes side by side disturb each other; so a session starts
 * every variant twice (the twins: A/A pairs), warms them up one at a time, then lets them take turns,
 * a block of about 50 ms of CPU each, alone on the clients' CPU, in an order that rotates. Figures are
 * CPU outside GC pauses: one 20–90 ms pause in a 50 ms block doubles it.
 */
import { type ClientName, LABELS, type VariantKind } from './clients.ts';
import type { BlockResult } from './session-client.ts';
import { converse } from './spawn.ts';
import { type Estimate, median, medianWithInterval } from './stats.ts';
import { pct, table } from './table.ts';

const KINDS = ['raw', 'jitterbug', 'peer'] as const;
const SLOTS = KINDS.flatMap((kind) => [`${kind}1`, `${kind}2`]);
export const SESSIONS = Math.max(1, Math.round(2 * Number(process.env['BENCH_SCALE'] ?? 1)));
/** Cycles kept, after 2 run and not kept (they cost up to half as much again, for every variant). */
const [CYCLES, SETTLE, WARMUP] = [8, 2, 2500];
/** Client CPU per request (µs) on the machine this was written on: it only sizes the blocks. */
const US = { 'undici-request': 20, 'undici-fetch': 95, axios: 210, ky: 230, fetch: 130, 'fetch-store': 130 };

/** Per kept cycle, each slot's µs of CPU per request outside GC pauses, and of the pauses. */
export interface Session {
  readonly client: ClientName;
  readonly cycles: Map<string, { cpu: number; gc: number }>[];
  readonly errors: string[];
}

export const runSession = async (client: ClientName, origin: string): Promise<Session> => {
  const errors: string[] = [];
  const live = new Map(
    SLOTS.map((slot) => {
      const setup = JSON.stringify({ client, kind: slot.slice(0, -1), origin });
      return [slot, converse('session-client.ts', [setup], 'client')] as const;
    }),
  );
  const fail = (slot: string, error: Error): undefined => {
    errors.push(`${slot}: ${error.message}`);
    void live.get(slot)?.end('stop');
    live.delete(slot);
  };
  const ask = async (slot: string, n: number): Promise<BlockResult | undefined> => {
    const r = await live
      .get(slot)
      ?.ask<BlockResult>(n)
      .catch((e: Error) => fail(slot, e));
    return r?.failures ? fail(slot, new Error(`${r.failures} of ${n} requests did not end in 200`)) : r;
  };
  // One at a time: warmed up together on one CPU, V8 sized their heaps for a slower pace.
  for (const slot of SLOTS)
    if (await live.get(slot)!.ready.catch((e: Error) => fail(slot, e))) await ask(slot, WARMUP);
  const n = Math.max(20, Math.round(50_000 / US[client]));
  const cycles: Session['cycles'] = [];
  for (let cycle = -SETTLE; cycle < CYCLES; cycle++) {
    const row: Session['cycles'][number] = new Map();
    for (const slot of SLOTS.map((_, i) => SLOTS[(i + cycle + SETTLE) % SLOTS.length]!)) {
      const r = live.has(slot) ? await ask(slot, n) : undefined;
      // A pause is wall time: with the CPU shared it can outlast the CPU the process got. Such a
      // block measures the machine, not the client.
      if (r && r.cpuUs > r.gcUs) row.set(slot, { cpu: (r.cpuUs - r.gcUs) / n, gc: r.gcUs / n });
    }
    if (cycle >= 0) cycles.push(row);
  }
  await Promise.all([...live.values()].map((p) => p.end('stop')));
  return { client, cycles, errors };
};

/**
 * `a` against `b`: per cycle the log-ratio of CPU per request (a pair by the geometric mean of its
 * twins; an A/A sets twin 2 against twin 1), the median over all cycles of all sessions with a 95 %
 * interval from a two-level bootstrap (`stats.ts`).
 */
const compare = (sessions: readonly Session[], a: VariantKind, b: VariantKind): Estimate => {
  const [ta, tb] = a === b ? ['2', '1'] : ['12', '12'];
  const side = (row: Session['cycles'][number], kind: string, twins: string): number =>
    [...twins].reduce((sum, t) => sum + Math.log(row.get(kind + t)?.cpu ?? Number.NaN), 0) / twins.length;
  return medianWithInterval(
    sessions.map((s) => s.cycles.map((row) => side(row, a, ta) - side(row, b, tb)).filter(Number.isFinite)),
  );
};

const us = (sessions: readonly Session[], kind: VariantKind): string => {
  const blocks = sessions.flatMap((s) =>
    s.cycles.flatMap((row) => [1, 2].flatMap((t) => row.get(kind + t) ?? [])),
  );
  if (blocks.length === 0) return '—';
  // The pauses are rare and long: their mean, where the CPU outside them is a median.
  const gc = blocks.reduce((sum, b) => sum + b.gc, 0) / blocks.length;
  return `${median(blocks.map((b) => b.cpu)).toFixed(1)} + ${gc.toFixed(1)}`;
};

const ratio = (log: number): string => pct(Math.exp(log) - 1);
const show = ({ n, value, lo, hi }: Estimate, spread = Number.POSITIVE_INFINITY): string =>
  n === 0 ? '—' : `${ratio(value)} (${ratio(lo)} … ${ratio(hi)})${Math.abs(value) > spread ? ' ◆' : ''}`;

/** One row per client; ◆: a difference wider than the widest A/A interval of its client. */
export const sessionTable = (all: readonly Session[][]): string => {
  const rows = all.map((sessions) => {
    const client = sessions[0]!.client;
    const aa = KINDS.map((k) => compare(sessions, k, k));
    const spread = Math.max(...aa.flatMap((e) => [Math.abs(e.lo), Math.abs(e.hi)]).filter(Number.isFinite));
    return [
      `${client} (${LABELS[client].jitterbug})`,
      `${sessions.length} × ${CYCLES}`,
      ...KINDS.map((k) => us(sessions, k)),
      ...aa.map((e) => show(e)),
      show(compare(sessions, 'jitterbug', 'raw'), spread),
      show(compare(sessions, 'peer', 'raw'), spread),
      show(compare(sessions, 'jitterbug', 'peer'), spread),
    ];
  });
  const header = 'client|sessions × cycles|raw µs|jitterbug µs|peer µs|A/A raw|A/A jitterbug|A/A peer';
  const errors = all.flat().flatMap((s) => s.errors.map((e) => `\n- not run: ${s.client} ${e}`));
  const notes = all.some((sessions) => sessions[0]?.client === 'fetch-store')
    ? `\n\nfetch-store: its peer is withRetry with its own budget, so its "jitterbug vs peer" is what a budget over a store (the in-memory one) costs on success.`
    : '';
  return `${table(`${header}|jitterbug vs raw|peer vs raw|jitterbug vs peer`.split('|'), rows)}${notes}${errors.join('')}`;
};
