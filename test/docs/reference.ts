/**
 * The API reference: TypeDoc reads the TSDoc of every entry point a published package exports (each
 * `exports` key of `packages/*\/package.json`, through its `@jitterbug/source` condition) as one
 * program, and warns about every exported name, and every field of an exported interface or object
 * type, that has no documentation (`validation.notDocumented`). `make docs` renders it as HTML
 * (`build-reference.ts`); `reference.test.ts` converts and validates it without rendering.
 *
 * The settings that are the same for both are in `typedoc.json` at the repository root. TypeDoc runs
 * on TypeScript 6 (`.pnpmfile.cjs` gives it one), as TypeScript 7 has no JS API.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  Application,
  Converter,
  DeclarationReflection,
  Logger,
  LogLevel,
  type ProjectReflection,
  ReferenceReflection,
  ReflectionKind,
  ReflectionType,
  TSConfigReader,
  TypeDocReader,
} from 'typedoc';
import type { ExportedApi } from './readme-lists.ts';

/** A package that is published (not `private`). */
export interface PublishedPackage {
  /** `@jitterbug/core`. */
  readonly name: string;
  /** Its folder, relative to the repository root: `packages/core`. */
  readonly dir: string;
  /** Its parsed `package.json`. */
  readonly manifest: {
    readonly exports?: Record<string, unknown>;
    readonly private?: boolean;
    readonly dependencies?: Record<string, string>;
  };
}

/** One entry point a published package exports. */
export interface EntryPoint {
  /** What a user imports: `@jitterbug/core/adapter`. */
  readonly specifier: string;
  /** The package it belongs to. */
  readonly packageName: string;
  /** Its source file, relative to the repository root: `packages/core/src/adapter.ts`. */
  readonly file: string;
}

/**
 * The packages under `packages/` that are published, each after those it depends on (then by name):
 * TypeDoc documents a name that several entry points export where it first meets it, so that the
 * core's types are documented in `@jitterbug/core`, not in the first adapter that re-exports them.
 */
