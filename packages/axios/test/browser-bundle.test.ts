/**
 * `@jitterbug/axios` bundles for a browser as a user's bundler would bundle it (esbuild, browser
 * platform, axios external): no `node:` import, no `Buffer`, no Node-only module of this package
 * (`src/node/`, reached only through the `node` condition of `#platform`). Stream mode
 * (`discardedBodyCap`) bundles too, and a program that does not import it does not carry it.
 */
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));

const bundle = async (code: string): Promise<{ text: string; inputs: string[] }> => {
  const result = await build({
    stdin: { contents: code, resolveDir: root, loader: 'ts' },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    conditions: ['@jitterbug/source', 'browser'],
    external: ['axios'],
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const metafile = result.metafile as Metafile;
  // The modules whose code is in the output (a module tree-shaken away is listed with 0 bytes).
  const [output] = Object.values(metafile.outputs);
  const inputs = Object.entries(output!.inputs)
    .filter(([, input]) => input.bytesInOutput > 0)
    .map(([path]) => path);
  return { text: result.outputFiles[0]!.text, inputs };
};

const ENTRIES = {
  default:
    "import axios from 'axios'; import { attachRetry } from '@jitterbug/axios'; export const d = attachRetry(axios.create());",
  capped:
    "import axios from 'axios'; import { attachRetry, createDiscardedBodyCap } from '@jitterbug/axios'; export const d = attachRetry(axios.create(), {}, { discardedBodyCap: createDiscardedBodyCap() });",
};

describe.each(Object.entries(ENTRIES))('the browser bundle of attachRetry (%s)', (name, code) => {
  it('has no node: import, no Buffer and none of the package’s Node-only modules', async () => {
    const { text, inputs } = await bundle(code);
    expect(text).not.toMatch(/["']node:/);
    expect(text).not.toMatch(/\bBuffer\b/);
    expect(text).not.toMatch(/\brequire\(/);
    const own = inputs.filter((path) => path.startsWith('packages/axios/'));
    expect(own).toContain('packages/axios/src/platform/web.ts');
    expect(own.filter((path) => path.includes('/node/') || path.endsWith('platform/node.ts'))).toEqual([]);
    // axios stays the user's: imported, not bundled.
    expect(text).toMatch(/from ["']axios["']/);
    // Stream mode's modules are in the bundle only when the program imports the opt-in.
    const streamMode = own.filter((path) => /(stream-mode|fetch-body|capped-bodies)\.ts$/.test(path));
    expect(streamMode.length).toBe(name === 'capped' ? 3 : 0);
  });
});
