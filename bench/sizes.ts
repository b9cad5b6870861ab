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
    return {
      id: entry.id,
      inputs: Object.keys(output?.inputs ?? {}),
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

export const sizesTable = (rows: readonly SizeRow[]): string =>
  table(
    ['bundle', 'of', 'minified (bytes)', 'minified + gzip -9 (bytes)'],
    rows.map((r) => [
      r.name,
      r.what,
      r.error ? `not built: ${r.error}` : bytes(r.minified),
      r.error ? '—' : bytes(r.gzip),
    ]),
  );

export const SIZES_NOTE =
  "esbuild (JS API, `platform: 'browser'`, ESM, `minify`, tree-shaken), each entry a one-line module " +
  're-exporting the function; the HTTP client it plugs into (`ky`, `axios`) is external, and ' +
  "jitterbug's packages are bundled from source (`bench/sizes.ts`). gzip at level 9. Ceilings and " +
  'tree-shaking checks: `test/size/size.test.ts` in `make test`.';

if (import.meta.main) console.log(sizesTable(await measureSizes()));
