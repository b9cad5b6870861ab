/**
 * The import graph of a package's sources and its cycles. Each file is parsed with TypeScript's own
 * parser (5.7, the repo's `typescript57` alias: TypeScript 7 has no JS API), so a specifier inside a
 * string, a comment or a template is never taken for an import. Edges come from `import`, `export …
 * from`, `import x = require()`, `import('…')` calls (run-time) and `import('…')` types (type-only);
 * relative specifiers resolve to files, `#…` specifiers through the package's `imports` map under
 * every condition, and the package's own name through its `exports` map. A cycle is a strongly
 * connected component of more than one module, or a module importing itself.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript57';

/** One module's import of another module of its package. */
export interface Edge {
  readonly to: string;
  /** `false` when only types are imported: the edge is erased at run time. */
  readonly runtime: boolean;
}

/** A package's modules (paths relative to the package folder), each with its imports inside it. */
export type ImportGraph = ReadonlyMap<string, readonly Edge[]>;

interface Manifest {
  readonly name?: string;
  readonly imports?: Record<string, unknown>;
  readonly exports?: unknown;
}

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.[cm]?tsx?$/.test(entry.name) && !/\.d\.[cm]?ts$/.test(entry.name) ? [path] : [];
  });

/** Every source target of an `imports`/`exports` entry, under every condition. */
const targetsOf = (entry: unknown): string[] => {
  if (typeof entry === 'string') return [entry];
  if (typeof entry !== 'object' || entry === null) return [];
  return Object.values(entry).flatMap(targetsOf);
};

/** Whether an import clause brings a value: a default or namespace import, or a name not `type`. */
const importBringsValues = (clause: ts.ImportClause | undefined): boolean => {
  if (clause === undefined) return true; // `import './x.ts'`: run for its effects.
  if (clause.isTypeOnly) return false;
  if (clause.name !== undefined) return true;
  const bindings = clause.namedBindings;
  if (bindings === undefined) return false;
  if (ts.isNamespaceImport(bindings)) return true;
  return bindings.elements.some((element) => !element.isTypeOnly);
};

const exportBringsValues = (node: ts.ExportDeclaration): boolean => {
  if (node.isTypeOnly) return false;
  const clause = node.exportClause;
  if (clause === undefined || ts.isNamespaceExport(clause)) return true;
  return clause.elements.some((element) => !element.isTypeOnly);
};

/** Each module specifier `file` names, with whether the import survives at run time. */
const specifiersOf = (file: string): Array<{ specifier: string; runtime: boolean }> => {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Array<{ specifier: string; runtime: boolean }> = [];
  const literal = (node: ts.Node | undefined): string | undefined =>
    node !== undefined && ts.isStringLiteralLike(node) ? node.text : undefined;
  const add = (node: ts.Node | undefined, runtime: boolean): void => {
    const specifier = literal(node);
    if (specifier !== undefined) found.push({ specifier, runtime });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) add(node.moduleSpecifier, importBringsValues(node.importClause));
    else if (ts.isExportDeclaration(node)) add(node.moduleSpecifier, exportBringsValues(node));
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference))
      add(node.moduleReference.expression, !node.isTypeOnly);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument))
      add(node.argument.literal, false);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword)
      add(node.arguments[0], true);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
};

/**
 * The import graph of the package in `packageDir`: every module under its `src`, with each import
 * that lands inside the package. An import that should land inside it and names no file throws.
 */
