/**
 * The ```ts code blocks of the documentation, typechecked as a user would compile them: each block is
 * its own module in a scratch project (ES modules, `strict`, `exactOptionalPropertyTypes`), checked by
 * the real `tsc` binary once with the DOM lib and once without it (a Node program with `@types/node`
 * only), so that a snippet that compiles only in a browser project, or only in a Node one, is caught.
 *
 * The workspace packages are resolved through the `@jitterbug/source` export condition, i.e. their
 * TypeScript sources: the check needs no build (`vitest run test/docs` works on a fresh clone), and
 * the `.d.ts` files are generated from those same sources (`scripts/check-packages.sh` checks that
 * they can be read).
 *
 * Every block compiles alone, with its own imports, as a user would paste it: nothing is put before
 * it. Two escapes, for blocks that are not a standalone program; keep them rare:
 *
 * - ```` ```ts no-check ```` — the block is not typechecked at all, nor run (an output example, a
 *   signature written for reading, a fragment that cannot stand alone).
 * - ```` ```ts no-run ```` — typechecked but not run by `run-snippets.ts` (a block that needs a
 *   browser); the block's first comment says why.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** One ```ts block of a Markdown file. */
export interface Snippet {
  /** Markdown file, relative to the repository root. */
  readonly file: string;
  /** 1-based line, in the Markdown file, of the block's first line of code. */
  readonly line: number;
  readonly code: string;
  /** `no-check` in the info string: neither typechecked nor run. */
  readonly skip: boolean;
  /** `no-run` in the info string: typechecked, not run (see `run-snippets.ts`). */
  readonly noRun: boolean;
}

/** One error of `tsc`, placed in the documentation. */
export interface SnippetError {
  /** Where it is: `README.md:42`. */
  readonly at: string;
  /** `TS2322: Type … is not assignable …` (continuation lines joined). */
  readonly message: string;
}

/** The two ways each snippet is compiled. */
export type LibVariant = 'dom' | 'no-dom';
export const LIB_VARIANTS: readonly LibVariant[] = ['dom', 'no-dom'];

// CommonMark fences: three or more backticks or tildes, indented by at most three spaces (more
// inside list items, which is what `indent` strips from the block's lines).
const FENCE = /^(\s*)(`{3,}|~{3,})\s*([^`\s]*)(.*)$/;
const TS_LANGUAGES = new Set(['ts', 'typescript']);

/** The Markdown files whose blocks are checked: the root README, each package's, everything in docs/. */
export const documentationFiles = (root: string): string[] => {
  const files = ['README.md'];
  for (const pkg of readdirSync(join(root, 'packages')).sort()) {
    if (existsSync(join(root, 'packages', pkg, 'README.md'))) files.push(`packages/${pkg}/README.md`);
  }
  const walk = (dir: string): void => {
    if (!existsSync(join(root, dir))) return;
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) files.push(path);
    }
  };
  walk('docs');
  return files;
};

