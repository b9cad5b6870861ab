/**
 * Step 1 and 2 of `scripts/pack-install.sh`: reads the package.json inside every packed tarball, checks
 * that `pnpm pack` rewrote the `workspace:` ranges into the versions a registry user gets, and writes the
 * fresh project that installs the tarballs: its package.json (the tarballs as `file:` dependencies, the
 * peers at the versions the workspace uses) and its pnpm-workspace.yaml (overrides that make the
 * packages' dependencies on each other resolve to the tarballs too, and strict peer dependencies).
 *
 * Usage: node prepare.mjs <workspace root> <tarball dir> <project dir>
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const [root, tarballDir, projectDir] = process.argv.slice(2).map((path) => resolve(path));
if (!projectDir) throw new Error('usage: node prepare.mjs <workspace root> <tarball dir> <project dir>');

const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));
const rootManifest = readJson(join(root, 'package.json'));
const workspace = new Map();
for (const dir of readdirSync(join(root, 'packages'))) {
  let manifest;
  try {
    manifest = readJson(join(root, 'packages', dir, 'package.json'));
  } catch {
    continue;
  }
  workspace.set(manifest.name, manifest);
}

const problems = [];
const packed = new Map();
for (const file of readdirSync(tarballDir).filter((name) => name.endsWith('.tgz'))) {
  const tarball = join(tarballDir, file);
  const manifest = JSON.parse(
    execFileSync('tar', ['-xOzf', tarball, 'package/package.json'], { encoding: 'utf8' }),
  );
  packed.set(manifest.name, { manifest, tarball });
}

const published = [...workspace.values()].filter((manifest) => manifest.private !== true).map((m) => m.name);
for (const name of published) if (!packed.has(name)) problems.push(`${name}: no tarball was packed`);
for (const name of packed.keys())
  if (!published.includes(name)) problems.push(`${name}: packed but not published`);

const depFields = ['dependencies', 'peerDependencies', 'optionalDependencies', 'devDependencies'];
for (const [name, { manifest }] of packed) {
  const source = workspace.get(name);
  if (!source) continue;
  if (manifest.version !== source.version) {
    problems.push(`${name}: packed version ${manifest.version}, workspace ${source.version}`);
  }
  for (const field of depFields) {
    for (const [dep, range] of Object.entries(source[field] ?? {})) {
      const shipped = manifest[field]?.[dep];
      if (typeof shipped === 'string' && shipped.startsWith('workspace:')) {
        problems.push(`${name}: ${field}.${dep} is still "${shipped}" in the packed package.json`);
        continue;
      }
      if (!range.startsWith('workspace:')) continue;
      const target = workspace.get(dep);
      const spec = range.slice('workspace:'.length);
      const expected =
        spec === '*' ? target?.version : spec === '^' || spec === '~' ? `${spec}${target?.version}` : spec;
      if (shipped !== expected) {
        problems.push(
          `${name}: ${field}.${dep} is "${shipped}" in the packed package.json, expected "${expected}"`,
        );
      }
      if (field !== 'devDependencies' && target?.private === true) {
        problems.push(`${name}: ${field}.${dep} is a private package, which a registry user cannot install`);
      }
    }
  }
}

// The peers, at the versions the workspace itself uses (and tests with).
const peers = {};
for (const { manifest } of packed.values()) {
  for (const peer of Object.keys(manifest.peerDependencies ?? {})) {
    const version = rootManifest.devDependencies?.[peer];
    if (!version)
      problems.push(`${manifest.name}: peer ${peer} has no version in the workspace's devDependencies`);
    else peers[peer] = version;
  }
}
// test/types/consumer.ts is compiled with `types: ["node"]`.
peers['@types/node'] = rootManifest.devDependencies?.['@types/node'];
if (!peers['@types/node']) problems.push('@types/node has no version in the workspace devDependencies');

if (problems.length > 0) {
  console.error(`packed package.json problems:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}

const tarballs = Object.fromEntries([...packed].map(([name, { tarball }]) => [name, `file:${tarball}`]));
mkdirSync(projectDir, { recursive: true });
const project = {
  name: 'jitterbug-fresh-install',
  private: true,
  type: 'module',
  dependencies: { ...tarballs, ...peers },
};
writeFileSync(join(projectDir, 'package.json'), `${JSON.stringify(project, null, 2)}\n`);
// The packages depend on each other by registry ranges (`^0.1.0`) that nothing published yet can
// satisfy: the overrides point them at the tarballs as well.
const yaml = [
  'strictPeerDependencies: true',
  'overrides:',
  ...Object.entries(tarballs).map(([name, spec]) => `  ${JSON.stringify(name)}: ${JSON.stringify(spec)}`),
  '',
];
writeFileSync(join(projectDir, 'pnpm-workspace.yaml'), yaml.join('\n'));
console.log(
  `${packed.size} tarballs (${[...packed.keys()].join(', ')}), workspace: ranges rewritten; peers ${Object.entries(
    peers,
  )
    .map(([name, version]) => `${name}@${version}`)
    .join(', ')}`,
);
