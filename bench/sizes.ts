/**
 * Bundle sizes for a browser: what each entry point adds to a web app, minified and gzipped, with
 * the HTTP client it plugs into left out (external), beside the peers'. esbuild's JS API bundles
 * each one-line entry (`platform: 'browser'`, ESM, minified, tree-shaken); gzip at level 9.
 * jitterbug's packages are bundled from their TypeScript source (the `@jitterbug/source` export
 * condition), so the figures follow the working tree without a build. An entry that does not bundle
 * for the browser (a package that imports Node built-ins, say) is reported with esbuild's error.
 *
 *   node --conditions=@jitterbug/source bench/sizes.ts      prints the table
 */
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { table } from './table.ts';

interface Entry {
  /** A short key for tests (`test/size/`). */
  readonly id: string;
  readonly name: string;
  readonly what: string;
  /** The module's source: one import, re-exported so that tree-shaking keeps it. */
  readonly source: string;
  readonly external: readonly string[];
}

const ENTRIES: readonly Entry[] = [
  {
    id: 'withRetry',
    name: '`withRetry` (`@jitterbug/fetch`, with the core)',
    what: 'jitterbug',
    source: "export { withRetry } from '@jitterbug/fetch';",
    external: [],
  },
  {
    id: 'kyRetry',
    name: '`kyRetry` (`@jitterbug/ky`)',
    what: 'jitterbug',
    source: "export { kyRetry } from '@jitterbug/ky';",
    external: ['ky'],
  },
  {
    id: 'attachRetry',
    name: '`attachRetry` (`@jitterbug/axios`, browser build)',
    what: 'jitterbug',
    source: "export { attachRetry } from '@jitterbug/axios';",
    external: ['axios'],
  },
  {
    id: 'createRetryPolicy',
    name: '`createRetryPolicy` (`@jitterbug/core`, routes included)',
    what: 'jitterbug',
    source: "export { createRetryPolicy } from '@jitterbug/core';",
    external: [],
  },
  { id: 'ky', name: 'ky 2 itself', what: 'peer', source: "export { default } from 'ky';", external: [] },
  {
    id: 'fetch-retry',
    name: 'fetch-retry 6',
    what: 'peer',
    source: "export { default } from 'fetch-retry';",
    external: [],
  },
  {
    id: 'p-retry',
    name: 'p-retry 9',
    what: 'peer',
    source: "export { default } from 'p-retry';",
    external: [],
  },
  {
    id: 'axios-retry',
    name: 'axios-retry 4',
    what: 'peer',
    source: "export { default } from 'axios-retry';",
    external: ['axios'],
  },
];

export interface SizeRow {
  readonly id: string;
  readonly name: string;
  readonly what: string;
  readonly minified?: number;
  readonly gzip?: number;
  readonly error?: string;
  /** The source files in the bundle, relative to the repository (tree-shaking checks). */
  readonly inputs?: readonly string[];
  /** Minified bytes each source file leaves in the bundle, largest first. */
  readonly bytesByInput?: readonly (readonly [input: string, bytes: number])[];
}

const bundle = async (entry: Entry): Promise<SizeRow> => {
  try {
    const result = await build({
      stdin: { contents: entry.source, resolveDir: process.cwd(), loader: 'ts', sourcefile: 'entry.ts' },
      bundle: true,
      write: false,
      platform: 'browser',
      format: 'esm',
      minify: true,
      conditions: ['@jitterbug/source'],
      external: [...entry.external],
      logLevel: 'silent',
      metafile: true,
    });
    const code = result.outputFiles[0]!.contents;
    const output = Object.values(result.metafile.outputs)[0];
    const byInput = Object.entries(output?.inputs ?? {})
      .map(([input, { bytesInOutput }]) => [input, bytesInOutput] as const)
      .filter(([, bytes]) => bytes > 0)
      .sort((a, b) => b[1] - a[1]);
    return {
      id: entry.id,
      inputs: Object.keys(output?.inputs ?? {}),
      bytesByInput: byInput,
      name: entry.name,
      what: entry.what,
      minified: code.byteLength,
      gzip: gzipSync(code, { level: 9 }).byteLength,
    };
  } catch (error) {
    const first = (error as { errors?: { text: string }[] }).errors?.[0]?.text ?? (error as Error).message;
    return { id: entry.id, name: entry.name, what: entry.what, error: first.split('\n')[0] ?? first };
  }
};

export const measureSizes = (): Promise<SizeRow[]> => Promise.all(ENTRIES.map(bundle));

const bytes = (n: number | undefined): string => (n === undefined ? '—' : n.toLocaleString('en'));

/** The files that make up most of each jitterbug bundle: what a smaller budget would have to cut. */
const breakdownTable = (rows: readonly SizeRow[]): string => {
  const ours = rows.filter((r) => r.what === 'jitterbug' && r.bytesByInput && r.minified);
  const files = [...new Set(ours.flatMap((r) => r.bytesByInput!.map(([input]) => input)))];
  const bytesIn = (r: SizeRow, file: string): number => r.bytesByInput!.find(([i]) => i === file)?.[1] ?? 0;
  const largest = (file: string): number => Math.max(...ours.map((r) => bytesIn(r, file)));
  files.sort((a, b) => largest(b) - largest(a));
  const shown = files.slice(0, 16);
  const other = (r: SizeRow): number => r.minified! - shown.reduce((sum, f) => sum + bytesIn(r, f), 0);
  return table(
    ['source file (minified bytes in the bundle)', ...ours.map((r) => r.id)],
    [
      ...shown.map((file) => [
        `\`${file.replace(/^packages\//, '')}\``,
        ...ours.map((r) => (bytesIn(r, file) ? bytes(bytesIn(r, file)) : '—')),
      ]),
      ['everything else', ...ours.map((r) => bytes(other(r)))],
    ],
  );
};

const totalsTable = (rows: readonly SizeRow[]): string =>
  table(
    ['bundle', 'of', 'minified (bytes)', 'minified + gzip -9 (bytes)'],
    rows.map((r) => [
      r.name,
      r.what,
      r.error ? `not built: ${r.error}` : bytes(r.minified),
      r.error ? '—' : bytes(r.gzip),
    ]),
  );

/** The sizes beside the peers', and where jitterbug's bytes go. */
export const sizesTable = (rows: readonly SizeRow[]): string =>
  `${totalsTable(rows)}\n\nWhere the bytes go: the source files that leave the most in each jitterbug bundle (minified, before gzip).\n\n${breakdownTable(rows)}`;

export const SIZES_NOTE =
  "esbuild (JS API, `platform: 'browser'`, ESM, `minify`, tree-shaken), each entry a one-line module " +
  're-exporting the function; the HTTP client it plugs into (`ky`, `axios`) is external, and ' +
  "jitterbug's packages are bundled from source (`bench/sizes.ts`). gzip at level 9. Ceilings and " +
  'tree-shaking checks: `test/size/size.test.ts` in `make test`.';

if (import.meta.main) console.log(sizesTable(await measureSizes()));