/** The ```ts blocks of one Markdown file (`file`: its path, for messages). */
export const extractSnippets = (file: string, markdown: string): Snippet[] => {
  const lines = markdown.split(/\r?\n/);
  const snippets: Snippet[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (!open) continue;
    const [, indent = '', fence = '', language = '', rest = ''] = open;
    // The block ends at a fence of the same character at least as long, or at the end of the file.
    let end = i + 1;
    while (end < lines.length) {
      const close = /^\s*(`{3,}|~{3,})\s*$/.exec(lines[end]!);
      if (close && close[1]![0] === fence[0] && close[1]!.length >= fence.length) break;
      end++;
    }
    if (TS_LANGUAGES.has(language.toLowerCase())) {
      const body = lines
        .slice(i + 1, end)
        .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line.trimStart()));
      snippets.push({
        file,
        line: i + 2,
        code: body.join('\n'),
        skip: rest.split(/\s+/).includes('no-check'),
        noRun: rest.split(/\s+/).includes('no-run'),
      });
    }
    i = end;
  }
  return snippets;
};

/** Every snippet of the documentation. */
export const collectSnippets = (root: string): Snippet[] =>
  documentationFiles(root).flatMap((file) => extractSnippets(file, readFileSync(join(root, file), 'utf8')));

/** Where a snippet is, for test names and messages. */
export const snippetName = (snippet: Snippet): string => `${snippet.file}:${snippet.line}`;

/** A user's compiler options; `lib` differs between the variants. */
const compilerOptions = (variant: LibVariant): Record<string, unknown> => ({
  target: 'es2022',
  lib: variant === 'dom' ? ['es2023', 'dom', 'dom.iterable'] : ['es2023'],
  module: 'nodenext',
  moduleResolution: 'nodenext',
  // Every block is a module of its own, even one without an import (no shared global scope).
  moduleDetection: 'force',
  strict: true,
  exactOptionalPropertyTypes: true,
  noEmit: true,
  skipLibCheck: true,
  types: ['node'],
  customConditions: ['@jitterbug/source'],
  // The packages' sources import each other's files with their `.ts` extension.
  allowImportingTsExtensions: true,
});

interface Written {
  /** Scratch file name → the snippet written there. */
  readonly files: ReadonlyMap<string, Snippet>;
  readonly dir: string;
}

/** Writes each checked snippet as a module of a scratch project, with one tsconfig per variant. */
const writeProject = async (root: string, snippets: readonly Snippet[]): Promise<Written> => {
  const dir = await mkdtemp(join(tmpdir(), 'jitterbug-snippets-'));
  // The repository's node_modules: the packages (workspace links), their peers and @types/node.
  await symlink(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  await writeFile(join(dir, 'package.json'), '{ "type": "module" }\n');
  await mkdir(join(dir, 'snippets'));
  const files = new Map<string, Snippet>();
  let n = 0;
  for (const snippet of snippets) {
    if (snippet.skip) continue;
    const name = `snippets/s${String(++n).padStart(3, '0')}.ts`;
    await writeFile(join(dir, name), snippet.code);
    files.set(name, snippet);
  }
  for (const variant of LIB_VARIANTS) {
    const config = { compilerOptions: compilerOptions(variant), files: [...files.keys()] };
    await writeFile(join(dir, `tsconfig.${variant}.json`), JSON.stringify(config, null, 2));
  }
  return { files, dir };
};

// `snippets/s001.ts(3,7): error TS2322: …`, continued by indented lines; tsc's own complaints have no place.
const DIAGNOSTIC = /^(.+?)\((\d+),(\d+)\): error (TS\d+: .*)$/;
const DIAGNOSTIC_LINE = /^(.+\(\d+,\d+\): )?error TS\d+/m;

/** Runs `tsc -p` in `dir` and returns its output (it exits non-zero when there are errors). */
const runTsc = (root: string, dir: string, project: string): Promise<string> =>
  new Promise((done, fail) => {
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    execFile(
      process.execPath,
      [tsc, '-p', project, '--pretty', 'false'],
      { cwd: dir, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        // A non-zero exit with errors on stdout is what is being looked for; without them tsc itself failed.
        if (error && !DIAGNOSTIC_LINE.test(stdout))
          fail(new Error(`tsc failed: ${stderr || stdout || error.message}`));
        else done(stdout);
      },
    );
  });

/** tsc's errors, with continuation lines joined to the line they continue. */
const parseDiagnostics = (output: string): { file: string; line: number; message: string }[] => {
  const found: { file: string; line: number; message: string }[] = [];
  for (const line of output.split(/\r?\n/)) {
    const match = DIAGNOSTIC.exec(line);
    if (match) found.push({ file: match[1]!, line: Number(match[2]), message: match[4]! });
    else if (line.trim() !== '' && found.length > 0) found[found.length - 1]!.message += ` ${line.trim()}`;
    else if (line.trim() !== '') found.push({ file: '', line: 0, message: line.trim() });
  }
  return found;
};

/** The result of checking the documentation. */
export interface CheckResult {
  /** Per snippet (by {@link snippetName}) and variant, its errors. */
  readonly errors: ReadonlyMap<string, Readonly<Record<LibVariant, readonly SnippetError[]>>>;
  /**
   * Errors in the packages' own sources, per variant. Not the documentation's: the sources are
   * compiled here only to give the snippets their types, under the user's options rather than the
   * repository's (without the DOM lib, a private field typed `HeadersInit` has no type), while a user
   * compiles against the `.d.ts` files, where private fields carry no type.
   */
  readonly packageSources: Readonly<Record<LibVariant, readonly string[]>>;
  /** Any other error: tsc's own complaints about the project. */
  readonly elsewhere: Readonly<Record<LibVariant, readonly string[]>>;
}

const PACKAGE_SOURCE = /(^|\/)packages\/[^/]+\/src\//;

/**
 * Typechecks every snippet that is not `no-check`, with both variants (two `tsc` runs in parallel,
 * each over all snippets), and places each error at its line in the documentation.
 */
export const checkSnippets = async (root: string, snippets: readonly Snippet[]): Promise<CheckResult> => {
  const { files, dir } = await writeProject(root, snippets);
  try {
    const outputs = await Promise.all(
      LIB_VARIANTS.map((variant) => runTsc(root, dir, `tsconfig.${variant}.json`)),
    );
    const errors = new Map<string, Record<LibVariant, SnippetError[]>>();
    for (const snippet of files.values()) errors.set(snippetName(snippet), { dom: [], 'no-dom': [] });
    const packageSources: Record<LibVariant, string[]> = { dom: [], 'no-dom': [] };
    const elsewhere: Record<LibVariant, string[]> = { dom: [], 'no-dom': [] };
    LIB_VARIANTS.forEach((variant, i) => {
      for (const diagnostic of parseDiagnostics(outputs[i]!)) {
        const file = diagnostic.file.replaceAll('\\', '/');
        const snippet = files.get(file);
        if (!snippet) {
          const where = file ? `${file}(${diagnostic.line}): ` : '';
          (PACKAGE_SOURCE.test(file) ? packageSources : elsewhere)[variant].push(where + diagnostic.message);
          continue;
        }
        const at = `${snippet.file}:${snippet.line + diagnostic.line - 1}`;
        errors.get(snippetName(snippet))![variant].push({ at, message: diagnostic.message });
      }
    });
    return { errors, packageSources, elsewhere };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

/** A readable list of a snippet's errors in both variants ('' when there are none). */
export const describeErrors = (errors: Readonly<Record<LibVariant, readonly SnippetError[]>>): string => {
  const lines: string[] = [];
  for (const variant of LIB_VARIANTS) {
    for (const error of errors[variant]) {
      // Errors between two copies of undici's types run to thousands of characters: the start says it.
      const message = error.message.length > 600 ? `${error.message.slice(0, 600)}…` : error.message;
      lines.push(`  [${variant}] ${error.at}: ${message}`);
    }
  }
  return lines.join('\n');
};
