/**
 * The READMEs' tables of exports and of options, read against what the packages export. A table is
 * checked when the line before it (blank lines aside) says what it lists:
 *
 * - `<!-- exports of @jitterbug/core/adapter -->`: the names an entry point exports (the union of
 *   such tables for one entry point is the whole list; `, besides @jitterbug/core` leaves out what
 *   it re-exports from there);
 * - `<!-- options of @jitterbug/core RetryPolicyOptions -->`: the fields of an exported options type.
 *
 * The names are the backticked words that start the cells of the table's first column (`` `sleep(ms,
 * signal?)` `` names `sleep`). Every entry point of a published package must have its list in its
 * package's README, and every table whose first heading is `option` must say which type it lists.
 */

/** A table of a README that lists exports or options. */
export interface ListedTable {
  /** The Markdown file, relative to the repository root. */
  readonly file: string;
  /** 1-based line of the marker. */
  readonly line: number;
  readonly kind: 'exports' | 'options';
  /** The entry point (`@jitterbug/core/adapter`). */
  readonly module: string;
  /** For `options`: the type whose fields it lists. */
  readonly type: string | undefined;
  /** For `exports`: entry points whose exports it leaves out (`besides …`). */
  readonly besides: readonly string[];
  /** The names in its first column, with their lines. */
  readonly names: readonly { readonly name: string; readonly line: number }[];
}

/** What the packages export, as the check needs it. */
export interface ExportedApi {
  /** The names an entry point exports, or `undefined` for an entry point there is not. */
  exportsOf(module: string): ReadonlySet<string> | undefined;
  /** The fields of an exported type (inherited ones included), or `undefined` when it has none. */
  fieldsOf(module: string, type: string): ReadonlySet<string> | undefined;
}

const MARKER = /^\s*<!--\s*(exports|options) of\s+([^\s,]+)(.*?)-->\s*$/;
const NAME = /^[A-Za-z_$][\w$]*/;

/** The cells of a table row (`| a | b |`), without their outer pipes; escaped pipes stay in. */
const cells = (row: string): string[] =>
  row
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());

const isRow = (line: string | undefined): boolean => line?.trim().startsWith('|') === true;

/** The names a first-column cell gives: the start of each backticked span. */
const namesIn = (cell: string): string[] =>
  [...cell.matchAll(/`([^`]+)`/g)].flatMap((match) => NAME.exec(match[1]!.trim())?.[0] ?? []);

/** The marked tables of one Markdown file, and the problems of its unmarked option tables. */
export const readTables = (file: string, markdown: string): { tables: ListedTable[]; problems: string[] } => {
  const lines = markdown.split(/\r?\n/);
  const tables: ListedTable[] = [];
  const problems: string[] = [];
  let marker: { line: number; match: RegExpExecArray } | undefined;
  let inFence = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    if (inFence) continue;
    const match = MARKER.exec(line);
    if (match) {
      if (marker) problems.push(`${file}:${marker.line} has no table after its "${marker.match[0].trim()}"`);
      marker = { line: i + 1, match };
      continue;
    }
    if (line.trim() === '') continue;
    if (!isRow(line)) {
      if (marker) problems.push(`${file}:${marker.line} has no table after its "${marker.match[0].trim()}"`);
      marker = undefined;
      continue;
    }
    // A table: its heading row, the delimiter row, then its rows.
    const start = i;
    while (isRow(lines[i + 1])) i++;
    const heading = cells(lines[start]!)[0]?.toLowerCase();
    const names = lines
      .slice(start + 2, i + 1)
      .flatMap((row, n) => namesIn(cells(row)[0] ?? '').map((name) => ({ name, line: start + 3 + n })));
    if (marker) {
      const [, kind, module, rest = ''] = marker.match;
      const options = kind === 'options';
      tables.push({
        file,
        line: marker.line,
        kind: options ? 'options' : 'exports',
        module: module!,
        type: options ? rest.trim() : undefined,
        besides: options ? [] : [...rest.matchAll(/@[\w-]+\/[\w/-]+/g)].map((besides) => besides[0]),
        names,
      });
    } else if (heading === 'option' || heading === 'options') {
      problems.push(
        `${file}:${start + 1} has a table of options with no "<!-- options of <entry point> <type> -->" line before it`,
      );
    }
    marker = undefined;
  }
  if (marker) problems.push(`${file}:${marker.line} has no table after its "${marker.match[0].trim()}"`);
  return { tables, problems };
};

/**
 * Everything the tables get wrong: a name the entry point does not export or the type does not
 * have, one that is missing, an entry point of `required` (entry point → its package's README)
 * that no table lists. Each problem is one plain sentence.
 */
export const checkTables = (
  tables: readonly ListedTable[],
  api: ExportedApi,
  required: ReadonlyMap<string, string>,
): string[] => {
  const problems: string[] = [];
  const listed = new Map<string, { file: string; names: Set<string>; besides: Set<string> }>();
  for (const table of tables) {
    const where = `${table.file}:${table.line}`;
    const exported = api.exportsOf(table.module);
    if (!exported) {
      problems.push(`${where} lists the ${table.kind} of ${table.module}, which is not an entry point`);
      continue;
    }
    if (table.kind === 'options') {
      const fields = table.type ? api.fieldsOf(table.module, table.type) : undefined;
      if (!fields) {
        problems.push(`${where} lists the options of ${table.type}, which ${table.module} does not export`);
        continue;
      }
      const names = new Set(table.names.map(({ name }) => name));
      for (const { name, line } of table.names) {
        if (!fields.has(name))
          problems.push(`${table.file}:${line} names \`${name}\`, which ${table.type} does not have`);
      }
      for (const field of [...fields].sort()) {
        if (!names.has(field))
          problems.push(`${where}: the table misses \`${field}\`, an option of ${table.type}`);
      }
      continue;
    }
    const entry = listed.get(table.module) ?? { file: table.file, names: new Set(), besides: new Set() };
    listed.set(table.module, entry);
    for (const besides of table.besides) entry.besides.add(besides);
    for (const { name, line } of table.names) {
      entry.names.add(name);
      if (!exported.has(name))
        problems.push(`${table.file}:${line} names \`${name}\`, which ${table.module} does not export`);
    }
  }
  for (const [module, entry] of listed) {
    const left = new Set([...entry.besides].flatMap((besides) => [...(api.exportsOf(besides) ?? [])]));
    const missing = [...api.exportsOf(module)!].filter((name) => !left.has(name) && !entry.names.has(name));
    for (const name of missing.sort())
      problems.push(`${entry.file} does not list \`${name}\`, which ${module} exports`);
  }
  for (const [module, file] of required) {
    if (!listed.has(module))
      problems.push(`${file} has no table of the exports of ${module} ("<!-- exports of ${module} -->")`);
  }
  return problems;
};
