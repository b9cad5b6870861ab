/**
 * Bundle sizes for a browser beside the peers', the HTTP client left out: esbuild bundles a one-line
 * entry (`platform: 'browser'`, minified, tree-shaken), jitterbug from its TypeScript source, gzip -9.
 * `test/size/size.test.ts` holds them to ceilings. `node --conditions=@jitterbug/source bench/sizes.ts`.
 */
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { table } from './table.ts';

/**
 * jitterbug's entries (an export, its package), the peers' (a default export), the client left out,
 * and the export conditions over `browser` (Vite and webpack resolve `production` in production builds).
 */
const ENTRIES: readonly (readonly [
  id: string,
  from: string,
  external?: string | undefined,
  conditions?: string[],
])[] = [
  ['withRetry', '@jitterbug/fetch'],
  ['withRetry (production)', '@jitterbug/fetch', undefined, ['production']],
  ['kyRetry', '@jitterbug/ky', 'ky'],
  ['attachRetry', '@jitterbug/axios', 'axios'],
  ['createRetryPolicy', '@jitterbug/core'],
  ...(['ky', 'fetch-retry', 'p-retry'] as const).map((peer) => [peer, peer] as const),
  ['axios-retry', 'axios-retry', 'axios'],
];

export interface SizeRow {
  /** A short key for tests. */
  readonly id: string;
  readonly name: string;
  readonly what: 'jitterbug' | 'peer';
  readonly minified?: number;
  readonly gzip?: number;
  readonly error?: string;
  /** The source files in the bundle, relative to the repository (tree-shaking checks). */
  readonly inputs?: readonly string[];
  /** Minified bytes each source file leaves in the bundle, largest first. */
  readonly bytesByInput?: readonly (readonly [input: string, bytes: number])[];
}

const bundle = async ([id, from, external, conditions = []]: (typeof ENTRIES)[number]): Promise<SizeRow> => {
  const what = from.startsWith('@jitterbug/') ? 'jitterbug' : 'peer';
  const [exported = id, condition] = id.split(' ');
  const name =
    what === 'jitterbug' ? `\`${exported}\` (\`${from}\`)${condition ? ` ${condition}` : ''}` : from;
  const contents = `export { ${what === 'jitterbug' ? exported : 'default'} } from '${from}';`;
  try {
    const { outputFiles, metafile } = await build({
      stdin: { contents, resolveDir: process.cwd(), loader: 'ts' },
      ...{ bundle: true, write: false, platform: 'browser', format: 'esm', minify: true, metafile: true },
      ...{
        conditions: ['@jitterbug/source', ...conditions],
        external: external ? [external] : [],
        logLevel: 'silent',
      },
    });
    const code = outputFiles[0]!.contents;
    const inputs = Object.entries(Object.values(metafile.outputs)[0]?.inputs ?? {});
    const bytesByInput = inputs
      .map(([input, { bytesInOutput }]) => [input, bytesInOutput] as const)
      .filter(([, bytes]) => bytes > 0)
      .sort((a, b) => b[1] - a[1]);
    const sizes = { minified: code.byteLength, gzip: gzipSync(code, { level: 9 }).byteLength };
    return { id, name, what, ...sizes, inputs: inputs.map(([input]) => input), bytesByInput };
  } catch (error) {
    const first = (error as { errors?: { text: string }[] }).errors?.[0]?.text ?? (error as Error).message;
    return { id, name, what, error: first.split('\n')[0] ?? first };
  }
};

export const measureSizes = (): Promise<SizeRow[]> => Promise.all(ENTRIES.map(bundle));

const bytes = (n: number | undefined): string => (n === undefined ? '—' : n.toLocaleString('en'));

/** The sizes beside the peers', and the source files that leave the most in jitterbug's bundles. */
export const sizesTable = (rows: readonly SizeRow[]): string => {
  const totals = table(
    ['bundle', 'of', 'minified (bytes)', 'minified + gzip -9 (bytes)'],
    rows.map((r) => [r.name, r.what, r.error ? `not built: ${r.error}` : bytes(r.minified), bytes(r.gzip)]),
  );
  const ours = rows.filter((r) => r.what === 'jitterbug' && r.bytesByInput);
  const bytesIn = (r: SizeRow, file: string): number => r.bytesByInput!.find(([i]) => i === file)?.[1] ?? 0;
  const largest = (file: string): number => Math.max(...ours.map((r) => bytesIn(r, file)));
  const files = [...new Set(ours.flatMap((r) => r.bytesByInput!.map(([input]) => input)))]
    .sort((a, b) => largest(b) - largest(a))
    .slice(0, 6);
  const byFile = table(
    ['source file (minified bytes in the bundle)', ...ours.map((r) => r.id)],
    [
      ...files.map((f) => [
        `\`${f.replace(/^packages\//, '')}\``,
        ...ours.map((r) => bytes(bytesIn(r, f) || undefined)),
      ]),
      [
        'everything else',
        ...ours.map((r) => bytes(r.minified! - files.reduce((sum, f) => sum + bytesIn(r, f), 0))),
      ],
    ],
  );
  return `${totals}\n\nWhere the bytes go (minified, before gzip):\n\n${byFile}`;
};

if (import.meta.main) console.log(sizesTable(await measureSizes()));
