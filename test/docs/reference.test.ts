/**
 * The API reference (`make docs`) builds from the TSDoc of every published package's entry points,
 * and every exported name, and every field of an exported interface or object type (the options
 * above all), is documented: TypeDoc's `notDocumented` validation finds none missing (see
 * `reference.ts`). A canary package proves that the check finds what is missing.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ReflectionKind } from 'typedoc';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildReference, entryPoints, type ReferenceResult } from './reference.ts';

const root = resolve(import.meta.dirname, '../..');

// A published package with one undocumented export and one undocumented option field; a private
// package, which is not published; a constant whose fields are its value.
const CANARY = {
  'typedoc.json': JSON.stringify({
    tsconfig: 'tsconfig.json',
    skipErrorChecking: true,
    validation: { notDocumented: true },
  }),
  'tsconfig.json': JSON.stringify({
    compilerOptions: { target: 'es2023', lib: ['es2023'], module: 'nodenext', strict: true, types: [] },
    include: ['packages/*/src'],
  }),
  'packages/canary/package.json': JSON.stringify({
    name: '@jitterbug/canary',
    exports: { '.': { '@jitterbug/source': './src/index.ts' }, './package.json': './package.json' },
  }),
  'packages/canary/src/index.ts': `
/** Options of {@link documented}. */
export interface CanaryOptions {
  /** Attempts in all. */
  readonly maxAttempts?: number;
  readonly undocumentedOption?: boolean;
}
/** Documented. */
export const documented = (options: CanaryOptions): number => options.maxAttempts ?? 3;
export const undocumentedExport = 1;
/** The defaults: its fields are its value. */
export const CANARY_DEFAULTS = Object.freeze({ maxAttempts: 3 });
`,
  'packages/internal/package.json': JSON.stringify({
    name: '@jitterbug/internal',
    private: true,
    exports: { '.': { '@jitterbug/source': './src/index.ts' } },
  }),
  'packages/internal/src/index.ts': 'export const notPublished = 1;\n',
};

let reference: ReferenceResult;
let canary: ReferenceResult;
let canaryRoot: string;
beforeAll(async () => {
  reference = await buildReference(root);
  canaryRoot = await mkdtemp(join(tmpdir(), 'jitterbug-reference-'));
  try {
    for (const [file, text] of Object.entries(CANARY)) {
      await mkdir(join(canaryRoot, file, '..'), { recursive: true });
      await writeFile(join(canaryRoot, file), text);
    }
    canary = await buildReference(canaryRoot);
  } finally {
    await rm(canaryRoot, { recursive: true, force: true });
  }
}, 120_000);

describe('the API reference', () => {
  it('builds from every entry point of every published package', () => {
    expect(reference.errors).toEqual([]);
    const modules = reference.project?.getChildrenByKind(ReflectionKind.Module).map((module) => module.name);
    const specifiers = entryPoints(root).map((point) => point.specifier);
    expect(specifiers).toEqual(expect.arrayContaining(['@jitterbug/core', '@jitterbug/core/adapter']));
    expect(modules?.sort()).toEqual([...specifiers].sort());
  });

  it('documents every exported name and every option field, and links to what exists', () => {
    expect(
      reference.warnings,
      `TSDoc is missing or a {@link} points nowhere:\n${reference.warnings.join('\n')}`,
    ).toEqual([]);
  });
});

describe('the check', () => {
  it('finds an export and an option field without TSDoc, and reads only published packages', () => {
    expect(canary.errors).toEqual([]);
    expect(canary.project?.getChildrenByKind(ReflectionKind.Module).map((module) => module.name)).toEqual([]);
    expect(canary.warnings).toEqual([
      expect.stringMatching(
        /^CanaryOptions\.undocumentedOption \(Property\), .* does not have any documentation$/,
      ),
      expect.stringMatching(/^undocumentedExport \(Variable\), .* does not have any documentation$/),
    ]);
  });
});