export const importGraph = (packageDir: string): ImportGraph => {
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as Manifest;
  const graph = new Map<string, Edge[]>();
  const name = (path: string): string => relative(packageDir, path);
  const own = (file: string, target: string): string => {
    // A `.js` specifier names the `.ts` source beside it (TypeScript's `rewriteRelativeImportExtensions`
    // is the other way round, so either spelling may appear).
    const candidates = [target, target.replace(/\.([cm]?)js$/, '.$1ts')];
    const hit = candidates.find((candidate) => existsSync(candidate));
    if (hit === undefined) throw new Error(`${name(file)} imports ${name(target)}, which is no file`);
    return name(hit);
  };
  const resolveSpecifier = (file: string, specifier: string): string[] => {
    if (specifier.startsWith('.')) return [own(file, resolve(dirname(file), specifier))];
    const entry = (map: unknown, key: string): string[] => {
      if (typeof map !== 'object' || map === null || !(key in map)) {
        throw new Error(`${name(file)} imports '${specifier}', which the package's manifest does not map`);
      }
      return targetsOf((map as Record<string, unknown>)[key])
        .filter((target) => !/\.d\.[cm]?ts$/.test(target) && !target.startsWith('./dist/'))
        .map((target) => own(file, resolve(packageDir, target)));
    };
    if (specifier.startsWith('#')) return entry(manifest.imports, specifier);
    if (
      manifest.name !== undefined &&
      (specifier === manifest.name || specifier.startsWith(`${manifest.name}/`))
    ) {
      const subpath = `.${specifier.slice(manifest.name.length)}`;
      const exportsMap = typeof manifest.exports === 'string' ? { '.': manifest.exports } : manifest.exports;
      return entry(exportsMap, subpath);
    }
    return []; // another package: not an edge inside this one.
  };
  for (const file of sources(join(packageDir, 'src'))) {
    const edges = specifiersOf(file).flatMap(({ specifier, runtime }) =>
      resolveSpecifier(file, specifier).map((to) => ({ to, runtime })),
    );
    graph.set(name(file), edges);
  }
  return graph;
};

/** One cycle: its modules (sorted), and one closed path through all of its edges' kind. */
export interface Cycle {
  readonly modules: readonly string[];
  /** A shortest closed path from the first module back to itself, as `a.ts → b.ts → a.ts`. */
  readonly path: string;
}

/**
 * The cycles of `graph`, largest first: of its run-time edges alone when `runtimeOnly`, else of
 * every edge (a type-only cycle still ties the modules' types into one knot).
 */
export const cycles = (graph: ImportGraph, runtimeOnly: boolean): Cycle[] => {
  const followed = (v: string): string[] =>
    (graph.get(v) ?? []).filter((e) => (!runtimeOnly || e.runtime) && graph.has(e.to)).map((e) => e.to);
  // Tarjan's strongly connected components, iterative so that a long chain cannot overflow the stack.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let next = 0;
  for (const root of graph.keys()) {
    if (index.has(root)) continue;
    const work: Array<{ v: string; targets: string[]; at: number }> = [];
    const open = (v: string): void => {
      index.set(v, next);
      low.set(v, next++);
      stack.push(v);
      onStack.add(v);
      work.push({ v, targets: followed(v), at: 0 });
    };
    open(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      if (frame.at < frame.targets.length) {
        const w = frame.targets[frame.at++]!;
        if (!index.has(w)) open(w);
        else if (onStack.has(w)) low.set(frame.v, Math.min(low.get(frame.v)!, index.get(w)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined) low.set(parent.v, Math.min(low.get(parent.v)!, low.get(frame.v)!));
      if (low.get(frame.v) !== index.get(frame.v)) continue;
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== frame.v);
      if (component.length > 1 || followed(frame.v).includes(frame.v)) components.push(component.sort());
    }
  }
  return components
    .sort((a, b) => b.length - a.length || a[0]!.localeCompare(b[0]!))
    .map((modules) => ({ modules, path: closedPath(modules, followed) }));
};

/** A shortest path from the component's first module back to it, inside the component (breadth first). */
const closedPath = (modules: readonly string[], followed: (v: string) => string[]): string => {
  const start = modules[0]!;
  const inside = new Set(modules);
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const v = queue[i]!;
    for (const w of followed(v)) {
      if (!inside.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let at: string | undefined = v; at !== start && at !== undefined; at = cameFrom.get(at))
          path.push(at);
        return [...path, start].reverse().join(' → ');
      }
      if (cameFrom.has(w)) continue;
      cameFrom.set(w, v);
      queue.push(w);
    }
  }
  return start;
};
