/**
 * The packages a reader of one Markdown file has installed: those its shell blocks name in an
 * install line (`npm install @jitterbug/axios axios`), and those an uninstall line names
 * (`npm uninstall axios-retry`: a migration guide's "before" snippets still use them). The snippets
 * of that file run with exactly these packages in `node_modules` (`run-snippets.ts`), as under pnpm,
 * where a package that is only a dependency of another cannot be imported.
 */

const SHELL_FENCE = /^\s*(`{3,}|~{3,})\s*(sh|shell|bash|console)\b/;
const INSTALL =
  /^\s*\$?\s*(?:npm\s+(?:install|i|add|uninstall|remove|rm)|pnpm\s+(?:add|remove)|yarn\s+(?:add|remove))\s+(.*)$/;

/** `@scope/name@^1.2` → `@scope/name`; `name@2` → `name`. */
const withoutVersion = (spec: string): string => {
  const at = spec.indexOf('@', spec.startsWith('@') ? 1 : 0);
  return at === -1 ? spec : spec.slice(0, at);
};

/** The packages named by the install and uninstall lines of the file's shell blocks, sorted. */
export const installedPackages = (markdown: string): string[] => {
  const found = new Set<string>();
  let fence: string | undefined;
  // A command continued with a backslash is one line.
  for (const line of markdown.replace(/\\\r?\n/g, ' ').split(/\r?\n/)) {
    if (fence === undefined) {
      fence = SHELL_FENCE.exec(line)?.[1];
      continue;
    }
    if (line.trim().startsWith(fence)) {
      fence = undefined;
      continue;
    }
    const args = INSTALL.exec(line)?.[1]?.replace(/#.*$/, '');
    for (const arg of args?.split(/\s+/) ?? []) {
      if (arg !== '' && !arg.startsWith('-')) found.add(withoutVersion(arg));
    }
  }
  return [...found].sort();
};

/** The package a bare import specifier loads (`@jitterbug/core/adapter` → `@jitterbug/core`), or
 * `undefined` for `node:` built-ins and relative paths. */
export const packageOf = (specifier: string): string | undefined => {
  if (specifier.startsWith('node:') || specifier.startsWith('.') || specifier.startsWith('/'))
    return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
};
