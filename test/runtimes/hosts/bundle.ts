/**
 * Bundles in-runtime code with esbuild, for the runtimes that cannot load the packages' TypeScript
 * sources themselves (browser pages, workerd): ESM, the packages' `@jitterbug/source` condition
 * plus the platform's own conditions. The browser example (examples/browser/) bundles its page here too.
 */
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface BundleSpec {
  /** The entry's absolute path. */
  readonly entry: string;
  readonly conditions: readonly string[];
}

const ENTRIES = new URL('../in-runtime/entries/', import.meta.url);

/** What a browser page resolves: `browser` (axios' browser build, the packages' web code). */
export const BROWSER_CONDITIONS: readonly string[] = ['@jitterbug/source', 'browser'];

export const BROWSER_BUNDLE: BundleSpec = {
  entry: fileURLToPath(new URL('browser.ts', ENTRIES)),
  conditions: BROWSER_CONDITIONS,
};
/** workerd: as wrangler resolves for it. */
export const WORKERD_BUNDLE: BundleSpec = {
  entry: fileURLToPath(new URL('worker.ts', ENTRIES)),
  conditions: ['@jitterbug/source', 'workerd', 'worker', 'browser'],
};

/** The bundle's code; an error names what could not be bundled (esbuild's messages). */
export const bundle = async (spec: BundleSpec): Promise<string> => {
  const result = await build({
    entryPoints: [spec.entry],
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
