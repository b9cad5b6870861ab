/**
 * The browser example: bundles app.ts from the packages' sources (esbuild, nothing downloaded),
 * serves it with server.ts, opens the page in headless Chromium (or Firefox) with the runtime
 * tests' launcher, and prints the timeline the page wrote.
 *
 * Run: node --conditions=@jitterbug/source examples/browser/run.ts [chromium|firefox]
 */
import { fileURLToPath } from 'node:url';
import { BROWSER_CONDITIONS, bundle } from '../../test/runtimes/hosts/bundle.ts';
import { type BrowserName, launchBrowser } from '../../test/runtimes/hosts/launch-browser.ts';
import type { FlakyServer } from '../flaky-server.ts';
import { runStandalone } from '../standalone.ts';
import { startPageSite } from './server.ts';

const APP = fileURLToPath(new URL('app.ts', import.meta.url));

export const main = async (
  server: FlakyServer,
  log: (line: string) => void,
  browserName: BrowserName = 'chromium',
): Promise<void> => {
  const script = await bundle({ entry: APP, conditions: BROWSER_CONDITIONS });
  const site = await startPageSite(server.url, script);
  try {
    const launched = await launchBrowser(browserName);
    try {
      const page = await launched.browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error instanceof Error ? error.message : String(error)));
      await page.goto(`${site.url}/`, { waitUntil: 'load' });
      log(`  page ${site.url}/ in ${launched.version}`);
      const lines = await page.evaluate(
        () => (globalThis as { jitterbugTimeline?: Promise<string[]> }).jitterbugTimeline,
      );
      if (!lines)
        throw new Error(`the page did not run its script: ${errors.join('; ') || 'no error shown'}`);
      for (const line of lines) log(line);
      // What the page cannot see: how often each request reached the server (a browser may send one
      // again by itself: Firefox does after a reset, and jitterbug then sees only the answer).
      log(`  the flaky server saw: ${[...server.hits].map(([key, n]) => `${key} x${n}`).join(', ')}`);
    } finally {
      await launched.close();
    }
  } finally {
    await site.close();
  }
};

if (import.meta.main) {
  const name = process.argv[2] ?? 'chromium';
  if (name !== 'chromium' && name !== 'firefox') throw new Error(`no browser ${name}: chromium or firefox`);
  await runStandalone((server, log) => main(server, log, name));
}
