/**
 * `make docs`: the API reference of every published package's entry points, as HTML in
 * `out/reference/` (git-ignored), from their TSDoc (see `reference.ts`). Exits non-zero, after
 * writing what it could, when TypeDoc found an export or a field without documentation, a broken
 * link or a source it could not read.
 */
import { join, relative, resolve } from 'node:path';
import { buildReference, entryPoints } from './reference.ts';

const root = resolve(import.meta.dirname, '../..');
const out = join(root, 'out', 'reference');
const { warnings, errors } = await buildReference(root, out);
for (const message of [...errors, ...warnings]) console.error(message);
console.log(
  `reference of ${entryPoints(root)
    .map((point) => point.specifier)
    .join(', ')}: ${relative(process.cwd(), join(out, 'index.html'))}`,
);
if (errors.length + warnings.length > 0) {
  console.error(`${errors.length} errors, ${warnings.length} warnings`);
  process.exitCode = 1;
}
