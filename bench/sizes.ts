/**
 * Bundle sizes for a browser beside the peers', the HTTP client left out: esbuild bundles a one-line
 * entry (`platform: 'browser'`, minified, tree-shaken), jitterbug from its TypeScript source, gzip -9.
 * `test/size/size.test.ts` holds them to ceilings. `node --conditions=@jitterbug/source bench/sizes.ts`.
 */
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { defaultFeatures, FEATURES } from '../packages/core/src/features/table.ts';
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

/**
 * The opt-in features, by the factory a program imports to use one (the feature table's rows that
 * are off by default, and the route rules' `createRetryPolicy`): each is measured as `withRetry`
 * with that factory beside it, so that its row is what the feature alone adds to a browser bundle.
 */
export const FEATURE_FACTORIES: readonly string[] = [
  ...FEATURES.filter((row) => !Object.hasOwn(defaultFeatures(), row.option)).map(
    (row) => row.factory.split('(')[0]!,
  ),
  'createRetryPolicy',
];

/** The id of a feature's row: `withRetry + createHedging`. */
export const featureRow = (factory: string): string => `withRetry + ${factory}`;

export interface SizeRow {
  /** A short key for tests. */
  readonly id: string;
  readonly name: string;
  readonly what: 'jitterbug' | 'peer' | 'feature';
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
  return measured({ id, name, what }, contents, external, conditions);
};

/** `withRetry` and a feature's factory, as a program that uses the feature bundles them. */
const featureBundle = (factory: string): Promise<SizeRow> =>
  measured(
    { id: featureRow(factory), name: `\`${factory}\``, what: 'feature' },
    `export { withRetry, ${factory} } from '@jitterbug/fetch';`,
  );

const measured = async (
  { id, name, what }: Pick<SizeRow, 'id' | 'name' | 'what'>,
  contents: string,
  external?: string,
  conditions: string[] = [],
): Promise<SizeRow> => {
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

export const measureSizes = (): Promise<SizeRow[]> =>
  Promise.all([...ENTRIES.map(bundle), ...FEATURE_FACTORIES.map(featureBundle)]);

const bytes = (n: number | undefined): string => (n === undefined ? '—' : n.toLocaleString('en'));

/** The sizes beside the peers', and the source files that leave the most in jitterbug's bundles. */
export const sizesTable = (rows: readonly SizeRow[]): string => {
  const totals = table(
    ['bundle', 'of', 'minified (bytes)', 'minified + gzip -9 (bytes)'],
    rows
      .filter((r) => r.what !== 'feature')
      .map((r) => [r.name, r.what, r.error ? `not built: ${r.error}` : bytes(r.minified), bytes(r.gzip)]),
  );
  const base = rows.find((r) => r.id === 'withRetry');
  const features = table(
    [
      'opt-in feature (its factory)',
      'adds to withRetry, minified (bytes)',
      'adds, minified + gzip -9 (bytes)',
    ],
    rows
      .filter((r) => r.what === 'feature')
      .map((r) =>
        r.error || !base?.gzip
          ? [r.name, `not built: ${r.error ?? 'no withRetry row'}`, '—']
          : [r.name, bytes(r.minified! - base.minified!), bytes(r.gzip! - base.gzip)],
      ),
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
  return `${totals}\n\nWhat each opt-in feature costs, once its factory is imported:\n\n${features}\n\nWhere the bytes go (minified, before gzip):\n\n${byFile}`;
};

if (import.meta.main) console.log(sizesTable(await measureSizes()));
