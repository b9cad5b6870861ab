/** Text output: aligned tables for the terminal, CSV and JSON files. */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { OccSweepResult } from './occ.ts';
import type { StormResult } from './storm.ts';
import type { TailResult } from './tail.ts';

/** Formats rows as a plain aligned table (numbers right-aligned). */
export const formatTable = (
  header: readonly string[],
  rows: readonly (readonly (string | number)[])[],
): string => {
  const cells = [header, ...rows].map((row) => row.map((c) => String(c)));
  const widths = header.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  const numeric = header.map(
    (_, i) =>
      rows.length > 0 && rows.every((r) => typeof r[i] === 'number' || /^[\d.,%±\s-]+$/.test(String(r[i]))),
  );
  const line = (row: string[]): string =>
    row
      .map((c, i) => (numeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const [head, ...body] = cells;
  return [line(head!), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
};

const fixed = (value: number, digits = 0): string => (Number.isFinite(value) ? value.toFixed(digits) : '-');

/** The OCC sweep as a table: one row per (strategy, client count). */
export const occTable = (result: OccSweepResult): string =>
  formatTable(
    ['strategy', 'clients', 'calls', '±sd', 'calls/client', 'time ms', '±sd'],
    result.points.map((p) => [
      p.strategy,
      p.clients,
      fixed(p.calls.mean),
      fixed(p.calls.sd),
      fixed(p.callsPerClient, 2),
      fixed(p.timeMs.mean),
      fixed(p.timeMs.sd),
    ]),
  );

/** The storm results as a table: one row per policy. */
export const stormTable = (result: StormResult): string =>
  formatTable(
    [
      'policy',
      'amplification',
      'during outage',
      'goodput/s',
      'failed',
      'throttled',
      'held/req',
      'recovery s',
      'peak att/s',
      'p99 s',
    ],
    result.policies.map((p) => [
      p.policy,
      fixed(p.amplification.mean, 2),
      fixed(p.outageAmplification.mean, 2),
      fixed(p.goodputPerSec.mean, 1),
      `${fixed(100 * p.failedShare.mean, 1)}%`,
      `${fixed(100 * p.throttledShare.mean, 1)}%`,
      fixed(p.heldPerRequest.mean, 2),
      p.notRecovered === p.runs
        ? 'never'
        : `${fixed(p.recoveryMs.mean / 1000, 2)}${p.notRecovered > 0 ? ` (${p.notRecovered} never)` : ''}`,
      fixed(p.peakAttemptsPerSec),
      fixed(p.latencyP99Ms.mean / 1000, 2),
    ]),
  );

/** Milliseconds with a precision that suits their size: 0.85, 14.0, 1093. */
const ms = (value: number): string =>
  !Number.isFinite(value)
    ? '-'
    : value < 1
      ? value.toFixed(2)
      : value < 100
        ? value.toFixed(1)
        : value.toFixed(0);

/** The tail sweep as a table: one row per (variant, load). */
export const tailTable = (result: TailResult): string =>
  formatTable(
    ['variant', 'load', 'req/s', 'p50 ms', 'p99 ms', 'p99.9 ms', 'extra', 'hedges refused', 'utilisation'],
    result.points.map((p) => [
      p.variant,
      fixed(p.load, 2),
      fixed(p.ratePerSec),
      ms(p.p50Ms),
      ms(p.p99Ms),
      ms(p.p999Ms),
      `${fixed(100 * p.extraLoad, 2)}%`,
      p.wantedHedges === 0 ? '-' : `${fixed((100 * p.refusedHedges) / p.wantedHedges, 1)}%`,
      fixed(p.utilisation, 2),
    ]),
  );

const csvCell = (value: string | number): string => {
  const text = String(value);
  return /[",\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};
const csv = (header: readonly string[], rows: readonly (readonly (string | number)[])[]): string =>
  `${[header, ...rows].map((row) => row.map(csvCell).join(',')).join('\n')}\n`;

/** The OCC points as CSV. */
export const occCsv = (result: OccSweepResult): string =>
  csv(
    [
      'strategy',
      'clients',
      'runs',
      'calls_mean',
      'calls_sd',
      'time_ms_mean',
      'time_ms_sd',
      'calls_per_client',
    ],
    result.points.map((p) => [
      p.strategy,
      p.clients,
      p.runs,
      p.calls.mean,
      p.calls.sd,
      p.timeMs.mean,
      p.timeMs.sd,
      p.callsPerClient,
    ]),
  );

/** The storm summary as CSV, one row per policy. */
export const stormCsv = (result: StormResult): string =>
  csv(
    [
      'policy',
      'runs',
      'requests',
      'attempts',
      'retries',
      'failed',
      'amplification_mean',
      'outage_amplification_mean',
      'goodput_per_sec_mean',
      'failed_share_mean',
      'recovery_ms_mean',
      'not_recovered_runs',
      'peak_attempts_per_sec',
      'throttled',
      'throttled_share_mean',
      'held',
      'held_per_request_mean',
      'mean_hold_ms',
      'latency_p50_ms_mean',
      'latency_p99_ms_mean',
    ],
    result.policies.map((p) => [
      p.policy,
      p.runs,
      p.requests,
      p.attempts,
      p.retries,
      p.failed,
      p.amplification.mean,
      p.outageAmplification.mean,
      p.goodputPerSec.mean,
      p.failedShare.mean,
      p.recoveryMs.mean,
      p.notRecovered,
      p.peakAttemptsPerSec,
      p.throttled,
      p.throttledShare.mean,
      p.held,
      p.heldPerRequest.mean,
      p.meanHoldMs,
      p.latencyP50Ms.mean,
      p.latencyP99Ms.mean,
    ]),
  );

/** The tail points as CSV, one row per (variant, load). */
export const tailCsv = (result: TailResult): string =>
  csv(
    [
      'variant',
      'load',
      'rate_per_sec',
      'runs',
      'requests',
      'copies',
      'extra_load',
      'wanted_hedges',
      'refused_hedges',
      'p50_ms',
      'p99_ms',
      'p999_ms',
      'mean_ms',
      'utilisation',
    ],
    result.points.map((p) => [
      p.variant,
      p.load,
      p.ratePerSec,
      p.runs,
      p.requests,
      p.copies,
      p.extraLoad,
      p.wantedHedges,
      p.refusedHedges,
      p.p50Ms,
      p.p99Ms,
      p.p999Ms,
      p.meanMs,
      p.utilisation,
    ]),
  );

/** The OCC points in the issue's JSON shape (`{ strategy, clients, runs, calls, timeMs }` and more). */
export const occJson = (result: OccSweepResult): string => `${JSON.stringify(result.points, null, 2)}\n`;

/** The whole storm result (settings, per-policy metrics and mean timelines) as JSON. */
export const stormJson = (result: StormResult): string => `${JSON.stringify(result, null, 2)}\n`;

/** The whole tail result (settings and points) as JSON. */
export const tailJson = (result: TailResult): string => `${JSON.stringify(result, null, 2)}\n`;

/** Writes a text file, creating its directory. */
export const writeText = async (path: string, text: string): Promise<void> => {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
};
