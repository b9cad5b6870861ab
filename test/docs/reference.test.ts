/**
 * The API reference (`make docs`) builds from the TSDoc of every published package's entry points,
 * and every exported name, and every field of an exported interface or object type (the options
 * above all), is documented: TypeDoc's `notDocumented` validation finds none missing (see
 * `reference.ts`). The package READMEs' tables of exports and options name exactly what the
 * reference has (see `readme-lists.ts`), and each has a changelog. Canaries prove that the checks
 * find what is wrong.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ReflectionKind } from 'typedoc';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkTables, type ExportedApi, readTables } from './readme-lists.ts';
import {
  buildReference,
  entryPoints,
  exportedApi,
  publishedPackages,
  type ReferenceResult,
} from './reference.ts';

const root = resolve(import.meta.dirname, '../..');

// A published package with one undocumented export and one undocumented option field; a private
// package, which is not published; a constant whose fields are its value. All in a git repository
// with no remote, as the main checkout is: what the reference finds must not depend on the checkout.
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
    const author = ['-c', 'user.name=canary', '-c', 'user.email=canary@example.invalid'];
    for (const args of [
      ['init', '-q'],
      ['add', '-A'],
      ['commit', '-q', '--no-gpg-sign', '-m', 'canary'],
    ])
      execFileSync('git', [...author, ...args], { cwd: canaryRoot, stdio: 'ignore' });
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

describe('the package READMEs', () => {
  const readmes = publishedPackages(root).map((pkg) => `${pkg.dir}/README.md`);
  const read = readmes.map((file) => readTables(file, readFileSync(join(root, file), 'utf8')));
  const tables = read.flatMap((file) => file.tables);

  it('list every export of every entry point, and every option, and nothing else', () => {
    const required = new Map(
      entryPoints(root).map((point) => [
        point.specifier,
        `${publishedPackages(root).find((pkg) => pkg.name === point.packageName)!.dir}/README.md`,
      ]),
    );
    const problems = [
      ...read.flatMap((file) => file.problems),
      ...checkTables(tables, exportedApi(reference.project!), required),
    ];
    expect(problems, problems.join('\n')).toEqual([]);
  });

  it("list the core's options", () => {
    expect(tables).toContainEqual(
      expect.objectContaining({ kind: 'options', module: '@jitterbug/core', type: 'RetryPolicyOptions' }),
    );
  });
});

describe('the changelogs', () => {
  it('are one per published package, kept by changesets: `# <name>`, then its versions', () => {
    const problems = publishedPackages(root).flatMap(({ name, dir }) => {
      const file = join(root, dir, 'CHANGELOG.md');
      if (!existsSync(file)) return [`${dir} has no CHANGELOG.md (changesets writes its entries there)`];
      const text = readFileSync(file, 'utf8');
      return text.startsWith(`# ${name}\n\n## `)
        ? []
        : [`${dir}/CHANGELOG.md must start with "# ${name}", then a "## <version>" entry`];
    });
    expect(problems, problems.join('\n')).toEqual([]);
  });
});

describe('the check of the READMEs', () => {
  const api: ExportedApi = {
    exportsOf: (module) =>
      ({
        '@jitterbug/core': new Set(['createRetryPolicy', 'sleep', 'RetryOptions']),
        '@jitterbug/axios': new Set(['attachRetry', 'createRetryPolicy', 'sleep', 'RetryOptions']),
      })[module],
    fieldsOf: (module, type) =>
      module === '@jitterbug/core' && type === 'RetryOptions'
        ? new Set(['maxAttempts', 'beforeRetry'])
        : undefined,
  };
  const MARKDOWN = `
<!-- options of @jitterbug/core RetryOptions -->

| option | meaning |
| --- | --- |
| \`maxAttempts\` _RC_ | attempts |
| \`cooldown\` | gone |

<!-- exports of @jitterbug/core -->
| export | what |
| --- | --- |
| \`createRetryPolicy(options)\`, \`foo\` | a policy |

<!-- exports of @jitterbug/axios, besides @jitterbug/core -->
| export | what |
| --- | --- |
| \`attachRetry(instance)\` | attaches |

| option | meaning |
| --- | --- |
| \`maxAttempts\` | unmarked |

\`\`\`md
| option | in a code block |
| --- | --- |
\`\`\`
`;
  const { tables, problems } = readTables('packages/core/README.md', MARKDOWN);
  const found = checkTables(
    tables,
    api,
    new Map([
      ['@jitterbug/core', 'packages/core/README.md'],
      ['@jitterbug/undici', 'packages/undici/README.md'],
    ]),
  );

  it('reads the first column of a marked table, and finds an unmarked table of options', () => {
    expect(tables.map((table) => [table.kind, table.module, table.names.map(({ name }) => name)])).toEqual([
      ['options', '@jitterbug/core', ['maxAttempts', 'cooldown']],
      ['exports', '@jitterbug/core', ['createRetryPolicy', 'foo']],
      ['exports', '@jitterbug/axios', ['attachRetry']],
    ]);
    expect(problems).toEqual([
      'packages/core/README.md:19 has a table of options with no "<!-- options of <entry point> <type> -->" line before it',
    ]);
  });

  it('says plainly what a table names that is not there, what it misses, and what has no table', () => {
    expect(found).toEqual([
      'packages/core/README.md:7 names `cooldown`, which RetryOptions does not have',
      'packages/core/README.md:2: the table misses `beforeRetry`, an option of RetryOptions',
      'packages/core/README.md:12 names `foo`, which @jitterbug/core does not export',
      'packages/core/README.md does not list `RetryOptions`, which @jitterbug/core exports',
      'packages/core/README.md does not list `sleep`, which @jitterbug/core exports',
      'packages/undici/README.md has no table of the exports of @jitterbug/undici ("<!-- exports of @jitterbug/undici -->")',
    ]);
  });
});
