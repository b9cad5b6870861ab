/**
 * What a user sees of each published package on the registry: the shared metadata
 * (`scripts/package-metadata.py` writes it), the LICENSE and CHANGELOG.md shipped inside the
 * package, and README links that still work there (a relative link resolves against nothing on
 * npmjs.com).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('../..', import.meta.url).pathname;
const REPO = 'https://github.com/jitterbug-http/jitterbug';

const published = readdirSync(join(root, 'packages')).filter((dir) => {
  const manifest = JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8'));
  return manifest.private !== true;
});

const linksIn = (markdown: string): string[] => [...markdown.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);

it('finds the links of a README (the check below reads them this way)', () => {
  expect(linksIn('see [the core](../core/README.md) and [x](https://x.test/#a)')).toEqual([
    '../core/README.md',
    'https://x.test/#a',
  ]);
});

describe.each(published)('packages/%s', (dir) => {
  const read = (file: string) => readFileSync(join(root, 'packages', dir, file), 'utf8');
  const manifest = JSON.parse(read('package.json'));

  it('has the registry metadata and ships the LICENSE and its changelog', () => {
    expect(manifest).toMatchObject({
      license: 'MIT',
      homepage: `${REPO}/tree/main/packages/${dir}#readme`,
      bugs: { url: `${REPO}/issues` },
      repository: { type: 'git', url: `git+${REPO}.git`, directory: `packages/${dir}` },
      publishConfig: { access: 'public' },
    });
    expect(manifest.keywords.length).toBeGreaterThan(0);
    expect(manifest.files).toContain('LICENSE');
    // npm and pnpm pack a README and a LICENSE whatever `files` says, but a CHANGELOG.md only if listed.
    expect(manifest.files).toContain('CHANGELOG.md');
    expect(read('LICENSE')).toBe(readFileSync(join(root, 'LICENSE'), 'utf8'));
  });

  it("has no README link that breaks on the registry's page", () => {
    const links = linksIn(read('README.md'));
    expect(links.filter((link) => !/^(https?:|#|mailto:)/.test(link))).toEqual([]);
  });
});
