/**
 * Every ```ts block of README.md, packages/*\/README.md and docs/**\/*.md compiles as written, as its
 * own module, under `strict` and `exactOptionalPropertyTypes`, with and without the DOM lib (see
 * `snippets.ts` for how, and for the two markers a block that is not a standalone program may carry).
 * One `tsc` run per lib variant checks them all, together with canaries that prove the check
 * catches what it is meant to catch.
 */
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type CheckResult,
  checkSnippets,
  collectSnippets,
  describeErrors,
  extractSnippets,
  type Snippet,
  snippetName,
} from './snippets.ts';

const root = resolve(import.meta.dirname, '../..');
const snippets = collectSnippets(root);
const checked = snippets.filter((snippet) => !snippet.skip);

// Blocks that must fail (or pass) in a known way: if the check stopped compiling anything, stopped
// leaving out the DOM lib, or lost a strict option, these would say so.
const CANARIES = `
\`\`\`ts
const count: number = 'three';
\`\`\`

\`\`\`ts
document.title = 'only in a browser';
\`\`\`

\`\`\`ts
const options: { retries?: number } = { retries: undefined };
export const f = (x) => x;
console.log(options);
\`\`\`

\`\`\`ts
import { Agent } from 'undici';
import { retryInterceptor } from '@jitterbug/undici';

const dispatcher = new Agent().compose(retryInterceptor());
const response = await fetch('https://api.example.com/orders/42', { dispatcher });
console.log(response.status);
\`\`\`

- in a list item:

  \`\`\`ts
  import axios from 'axios';
  import { attachRetry, getRetryInfo } from '@jitterbug/axios';

  const api = axios.create({ baseURL: 'https://api.example.com' });
  attachRetry(api);
  const response = await api.get('/items');
  console.log(getRetryInfo(response)?.attempts);
  \`\`\`

\`\`\`ts no-check
{ attempts: 2, totalDelayMs: 87 } // output, not a program
\`\`\`

\`\`\`ts
// What another block declared is not there: each block compiles alone.
const response = await api.get('/items');
console.log(getRetryInfo(response)?.attempts);
\`\`\`
`;
const canaries = extractSnippets('test/docs/canaries.md', CANARIES);
const canary = (n: number): Snippet => canaries[n]!;

let result: CheckResult;
beforeAll(async () => {
  result = await checkSnippets(root, [...snippets, ...canaries]);
}, 60_000);

const errorsOf = (snippet: Snippet) => result.errors.get(snippetName(snippet))!;
const codes = (snippet: Snippet, variant: 'dom' | 'no-dom'): string[] =>
  errorsOf(snippet)[variant].map((error) => `${error.at} ${error.message.slice(0, 6)}`);

describe('documentation snippets', () => {
  it('are found in the READMEs and in every migration guide', () => {
    const files = new Set(checked.map((snippet) => snippet.file));
    for (const file of [
      'README.md',
      'docs/migrating/axios-retry.md',
      'docs/migrating/ky.md',
      'docs/migrating/undici.md',
      'docs/migrating/fetch-retry-and-p-retry.md',
    ]) {
      expect(files, file).toContain(file);
    }
  });

  it.each(checked.map((snippet) => [snippetName(snippet), snippet] as const))('%s compiles', (name) => {
    const errors = describeErrors(result.errors.get(name)!);
    expect(errors, `${name} does not compile as written:\n${errors}`).toBe('');
  });

  it('leave tsc nothing to complain about outside the snippets', () => {
    expect(result.elsewhere).toEqual({ dom: [], 'no-dom': [] });
  });
});

describe('the check', () => {
  it('reports an error at its line in the Markdown file, in both variants', () => {
    expect(codes(canary(0), 'dom')).toEqual(['test/docs/canaries.md:3 TS2322']);
    expect(codes(canary(0), 'no-dom')).toEqual(['test/docs/canaries.md:3 TS2322']);
  });

  it('compiles without the DOM lib in one variant, with it in the other', () => {
    expect(codes(canary(1), 'dom')).toEqual([]);
    expect(codes(canary(1), 'no-dom')).toEqual(['test/docs/canaries.md:7 TS2584']);
  });

  it('has exactOptionalPropertyTypes and strict on', () => {
    expect(codes(canary(2), 'dom')).toEqual([
      'test/docs/canaries.md:11 TS2375',
      'test/docs/canaries.md:12 TS7006',
    ]);
  });

  it("catches fetch(url, { dispatcher }) with undici's Agent, with the DOM lib and without it", () => {
    expect(codes(canary(3), 'dom')).toEqual(['test/docs/canaries.md:21 TS2769']);
    expect(codes(canary(3), 'no-dom')).toHaveLength(1);
    expect(codes(canary(3), 'no-dom')[0]).toMatch(/^test\/docs\/canaries\.md:21 TS23(22|75)$/);
  });

  it('reads fences indented in a list', () => {
    expect(canary(4).code).toMatch(/^import axios from 'axios';/);
    expect(errorsOf(canary(4))).toEqual({ dom: [], 'no-dom': [] });
  });

  it('skips a no-check block, and compiles each block alone: nothing of another is in scope', () => {
    expect(canary(5).skip).toBe(true);
    expect(result.errors.has(snippetName(canary(5)))).toBe(false);
    const { line } = canary(6);
    expect(codes(canary(6), 'dom')).toEqual([
      `test/docs/canaries.md:${line + 1} TS2304`,
      `test/docs/canaries.md:${line + 2} TS2304`,
    ]);
  });
});
