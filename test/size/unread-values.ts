/**
 * Module-level values a bundle keeps though nothing in it reads them: a constant built by a call
 * (`Object.freeze({ … })`, `new Map(…)`) that esbuild cannot prove free of side effects, in a module
 * the bundle imports for something else. Tree-shaking leaves such a value in every bundle of that
 * module; only moving it (or deleting it, when nothing reads it at all) takes it out.
 */
import { build } from 'esbuild';

/** `entry` bundled as `bench/sizes.ts` bundles it for a browser, unminified (the sources' names). */
const unminified = async (entry: string, external: readonly string[]): Promise<string> => {
  const { outputFiles } = await build({
    stdin: { contents: entry, resolveDir: process.cwd(), loader: 'ts' },
    ...{ bundle: true, write: false, platform: 'browser', format: 'esm', minify: false },
    ...{ conditions: ['@jitterbug/source'], external: [...external], logLevel: 'silent' },
  });
  return outputFiles[0]!.text;
};

/** The top-level `var`s of `code` that no other place in it names (a `.name` property is not one). */
export const unreadIn = (code: string): string[] => {
  const declared = [...code.matchAll(/^var ([A-Za-z_$][\w$]*) =/gm)].map(([, name]) => name!);
  return declared.filter((name) => {
    const uses = code.match(
      new RegExp(`(?<![\\w$]|(?<!\\.\\.)\\.)${name.replace(/\$/g, '\\$')}(?![\\w$])`, 'g'),
    );
    return (uses?.length ?? 0) <= 1;
  });
};

/** The values `entry`'s browser bundle keeps and never reads. */
export const unreadValues = async (entry: string, external: readonly string[] = []): Promise<string[]> =>
  unreadIn(await unminified(entry, external));
