/**
 * Every ```ts block of README.md, packages/*\/README.md and docs/**\/*.md runs as written: its own
 * module, in a Node 24 child process, against a local flaky server its example hosts are rewritten
 * to, with only the packages its file's install lines name (see `run-snippets.ts`). Canaries prove
 * that a block that throws, rejects, hangs, exits non-zero or imports what its file does not install
 * fails, at its line in the Markdown file.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { installedPackages, packageOf } from './installs.ts';
import { isRun, type RunResult, runSnippets } from './run-snippets.ts';
import {
  collectSnippets,
  documentationFiles,
  extractSnippets,
  type Snippet,
  snippetName,
} from './snippets.ts';

const root = resolve(import.meta.dirname, '../..');
const installs = new Map(
  documentationFiles(root).map((file) => [
    file,
    installedPackages(readFileSync(resolve(root, file), 'utf8')),
  ]),
);
const snippets = collectSnippets(root);
const run = snippets.filter(isRun);

const CANARIES = `
\`\`\`sh
npm install @jitterbug/fetch @jitterbug/axios axios
\`\`\`

\`\`\`ts
import { getRetryInfo, withRetry } from '@jitterbug/fetch';
const response = await withRetry(fetch)('https://api.example.com/orders/42');
console.log(response.status, getRetryInfo(response)?.attempts);
\`\`\`

\`\`\`ts
console.log('before');
throw new Error('thrown on the second line');
\`\`\`

\`\`\`ts
Promise.reject(new Error('nobody awaits this'));
\`\`\`

\`\`\`ts
setInterval(() => {}, 1_000);
\`\`\`

\`\`\`ts
await new Promise(() => {});
\`\`\`

\`\`\`ts
process.exitCode = 3;
\`\`\`

\`\`\`ts
import { DEFAULTS } from '@jitterbug/core';
console.log(DEFAULTS.maxAttempts);
\`\`\`

\`\`\`ts no-run
// Needs a browser: it sets the page's title.
document.title = 'never run';
\`\`\`

\`\`\`ts
import axios from 'axios';
import { attachRetry } from '@jitterbug/axios';

const api = axios.create({ baseURL: 'https://api.example.com' });
attachRetry(api);
await api.get('/flaky');
\`\`\`
`;
const canaries = extractSnippets('test/docs/canaries.md', CANARIES);
const canaryInstalls = new Map([['test/docs/canaries.md', installedPackages(CANARIES)]]);

let results: Map<string, RunResult>;
let canaryResults: Map<string, RunResult>;
beforeAll(async () => {
  const started = performance.now();
  [results, canaryResults] = await Promise.all([
    runSnippets(root, snippets, { installs }),
    runSnippets(root, canaries, { installs: canaryInstalls, timeoutMs: 10_000, concurrency: 1 }),
  ]);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(
    `documentation: ${results.size} blocks run in ${seconds} s (${snippets.length - run.length} not run)`,
  );
}, 600_000);

const canary = (n: number): Snippet => canaries[n]!;
const ranCanary = (n: number): RunResult => canaryResults.get(snippetName(canary(n)))!;

/** The packages a block imports (`import … from 'x'`, `import 'x'`, `import('x')`). */
const importedPackages = (code: string): string[] =>
  [...code.matchAll(/\bfrom\s+['"]([^'"]+)['"]|\bimport\s*\(?\s*['"]([^'"]+)['"]/g)]
    .map((match) => packageOf(match[1] ?? match[2]!))
    .filter((name): name is string => name !== undefined);

describe('documentation snippets, run', () => {
  it.each(run.map((snippet) => [snippetName(snippet)] as const))('%s runs', (name) => {
    expect(results.get(name)?.message).toBe('');
  });

  it('import only what the install lines of their file name', () => {
    const missing = snippets.flatMap((snippet) =>
      importedPackages(snippet.code)
        .filter((name) => !installs.get(snippet.file)?.includes(name))
        .map(
          (name) => `${snippetName(snippet)} imports ${name}, which no install line of ${snippet.file} names`,
        ),
    );
    expect(missing).toEqual([]);
  });

  it('are all run, but for a few no-run blocks whose first comment says why', () => {
    const notRun = snippets.filter((snippet) => snippet.noRun);
    for (const snippet of notRun) expect(snippet.code, snippetName(snippet)).toMatch(/^\s*\/\/ \S/);
    expect(notRun.length).toBeLessThanOrEqual(Math.ceil(snippets.length / 20));
    expect(results.size).toBe(run.length);
  });
});

describe('the run', () => {
  it('rewrites the example host to a server that answers 503 then 200', () => {
    expect(ranCanary(0)).toMatchObject({
      message: '',
      requests: ['GET /orders/42 → 503', 'GET /orders/42 → 200'],
      stdout: '200 2\n',
    });
  });

  it('fails a block that throws, at its line in the Markdown file', () => {
    const { line } = canary(1);
    expect(ranCanary(1).message).toMatch(new RegExp(`^test/docs/canaries\\.md:${line} exited with code 1\n`));
    expect(ranCanary(1).message).toMatch(
      new RegExp(`test/docs/canaries\\.md:${line + 1}\n.*thrown on the second line`, 's'),
    );
  });

  it('fails an unhandled rejection, a block that hangs, one that never settles, a non-zero exit code', () => {
    expect(ranCanary(2).message).toMatch(/exited with code 1\n.*nobody awaits this/s);
    expect(ranCanary(3).message).toMatch(/did not finish within 10 s \(killed\)/);
    expect(ranCanary(4).message).toMatch(/exited with code 13: a top-level await that never settles/);
    expect(ranCanary(5).message).toMatch(/^test\/docs\/canaries\.md:\d+ exited with code 3\n/);
  });

  it("fails an import of a package that the file's install lines do not name, as under pnpm", () => {
    expect(ranCanary(6).message).toMatch(/ERR_MODULE_NOT_FOUND.*Cannot find package '@jitterbug\/core'/s);
  });

  it('runs no no-run block, and places an error at its line of the block', () => {
    expect(canary(7).noRun).toBe(true);
    expect(canaryResults.has(snippetName(canary(7)))).toBe(false);
    const flaky = ranCanary(8);
    expect(flaky.requests).toEqual(['GET /flaky → 503', 'GET /flaky → 503', 'GET /flaky → 503']);
    expect(flaky.message).toMatch(
      new RegExp(`AxiosError.*test/docs/canaries\\.md:${canary(8).line + 5}`, 's'),
    );
  });
});
