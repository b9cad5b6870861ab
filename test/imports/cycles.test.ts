/**
 * No package's sources import in a circle, at run time or through types alone (issue 34): the
 * types that features and drivers share live in leaf modules, so a module's imports always lead
 * down. The reader itself is checked first, on a small package written to a temporary folder.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { cycles, importGraph } from './import-graph.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const packages = readdirSync(join(root, 'packages')).sort();

describe('the import graph reader', () => {
  const dir = mkdtempSync(join(tmpdir(), 'jitterbug-imports-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (path: string, text: string): void => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  write(
    'package.json',
    JSON.stringify({
      name: '@fixture/p',
      exports: { './view': { '@jitterbug/source': './src/view.ts', default: './dist/view.js' } },
      imports: { '#env': { node: { default: './src/env/node.ts' }, default: './src/env/none.ts' } },
    }),
  );
  // A run-time cycle a ↔ b, one through a `#` import (c → env/node → c), a type-only cycle
  // d → e → f → d spelled three ways, and imports that only look like ones.
  write('src/a.ts', "import { b } from './b.ts';\nexport const a = () => b;\n");
  write('src/b.ts', "export { a as b } from './a.js';\n");
  write('src/c.ts', "import '#env';\nexport const c = 1;\n");
  write('src/env/node.ts', "import { c } from '../c.ts';\nexport const env = c;\n");
  write('src/env/none.ts', 'export const env = 0;\n');
  write('src/d.ts', "import type { E } from './e.ts';\nexport type D = E;\n");
  write('src/e.ts', "import { type F } from './f.ts';\nexport type E = F;\n");
  write('src/f.ts', "export type F = import('@fixture/p/view').D;\n");
  write('src/view.ts', "export type { D } from './d.ts';\n");
  write(
    'src/g.ts',
    "// import { a } from './a.ts';\nexport const text = \"import { g } from './g.ts'\";\n" +
      "export const later = () => import('./h.ts');\n",
  );
  write('src/h.ts', "import { text } from './g.ts';\nexport const h = text;\n");

  it('finds run-time cycles, through relative, `.js` and `#` specifiers and `import()` calls', () => {
    expect(cycles(importGraph(dir), true).map((c) => c.path)).toEqual([
      'src/a.ts → src/b.ts → src/a.ts',
      'src/c.ts → src/env/node.ts → src/c.ts',
      'src/g.ts → src/h.ts → src/g.ts',
    ]);
  });

  it('finds type-only cycles too, through `import type`, `type` names, `import()` types and exports', () => {
    const found = cycles(importGraph(dir), false);
    expect(found[0]).toEqual({
      modules: ['src/d.ts', 'src/e.ts', 'src/f.ts', 'src/view.ts'],
      path: 'src/d.ts → src/e.ts → src/f.ts → src/view.ts → src/d.ts',
    });
    expect(found).toHaveLength(4);
  });

  it('throws on a relative import that names no file', () => {
    write('src/i.ts', "import { x } from './missing.ts';\nexport const i = x;\n");
    expect(() => importGraph(dir)).toThrow('src/i.ts imports src/missing.ts, which is no file');
    rmSync(join(dir, 'src/i.ts'));
  });
});

describe.each(packages)('@jitterbug/%s', (name) => {
  const graph = importGraph(join(root, 'packages', name));

  it('has sources to read', () => {
    expect(graph.size).toBeGreaterThan(0);
  });

  it('has no run-time import cycle', () => {
    expect(cycles(graph, true).map((c) => c.path)).toEqual([]);
  });

  it('has no import cycle through types either', () => {
    expect(
      cycles(graph, false).map((c) => `${c.path} (${c.modules.length} modules: ${c.modules.join(', ')})`),
    ).toEqual([]);
  });
});
