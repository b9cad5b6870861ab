/**
 * The ```ts blocks of the documentation, run as a user would run them: each block is its own module,
 * run by Node (type stripping, `--conditions=@jitterbug/source` so the packages are their sources) in
 * a child process with a timeout, against a local flaky server (`flaky-server.ts`) that its example
 * hosts (`https://api.example.com`, `http://localhost:3000`, …) are rewritten to. A block fails when
 * it throws, rejects, exits non-zero or does not finish in time.
 *
 * Each Markdown file's blocks see only the packages its install lines name (`installs.ts`), in a
 * `node_modules` of their own: an import the install line does not cover fails as it would under
 * pnpm (`ERR_MODULE_NOT_FOUND`).
 *
 * A block that cannot run outside a browser (it touches `document`) carries ```` ```ts no-run ````
 * with the reason in its first comment; a `no-check` block is not run either.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDocsServer } from './flaky-server.ts';
import { type Snippet, snippetName } from './snippets.ts';

/** How one block ran. */
export interface RunResult {
  readonly ok: boolean;
  /** Why it failed, with its output and error placed at lines of the Markdown file ('' when ok). */
  readonly message: string;
  readonly durationMs: number;
  /** What the server was asked, in order: `GET /orders/42 → 503`. */
  readonly requests: readonly string[];
  /** The end of what the block printed on stdout (its last 16,000 characters). */
  readonly stdout: string;
}

export interface RunOptions {
  /** Markdown file → the packages its install lines name (`installedPackages`). */
  readonly installs: ReadonlyMap<string, readonly string[]>;
  /** A block still running after this long is killed and fails. */
  readonly timeoutMs?: number;
  /** Blocks run at once (each in its own process, with its own server). */
  readonly concurrency?: number;
}

/** The example hosts of the documentation; every one is rewritten to the local server. */
const EXAMPLE_HOSTS = /https?:\/\/(?:[a-z0-9-]+\.)*example\.com|http:\/\/localhost:3000/g;

/** Whether the block is run at all. */
export const isRun = (snippet: Snippet): boolean => !snippet.skip && !snippet.noRun;

/** A file name for a block's module that says where it comes from: `docs_migrating_ky.md_L25.ts`. */
const moduleName = (snippet: Snippet): string => `${snippet.file.replaceAll('/', '_')}_L${snippet.line}.ts`;

/** The folder of one Markdown file's blocks, with a `node_modules` of the packages it installs. */
const prepareFolder = async (
  root: string,
  dir: string,
  file: string,
  packages: readonly string[],
): Promise<string> => {
  const folder = join(dir, file.replaceAll('/', '_'));
  await mkdir(join(folder, 'node_modules'), { recursive: true });
  await writeFile(join(folder, 'package.json'), '{ "type": "module" }\n');
  for (const name of packages) {
    const installed = join(root, 'node_modules', name);
    if (!existsSync(installed))
      throw new Error(`${file} installs ${name}, which the workspace does not have`);
    if (name.includes('/'))
      await mkdir(join(folder, 'node_modules', name.split('/')[0]!), { recursive: true });
    await symlink(installed, join(folder, 'node_modules', name), 'dir');
  }
  return folder;
};

/** Replaces the scratch module's path in Node's output by the block's place in the Markdown file. */
const placeInDocs = (output: string, path: string, snippet: Snippet): string =>
  output.replaceAll(new RegExp(`(?:file://)?${escapeRegExp(path)}(?::(\\d+)(?::\\d+)?)?`, 'g'), (_, line) =>
    line === undefined ? snippetName(snippet) : `${snippet.file}:${snippet.line + Number(line) - 1}`,
  );

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The start of an output (where an uncaught error and its stack are) and its end. */
const shorten = (text: string, head = 3_000, tail = 1_000): string =>
  text.length > head + tail ? `${text.slice(0, head)}\n…\n${text.slice(-tail)}` : text;

interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly timedOut: boolean;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs one module with Node 24 in `cwd`, killed after `timeoutMs`. */
const runModule = (cwd: string, path: string, cacheDir: string, timeoutMs: number): Promise<Exit> =>
  new Promise((done) => {
    const { NODE_OPTIONS: _, ...env } = process.env;
    const child = spawn(
      process.execPath,
      ['--conditions=@jitterbug/source', '--disable-warning=ExperimentalWarning', path],
      { cwd, env: { ...env, NODE_COMPILE_CACHE: cacheDir }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    // A block may write a whole download to stdout: keep the start of stderr, the end of stdout.
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout = (stdout + chunk).slice(-16_000);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < 64_000) stderr += chunk;
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      done({ code, signal, timedOut, stdout, stderr });
    });
  });

/** Why a run failed, or '' when it did not. */
const failure = (exit: Exit, timeoutMs: number): string => {
  if (exit.timedOut) {
    return `did not finish within ${timeoutMs / 1000} s (killed): a request that never ends, or a timer or socket left open`;
  }
  if (exit.code === 13) return 'exited with code 13: a top-level await that never settles';
  if (exit.code !== 0) return `exited with ${exit.signal ?? `code ${exit.code}`}`;
  return '';
};

/** Runs one block against its own server. */
const runOne = async (
  folder: string,
  cacheDir: string,
  snippet: Snippet,
  timeoutMs: number,
): Promise<RunResult> => {
  const server = await startDocsServer();
  const started = performance.now();
  try {
    const path = join(folder, moduleName(snippet));
    await writeFile(path, snippet.code.replace(EXAMPLE_HOSTS, server.url));
    const exit = await runModule(folder, path, cacheDir, timeoutMs);
    const why = failure(exit, timeoutMs);
    const message =
      why === ''
        ? ''
        : [
            `${snippetName(snippet)} ${why}`,
            `server log: ${server.log.join(', ') || 'no request'}`,
            exit.stderr && `stderr:\n${shorten(placeInDocs(exit.stderr, path, snippet))}`,
            exit.stdout && `stdout:\n${shorten(exit.stdout, 0)}`,
          ]
            .filter(Boolean)
            .join('\n');
    const durationMs = performance.now() - started;
    return { ok: why === '', message, durationMs, requests: [...server.log], stdout: exit.stdout };
  } finally {
    await server.close();
  }
};

/**
 * Runs every block that is neither `no-check` nor `no-run`, `concurrency` at a time, and returns how
 * each went, by {@link snippetName}.
 */
export const runSnippets = async (
  root: string,
  snippets: readonly Snippet[],
  { installs, timeoutMs = 60_000, concurrency = Math.max(2, availableParallelism()) }: RunOptions,
): Promise<Map<string, RunResult>> => {
  const dir = await mkdtemp(join(tmpdir(), 'jitterbug-run-snippets-'));
  const cacheDir = join(dir, '.compile-cache');
  const results = new Map<string, RunResult>();
  try {
    const queue = snippets.filter(isRun);
    const folders = new Map<string, string>();
    for (const file of new Set(queue.map((snippet) => snippet.file))) {
      folders.set(file, await prepareFolder(root, dir, file, installs.get(file) ?? []));
    }
    const next = async (): Promise<void> => {
      for (let snippet = queue.shift(); snippet; snippet = queue.shift()) {
        const folder = folders.get(snippet.file)!;
        results.set(snippetName(snippet), await runOne(folder, cacheDir, snippet, timeoutMs));
      }
    };
    await Promise.all(Array.from({ length: concurrency }, next));
    return results;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};
