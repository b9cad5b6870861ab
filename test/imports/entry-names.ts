/**
 * The names an entry point exports, and the names a set of sources imports from it, read with
 * TypeScript's parser (as `import-graph.ts` reads imports).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript57';

const parse = (file: string): ts.SourceFile =>
  ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);

/** Every `.ts` file under `dir` (none when it does not exist). */
export const sourcesUnder = (dir: string): string[] => {
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourcesUnder(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
};

/** The names `file` exports through `export { … } from` (an entry point that only re-exports). */
export const exportedNames = (file: string): string[] =>
  parse(file).statements.flatMap((statement) => {
    if (!ts.isExportDeclaration(statement)) {
      throw new Error(
        `${file}: only \`export { … } from\` is read, found: ${statement.getText().slice(0, 60)}`,
      );
    }
    const clause = statement.exportClause;
    if (clause === undefined || !ts.isNamedExports(clause))
      throw new Error(`${file}: \`export *\` is not read`);
    return clause.elements.map((element) => element.name.text);
  });

/**
 * The names `files` import (or re-export) from `specifier`, each with the files that do. A namespace
 * import or `export *` of it throws: it would take every name.
 */
export const importedNames = (files: readonly string[], specifier: string): Map<string, string[]> => {
  const found = new Map<string, string[]>();
  for (const file of files) {
    for (const statement of parse(file).statements) {
      const isImport = ts.isImportDeclaration(statement);
      if (!isImport && !ts.isExportDeclaration(statement)) continue;
      const from = statement.moduleSpecifier;
      if (from === undefined || !ts.isStringLiteral(from) || from.text !== specifier) continue;
      const bindings = isImport ? statement.importClause?.namedBindings : statement.exportClause;
      if (bindings === undefined) continue;
      if (!ts.isNamedImports(bindings) && !ts.isNamedExports(bindings)) {
        throw new Error(`${file} takes every name of ${specifier} at once`);
      }
      for (const element of bindings.elements) {
        const name = (element.propertyName ?? element.name).text;
        found.set(name, [...(found.get(name) ?? []), file]);
      }
    }
  }
  return found;
};
