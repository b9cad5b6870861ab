/**
 * `@jitterbug/core/adapter` holds what the adapters import, and nothing else (issue 34): the names
 * the packages other than the core import from it in their sources (and the examples, which show a
 * user writing the same kind of code). Tests reach the core's internals through its source files
 * (`packages/core/src/…`), never through this entry point, so it cannot grow back into a back door.
 */
import { readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { exportedNames, importedNames, sourcesUnder } from './entry-names.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const adapters = readdirSync(join(root, 'packages')).filter((name) => name !== 'core');
const users = [
  ...adapters.flatMap((name) => sourcesUnder(join(root, 'packages', name, 'src'))),
  ...sourcesUnder(join(root, 'examples')),
];

describe('@jitterbug/core/adapter', () => {
  const exported = exportedNames(join(root, 'packages/core/src/adapter.ts'));
  const imported = importedNames(users, '@jitterbug/core/adapter');

  it('exports exactly the names the adapters import', () => {
    const unused = exported.filter((name) => !imported.has(name));
    const missing = [...imported.keys()].filter((name) => !exported.includes(name));
    expect({ unused, missing }).toEqual({ unused: [], missing: [] });
  });

  it('holds about 50 names at most', () => {
    // 50 when it was set; 52 since issue 36's problem bodies (`isProblemJson`, `problemType`, which
    // the fetch engine, axios and undici read failures' bodies with). It may not grow further.
    // 53 with issue 36's keep-alive races (`lostKeptConnection`, which the fetch engine and undici read).
    // 58 while undici takes decisions rather than steps (issue 34): the run's older methods became
    // functions (`beforeAttempt`, `settleOn`, `decideOn`, `waitBetween`, `finishRun`), which only
    // the adapters that import them carry; they go when undici drives the sequence.
    // 51 once undici drives the sequence's steps: ky's `waitBetween` and `finishRun` are left.
    // 50 with ky's forced retry one function (`runForcedRetry`: the decision and its wait).
    expect(exported.length).toBeLessThanOrEqual(50);
  });

  it('is imported by the adapters, read from their sources', () => {
    const byFile = new Set([...imported.values()].flat().map((file) => relative(root, file).split('/')[1]));
    expect([...byFile].sort()).toEqual(expect.arrayContaining(['axios', 'fetch', 'ky', 'undici']));
  });
});
