/**
 * Step 3 of `scripts/pack-install.sh`: what each installed package ships, as a user's node_modules has
 * it. LICENSE, README.md and CHANGELOG.md; built ESM (.js) with a declaration file (.d.ts) next to
 * each, and no output left over from a deleted source; every file that `exports`, `imports`, `types`,
 * `main` and `bin` name; and no tests, fixtures or build state.
 *
 * Usage: node files.mjs <project dir>
 */
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const projectDir = resolve(process.argv[2] ?? '.');
const project = JSON.parse(readFileSync(join(projectDir, 'package.json'), 'utf8'));
const names = Object.keys(project.dependencies).filter((name) => name.startsWith('@jitterbug/'));

const walk = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)],
  );
// Every string target of an `exports`/`imports` map, whatever the conditions.
const targets = (value) =>
  typeof value === 'string'
    ? [value]
    : value && typeof value === 'object'
      ? Object.values(value).flatMap(targets)
      : [];

const notShipped = [
  [/(^|\/)(test|tests|__tests__|__mocks__|fixtures?)\//, 'a test directory'],
  [/\.(test|spec)\.[cm]?[jt]sx?$/, 'a test file'],
  [/\.(test|spec)\.d\.[cm]?ts$/, 'a test declaration file'],
  [/\.tsbuildinfo$/, 'build state'],
  [/(^|\/)tsconfig[^/]*\.json$/, 'a tsconfig'],
  [/(^|\/)(vitest|vite)\.config\./, 'a test runner config'],
];

const problems = [];
const summary = [];
for (const name of names) {
  const dir = realpathSync(join(projectDir, 'node_modules', name));
  const files = walk(dir).map((file) => relative(dir, file).replaceAll('\\', '/'));
  const has = (file) => files.includes(file.replace(/^\.\//, ''));
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const problem = (text) => problems.push(`${name}: ${text}`);

  for (const file of ['LICENSE', 'README.md', 'CHANGELOG.md']) {
    if (!has(file)) problem(`ships no ${file}`);
    else if (statSync(join(dir, file)).size === 0) problem(`${file} is empty`);
  }
  const js = files.filter((file) => file.startsWith('dist/') && file.endsWith('.js'));
  const dts = files.filter((file) => file.startsWith('dist/') && file.endsWith('.d.ts'));
  if (js.length === 0) problem('ships no dist/*.js');
  if (dts.length === 0) problem('ships no dist/*.d.ts');
  for (const file of js) if (!has(file.replace(/\.js$/, '.d.ts'))) problem(`${file} has no .d.ts next to it`);
  // tsc -b never deletes what a removed source file once compiled to: such leftovers would be published.
  // The packages ship their src/ (for the source maps), which tells what dist/ should hold.
  if (files.some((file) => file.startsWith('src/'))) {
    const stale = files.filter((file) => {
      const output = /^dist\/(.+?)\.(js|d\.ts)(\.map)?$/.exec(file);
      return output && !['ts', 'mts', 'tsx'].some((ext) => has(`src/${output[1]}.${ext}`));
    });
    if (stale.length > 0) {
      problem(
        `ships build output whose source is gone (left in dist/ by an older build; delete it and rebuild): ${stale.join(', ')}`,
      );
    }
  }

  const named = [
    ...targets(manifest.exports).map((target) => ['exports', target]),
    ...targets(manifest.imports).map((target) => ['imports', target]),
    ...targets(manifest.bin).map((target) => ['bin', target]),
    ...['types', 'main', 'module']
      .filter((field) => manifest[field])
      .map((field) => [field, manifest[field]]),
  ];
  for (const [field, target] of named) {
    if (target.includes('*')) {
      const [prefix, suffix] = target.replace(/^\.\//, '').split('*');
      if (!files.some((file) => file.startsWith(prefix) && file.endsWith(suffix))) {
        problem(`${field} names ${target}, which matches no file shipped`);
      }
    } else if (!has(target)) problem(`${field} names ${target}, which is not shipped`);
  }
  for (const file of files) {
    for (const [pattern, what] of notShipped) if (pattern.test(file)) problem(`ships ${file} (${what})`);
  }
  summary.push(`${name.replace('@jitterbug/', '')} ${files.length} files`);
}

if (problems.length > 0) {
  console.error(`shipped files problems:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(
  `LICENSE, README.md, CHANGELOG.md, dist .js + .d.ts and every named entry point shipped, no tests (${summary.join(', ')})`,
);