export const publishedPackages = (root: string): PublishedPackage[] => {
  const found = readdirSync(join(root, 'packages'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => `packages/${entry.name}`)
    .sort()
    .flatMap((dir): PublishedPackage[] => {
      let manifest: PublishedPackage['manifest'] & { name?: string };
      try {
        manifest = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
      } catch {
        return [];
      }
      return manifest.private || !manifest.name ? [] : [{ name: manifest.name, dir, manifest }];
    });
  const byName = new Map(found.map((pkg) => [pkg.name, pkg]));
  const depth = (pkg: PublishedPackage, seen: ReadonlySet<string> = new Set()): number =>
    Math.max(
      0,
      ...Object.keys(pkg.manifest.dependencies ?? {}).map((name) => {
        const dependency = byName.get(name);
        return dependency && !seen.has(name) ? 1 + depth(dependency, new Set([...seen, pkg.name])) : 0;
      }),
    );
  return found
    .map((pkg) => ({ pkg, depth: depth(pkg) }))
    .sort((a, b) => a.depth - b.depth || a.pkg.name.localeCompare(b.pkg.name))
    .map(({ pkg }) => pkg);
};

/** Every entry point of the published packages: each `exports` key but `./package.json`. */
export const entryPoints = (root: string): EntryPoint[] =>
  publishedPackages(root).flatMap(({ name, dir, manifest }) =>
    Object.entries(manifest.exports ?? {}).flatMap(([key, target]) => {
      const source = (target as Record<string, unknown> | null)?.['@jitterbug/source'];
      if (key === './package.json' || typeof source !== 'string') return [];
      return [
        {
          specifier: key === '.' ? name : `${name}/${key.slice(2)}`,
          packageName: name,
          file: join(dir, source),
        },
      ];
    }),
  );

/** TypeDoc's messages, kept instead of printed. */
class CollectingLogger extends Logger {
  readonly messages: { level: LogLevel; text: string }[] = [];
  override log(message: string, level: LogLevel): void {
    super.log(message, level);
    this.messages.push({ level, text: message });
  }
}

// TypeDoc's "does not have any documentation" warning: the reflection's full name, then its kind.
const UNDOCUMENTED = /^(.+) \(\w+\), defined in .+, does not have any documentation$/;

/**
 * Whether a warning is about a field of an exported constant's value (`DEFAULTS.maxAttempts`,
 * `CHANNELS.retry`): TypeDoc asks for each to be documented, but a constant's value is documented
 * by the constant's own TSDoc, and the reference shows each field's literal value.
 */
const aboutConstantField = (project: ProjectReflection): ((warning: string) => boolean) => {
  const constants = project
    .getReflectionsByKind(ReflectionKind.Variable)
    .map((constant) => `${constant.getFriendlyFullName()}.__type.`);
  return (warning) => {
    const name = UNDOCUMENTED.exec(warning)?.[1];
    return name !== undefined && constants.some((prefix) => name.startsWith(prefix));
  };
};

/** What a build of the reference found. */
export interface ReferenceResult {
  /** TypeDoc's validation warnings: an export or a field without TSDoc, a `{@link}` to nothing. */
  readonly warnings: readonly string[];
  /** Its errors: a source that does not compile, an entry point it cannot read. */
  readonly errors: readonly string[];
  /** The converted project (`undefined` when conversion failed). */
  readonly project: ProjectReflection | undefined;
}

/** Where the reference's "Defined in" links go: the sources on GitHub, on `main`. */
const SOURCE_LINK = 'https://github.com/jitterbug-http/jitterbug/blob/{gitRevision}/{path}#L{line}';

/**
 * Converts and validates the reference of every entry point, and writes it as HTML to `out` when
 * given. Each module is named as it is imported (`@jitterbug/core/adapter`).
 */
export const buildReference = async (root: string, out?: string): Promise<ReferenceResult> => {
  const points = entryPoints(root);
  const app = await Application.bootstrapWithPlugins(
    {
      options: join(root, 'typedoc.json'),
      entryPoints: points.map((point) => join(root, point.file)),
      packagesRequiringDocumentation: [...new Set(points.map((point) => point.packageName))],
      // Source links from a template, never from git. TypeDoc looks for a repository around every
      // file of the program, TypeScript's own lib files in node_modules included, and warns when the
      // one it finds has no remote named `origin`; a worktree (whose `.git` is a file) it does not
      // see at all. So one commit's reference differed by checkout: in a clone with no `origin`, as
      // the main checkout is, the build warned, and so did the canary's in a temporary directory.
      disableGit: true,
      sourceLinkTemplate: SOURCE_LINK,
      gitRevision: 'main',
      displayBasePath: root,
      ...(out === undefined ? {} : { out }),
    },
    [new TypeDocReader(), new TSConfigReader()],
  );
  const logger = new CollectingLogger();
  app.logger = logger;
  // Named as imported before links are resolved, so that a comment can link to
  // `{@link @jitterbug/core!RetryPolicy.begin}` from another entry point.
  const byFile = new Map(points.map((point) => [point.file, point.specifier]));
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    for (const module of context.project.getChildrenByKind(ReflectionKind.Module)) {
      const file = module.sources?.[0]?.fullFileName;
      const specifier = file === undefined ? undefined : byFile.get(relative(root, file));
      if (specifier !== undefined) module.name = specifier;
    }
  });
  const project = await app.convert();
  if (project) {
    app.validate(project);
    if (out !== undefined) await app.generateDocs(project, out);
  }
  const exempt = project ? aboutConstantField(project) : () => false;
  const texts = (level: LogLevel) =>
    logger.messages.filter((message) => message.level === level).map((message) => message.text);
  const warnings = texts(LogLevel.Warn).filter((text) => !exempt(text));
  return { warnings, errors: texts(LogLevel.Error), project };
};

/** What each entry point of the reference exports, and the fields of its types. */
export const exportedApi = (project: ProjectReflection): ExportedApi => {
  const modules = new Map(
    project.getChildrenByKind(ReflectionKind.Module).map((module) => [module.name, module]),
  );
  return {
    exportsOf: (module) => {
      const reflection = modules.get(module);
      return reflection && new Set((reflection.children ?? []).map((child) => child.name));
    },
    fieldsOf: (module, type) => {
      let found = modules.get(module)?.getChildByName(type);
      if (found instanceof ReferenceReflection) found = found.getTargetReflectionDeep();
      if (!(found instanceof DeclarationReflection)) return undefined;
      const fields = found.type instanceof ReflectionType ? found.type.declaration.children : found.children;
      return fields && new Set(fields.map((field) => field.name));
    },
  };
};
