/** The bench's one table helper: a Markdown table, for the terminal and RESULTS.md alike. */
export const table = (header: readonly string[], rows: readonly (readonly string[])[]): string => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...rows.map(line)].join('\n');
};

/** A whole number with thousands separators and a real minus sign; `signed` adds a plus. */
export const int = (x: number, signed = false): string =>
  Number.isFinite(x)
    ? `${signed && x > 0 ? '+' : ''}${Math.round(x).toLocaleString('en').replace('-', '−')}`
    : '—';

/** A fraction as a signed percentage: 0.034 → "+3.4 %". */
export const pct = (x: number, digits = 1): string =>
  Number.isFinite(x) ? `${x > 0 ? '+' : x < 0 ? '−' : ''}${Math.abs(x * 100).toFixed(digits)} %` : '—';
