/**
 * Browser bundle sizes: each entry bundled by esbuild as a user's bundler would (browser platform,
 * minified, the HTTP client itself external), then gzipped at level 9. Used by the size test in
 * `make test` (the budgets) and by `make bench` (the table beside the peers).
 */
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

/** One bundle to measure: `code` is the entry module a user would write. */
export interface SizeEntry {
  readonly name: string;
  readonly code: string;
  /** Gzipped bytes it may not exceed, if it has a budget. */
  readonly budget?: number;
}

export interface SizeResult {
  readonly name: string;
  readonly minified: number;
  readonly gzip: number;
  readonly budget?: number;
}

const root = new URL('..', import.meta.url).pathname;

/** jitterbug's browser entries and their budgets (issue: ≤ 4 KB each, minified + gzip). */
export const JITTERBUG_ENTRIES: readonly SizeEntry[] = [
  {
    name: 'withRetry (@jitterbug/fetch)',
    code: "import { withRetry } from '@jitterbug/fetch'; export const f = withRetry(fetch);",
    budget: 4096,
  },
  {
    name: 'kyRetry (@jitterbug/ky)',
    code: "import { kyRetry } from '@jitterbug/ky'; export const o = kyRetry();",
    budget: 4096,
  },
  {
    name: 'attachRetry (@jitterbug/axios, browser build)',
    code: "import axios from 'axios'; import { attachRetry } from '@jitterbug/axios'; export const d = attachRetry(axios.create());",
    budget: 4096,
  },
  {
    name: 'createRetryPolicy with routes (@jitterbug/core)',
    code: "import { createRetryPolicy } from '@jitterbug/core'; export const p = createRetryPolicy({ routes: [] });",
  },
];

/** The peers, measured the same way. */
export const PEER_ENTRIES: readonly SizeEntry[] = [
  { name: 'ky 2 itself', code: "export { default } from 'ky';" },
  { name: 'fetch-retry', code: "import fetchRetry from 'fetch-retry'; export const f = fetchRetry(fetch);" },
  { name: 'p-retry', code: "export { default } from 'p-retry';" },
  {
    name: 'axios-retry',
    code: "import axios from 'axios'; import axiosRetry from 'axios-retry'; axiosRetry(axios.create());",
  },
];

/** Bundles and gzips one entry. The HTTP clients (ky, axios) are external unless they are the entry. */
export const measure = async (entry: SizeEntry): Promise<SizeResult> => {
  const isClient = entry.name === 'ky 2 itself';
  const result = await build({
    stdin: { contents: entry.code, resolveDir: root, loader: 'ts' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    conditions: ['@jitterbug/source', 'browser'],
    external: isClient ? [] : ['ky', 'axios'],
    write: false,
    logLevel: 'silent',
    legalComments: 'none',
  });
  const code = result.outputFiles[0]!.contents;
  const sized = {
    name: entry.name,
    minified: code.byteLength,
    gzip: gzipSync(code, { level: 9 }).byteLength,
  };
  return entry.budget === undefined ? sized : { ...sized, budget: entry.budget };
};

/** Every entry, in order. */
export const measureAll = (entries: readonly SizeEntry[]): Promise<SizeResult[]> =>
  Promise.all(entries.map((entry) => measure(entry)));
