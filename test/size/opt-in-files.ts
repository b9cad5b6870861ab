/**
 * The opt-in features' files, read from the feature table's imports rather than listed: every file
 * of the core's `features/` folder is a feature that a bundle carries only once its user imports the
 * factory, but the table itself and what it imports at run time (the features on by default, the
 * herd line and the budget, and what they import in turn). A new feature's file is thus opt-in by
 * where it is, and the size test holds every default bundle to leaving it out.
 */
import { readdirSync, readFileSync } from 'node:fs';

const FEATURES_DIR = new URL('../../packages/core/src/features/', import.meta.url);
const INDEX = new URL('../../packages/core/src/index.ts', import.meta.url);

/** The files of `features/` that `file` imports at run time (an import of types only left out). */
const runtimeImports = (file: string): string[] =>
  [
    ...readFileSync(new URL(file, FEATURES_DIR), 'utf8').matchAll(
      /^import\s+(?!type\s)([^;]*?)\s+from\s+'\.\/([\w-]+\.ts)';/gms,
    ),
  ]
    .filter(([, names]) =>
      names!
        .replace(/[{}]/g, '')
        .split(',')
        .some((name) => name.trim() !== '' && !name.trim().startsWith('type ')),
    )
    .map(([, , imported]) => imported!);

/** `table.ts` and the files of `features/` it reaches by run-time imports: in every bundle. */
export const defaultFeatureFiles = (): ReadonlySet<string> => {
  const reached = new Set(['table.ts']);
  for (const file of reached) for (const imported of runtimeImports(file)) reached.add(imported);
  return reached;
};

/** The opt-in features' files, by name without `.ts` (`hedging`, `hedge-race`, …). */
export const optInFeatureFiles = (): string[] => {
  const defaults = defaultFeatureFiles();
  return readdirSync(FEATURES_DIR)
    .filter((file) => file.endsWith('.ts') && !defaults.has(file))
    .map((file) => file.slice(0, -'.ts'.length));
};

/** The file of `features/` (no `.ts`) that the core's entry exports `factory` from, if any. */
export const factoryFile = (factory: string): string | undefined =>
  [
    ...readFileSync(INDEX, 'utf8').matchAll(/export\s*\{([^}]*)\}\s*from\s*'\.\/features\/([\w-]+)\.ts'/g),
  ].find(([, names]) => new RegExp(`\\b${factory}\\b`).test(names!))?.[2];
