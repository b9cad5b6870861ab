/**
 * Bundles in-runtime code with esbuild, for the runtimes that cannot load the packages' TypeScript
 * sources themselves (browser pages, workerd): ESM, the packages' `@jitterbug/source` condition
 * plus the platform's own conditions.
 */
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface BundleSpec {
  /** The entry, relative to `test/runtimes/in-runtime/entries/`. */
  readonly entry: string;
  readonly conditions: readonly string[];
}

/** Browsers: `browser` (axios' browser build, the packages' web code). */
export const BROWSER_BUNDLE: BundleSpec = {
  entry: 'browser.ts',
  conditions: ['@jitterbug/source', 'browser'],
};
/** workerd: as wrangler resolves for it. */
export const WORKERD_BUNDLE: BundleSpec = {
  entry: 'worker.ts',
  conditions: ['@jitterbug/source', 'workerd', 'worker', 'browser'],
};

/** The bundle's code; an error names what could not be bundled (esbuild's messages). */
export const bundle = async (spec: BundleSpec): Promise<string> => {
  const result = await build({
    entryPoints: [fileURLToPath(new URL(`../in-runtime/entries/${spec.entry}`, import.meta.url))],
    absWorkingDir: ROOT,
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2023',
    conditions: [...spec.conditions],
    logLevel: 'silent',
    sourcemap: 'inline',
  });
  return result.outputFiles[0]!.text;
};
