/**
 * The runtime matrix: each runtime test carries in its vitest meta which runtime, client and
 * scenario it is (and what it found); each runtime's suite carries the pairs left out and why.
 * The summary reporter (`scripts/summary-reporter.ts`) hands them here to print the matrix:
 * runtime × client → passed/failed, then the pairs left out, then the findings.
 */
import type { ClientName, RuntimeName } from './protocol.ts';

export interface MatrixTestMeta {
  readonly runtime: RuntimeName;
  readonly client: ClientName;
  readonly scenario: string;
  /** The runtime as it reported its version (set once it ran). */
  version?: string;
  findings?: string[];
}

export interface MatrixSuiteMeta {
  readonly runtime: RuntimeName;
  readonly label: string;
  /** Scenarios written for some clients only (ky's `ky.retry()`): why the counts differ. */
  readonly clientScenarios: readonly { readonly scenario: string; readonly clients: readonly ClientName[] }[];
  readonly notApplicable: readonly {
    readonly client: ClientName;
    readonly scenario: string;
    readonly why: string;
  }[];
}

declare module 'vitest' {
  interface TaskMeta {
    runtimeMatrix?: MatrixTestMeta;
    runtimeMatrixSuite?: MatrixSuiteMeta;
  }
}

/** One runtime test as the reporter saw it. */
export interface MatrixTest {
  readonly meta: MatrixTestMeta;
  readonly state: 'passed' | 'failed' | 'skipped' | 'pending';
}

const CLIENTS: readonly ClientName[] = ['fetch', 'ky', 'axios-xhr', 'axios-fetch'];
const pad = (text: string, width: number): string => text + ' '.repeat(Math.max(0, width - text.length));

/** The matrix as text, or `''` when no runtime test ran. */
export const formatMatrix = (tests: readonly MatrixTest[], suites: readonly MatrixSuiteMeta[]): string => {
  if (tests.length === 0) return '';
  const runtimes = [...new Set([...suites.map((s) => s.runtime), ...tests.map((t) => t.meta.runtime)])];
  const cell = (runtime: RuntimeName, client?: ClientName): string => {
    const mine = tests.filter((t) => t.meta.runtime === runtime && (!client || t.meta.client === client));
    if (mine.length === 0) return '-';
    const passed = mine.filter((t) => t.state === 'passed').length;
    const failed = mine.filter((t) => t.state === 'failed').length;
    const other = mine.length - passed - failed;
    return `${passed}/${mine.length}${failed ? ` ${failed} FAILED` : ''}${other ? ` ${other} not run` : ''}`;
  };
  const versionOf = (runtime: RuntimeName): string =>
    tests.find((t) => t.meta.runtime === runtime && t.meta.version)?.meta.version ?? 'did not start';
  const rows = runtimes.map((runtime) => [
    runtime,
    ...CLIENTS.map((c) => cell(runtime, c)),
    cell(runtime),
    versionOf(runtime),
  ]);
  const header = ['runtime', ...CLIENTS, 'all', 'version'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => pad(c, widths[i]!))
      .join('  ')
      .trimEnd();
  const passed = tests.filter((t) => t.state === 'passed').length;
  const out = [
    `Runtime matrix: scenarios passed/run per runtime and client (${passed} of ${tests.length} passed)`,
    line(header),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map(line),
  ];
  const only = new Map(suites.flatMap((s) => s.clientScenarios.map((c) => [c.scenario, c.clients] as const)));
  if (only.size > 0) {
    const list = [...only].map(([scenario, clients]) => `${scenario} (${clients.join(', ')})`);
    out.push(`Scenarios for some clients only: ${list.join('; ')}`);
  }
  const left = suites.flatMap((s) => s.notApplicable.map((n) => ({ ...n, runtime: s.runtime })));
  if (left.length > 0) {
    out.push('', 'Left out (the scenario cannot apply there):');
    for (const n of left) out.push(`  ${n.runtime}/${n.client} ${n.scenario}: ${n.why}`);
  }
  const findings = tests.flatMap((t) => t.meta.findings ?? []);
  if (findings.length > 0) {
    out.push('', 'Findings (what each runtime and client showed):');
    for (const f of findings) out.push(`  ${f}`);
  }
  return `${out.join('\n')}\n`;
};
